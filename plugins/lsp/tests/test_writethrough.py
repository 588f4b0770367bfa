"""Diagnostics after write/edit from a real basedpyright, through a real session."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from lsp_helpers import PidSpy, configure, group_alive, texts
from omp_lsp.config import available_servers

BUILTINS = ["edit", "lsp"]


def _have_basedpyright(tmp_path: Path) -> bool:
    from omp.testing import settings_with

    names = [c.name for c in available_servers(settings_with({}), tmp_path, False, tmp_path)]
    return "basedpyright" in names


def test_basedpyright_is_found(tmp_path: Path) -> None:
    """requirements-dev.txt installs basedpyright: the tests below run it, never a mock."""
    assert _have_basedpyright(tmp_path), "pip install basedpyright (requirements-dev.txt)"


def test_edit_gets_new_diagnostic_and_fix_clears_it(omp_harness: Any, spy: PidSpy) -> None:
    configure(omp_harness, {"diagnosticsBudgetMs": 60000})
    (omp_harness.cwd / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    script = [
        {"tool_calls": [{"name": "write", "arguments": {"path": "m.py", "content": "x = 1\n"}}]},
        {"tool_calls": [{"name": "edit", "arguments": {"path": "m.py", "edits": [
            {"oldText": "x = 1\n", "newText": "x = 1\nprint(undefined_thing)\n"}]}}]},
        {"tool_calls": [{"name": "edit", "arguments": {"path": "m.py", "edits": [
            {"oldText": "undefined_thing", "newText": "x"}]}}]},
        {"text": "done"},
    ]  # fmt: skip
    session = omp_harness.session([spy], script=script, builtins=BUILTINS)
    events = omp_harness.run(session, "go")
    (wrote,) = texts(events, "write")
    introduced, fixed = texts(events, "edit")
    assert "undefined_thing" not in wrote and "LSP diagnostics" not in wrote
    assert "LSP diagnostics (new or changed):" in introduced
    assert 'm.py:2:7 [error] [basedpyright] "undefined_thing" is not defined' in introduced
    assert "undefined_thing" not in fixed
    assert "diagnostic(s) resolved; no new errors or warnings" in fixed
    shown = [e.result["details"] for e in events.of("tool_execution_end") if e.tool_name == "edit"]
    assert shown[0]["diff"] and shown[0]["diagnostics"] == introduced.split("\n")[1:]
    assert shown[1]["diagnostics"] == [fixed.split("\n")[-1]]
    assert len(spy.pids) == 1  # one server, reused by the three calls
    assert not group_alive(spy.pids[0])


def test_no_lsp_flag_starts_nothing(omp_harness: Any, spy: PidSpy) -> None:
    configure(omp_harness, {"diagnosticsBudgetMs": 60000})
    script = [
        {"tool_calls": [{"name": "write", "arguments": {"path": "m.py", "content": "y = z\n"}}]},
        {"text": "done"},
    ]
    session = omp_harness.session([spy], script=script, builtins=BUILTINS, flags={"no-lsp": True})
    events = omp_harness.run(session, "go")
    assert "LSP" not in texts(events, "write")[0]
    assert spy.pids == []


CRASHING = """
import os, sys
with open(sys.argv[1], "a") as f:
    f.write(f"{os.getpid()}\\n")
sys.exit(3)
"""

HANGING = """
import os, sys, time
with open(sys.argv[1], "a") as f:
    f.write(f"{os.getpid()}\\n")
while True:
    time.sleep(1)  # reads nothing, answers nothing
"""


def _stand_in(omp_harness: Any, source: str, budget_ms: int) -> tuple[Path, dict[str, Any]]:
    script = omp_harness.root / "server.py"
    script.write_text(source)
    starts = omp_harness.root / "starts"
    servers = {
        "basedpyright": {"disabled": True},
        "pyright": {"disabled": True},
        "standin": {
            "command": sys.executable,
            "args": [str(script), str(starts)],
            "fileTypes": [".py"],
        },
    }
    configure(omp_harness, {"diagnosticsBudgetMs": budget_ms}, servers)
    return starts, servers


def _writes(n: int) -> list[dict[str, Any]]:
    calls = [
        {"tool_calls": [{"name": "write", "arguments": {"path": f"f{i}.py", "content": "a=1\n"}}]}
        for i in range(n)
    ]
    return [*calls, {"text": "done"}]


def test_crashing_server_is_restarted_once_then_reported(omp_harness: Any) -> None:
    starts, _ = _stand_in(omp_harness, CRASHING, 20000)
    session = omp_harness.session(script=_writes(2), builtins=BUILTINS)
    events = omp_harness.run(session, "go")
    first, second = texts(events, "write")
    assert "LSP server standin did not start" in first
    assert "restarted 1 time(s), giving up" in first
    assert "LSP" not in second  # reported once, not started again
    pids = [int(p) for p in starts.read_text().split()]
    assert len(pids) == 2
    assert not any(group_alive(p) for p in pids)
    assert (omp_harness.cwd / "f1.py").read_text() == "a=1\n"  # the writes happened


def test_hanging_server_does_not_stall_the_write(omp_harness: Any) -> None:
    import time

    starts, _ = _stand_in(omp_harness, HANGING, 500)
    session = omp_harness.session(script=_writes(1), builtins=BUILTINS)
    began = time.monotonic()
    events = omp_harness.run(session, "go")
    assert time.monotonic() - began < 5
    (wrote,) = texts(events, "write")
    assert "LSP diagnostics not ready within 500ms" in wrote
    assert (omp_harness.cwd / "f0.py").read_text() == "a=1\n"
    (pid,) = [int(p) for p in starts.read_text().split()]
    assert not group_alive(pid)


@pytest.mark.skipif(shutil.which("true") is None, reason="needs a POSIX system")
def test_missing_program_is_not_a_server(tmp_path: Path) -> None:
    from omp.testing import settings_with

    settings = settings_with({"lsp": {"servers": {"ghost": ["no-such-lsp-binary-xyz"]}}})
    names = [c.name for c in available_servers(settings, tmp_path, False, tmp_path)]
    assert "ghost" not in names
