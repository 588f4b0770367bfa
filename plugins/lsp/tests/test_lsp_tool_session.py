"""The lsp tool in a session: offered when a language server exists, absent otherwise."""

from __future__ import annotations

from typing import Any

from lsp_helpers import PidSpy, configure, group_alive, texts


def _run(harness: Any, spy: PidSpy, **flags: Any) -> Any:
    (harness.cwd / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\n')
    (harness.cwd / "lib.py").write_text("def area(w: int, h: int) -> int:\n    return w * h\n")
    (harness.cwd / "app.py").write_text("from lib import area\n\nprint(area(2, 3))\n")
    call = {
        "name": "lsp",
        "arguments": {"action": "definition", "file": "app.py", "line": 3, "symbol": "area"},
    }
    session = harness.session(
        plugins=[spy],
        script=[{"tool_calls": [call]}, {"text": "done"}],
        builtins=["lsp"],
        flags=flags,
    )
    return harness.run(session, "where is area defined?")


def test_the_model_calls_lsp_and_the_server_is_gone_after(omp_harness: Any, spy: PidSpy) -> None:
    configure(omp_harness, {})
    events = _run(omp_harness, spy)
    assert texts(events, "lsp") == [
        "Found 1 definition(s):\n  lib.py:1:5\n    1: def area(w: int, h: int) -> int:"
    ]
    assert spy.pids
    assert not [p for p in spy.pids if group_alive(p)]


def test_no_lsp_offers_no_lsp_tool(omp_harness: Any, spy: PidSpy) -> None:
    events = _run(omp_harness, spy, **{"no-lsp": True})
    (end,) = events.of("tool_execution_end")
    assert end.is_error
    assert texts(events, "lsp") == ["Tool 'lsp' not found. Available tools: (none)"]
    assert not spy.pids


def test_no_server_for_the_workspace_offers_no_lsp_tool(omp_harness: Any, spy: PidSpy) -> None:
    configure(omp_harness, {"servers": {"basedpyright": [], "pyright": []}})
    events = _run(omp_harness, spy)
    (end,) = events.of("tool_execution_end")
    assert end.is_error
    assert texts(events, "lsp") == ["Tool 'lsp' not found. Available tools: (none)"]
    assert not spy.pids
