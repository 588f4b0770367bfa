"""The ``bash`` tool's output limits (plugins/bash), with real processes: the artifact is
capped (head and tail around a marker) and a command whose output passes the hard limit
is stopped."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
import tracemalloc
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from omp import AbortSignal, ArtifactStore, ToolResult
from omp.testing import settings_with
from omp_tool_bash.runner import process_state
from omp_tool_bash.tool import BashParams, BashTool

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")

MARKER = re.compile(
    rb"\n\[\.\.\. (\d+) bytes omitted: the output passed bash\.artifactMaxBytes "
    rb"\(\d+ bytes\); the head and the tail are kept \.\.\.\]\n"
)


def make_ctx(tmp_path: Path, **bash: Any) -> SimpleNamespace:
    settings = settings_with({"bash": bash})
    return SimpleNamespace(
        cwd=str(tmp_path), artifacts=ArtifactStore(tmp_path / "artifacts"), settings=settings
    )


def run(command: str, ctx: Any, **params: Any) -> ToolResult:
    async def main() -> ToolResult:
        return await BashTool().execute(
            "call-1", BashParams(command=command, **params), AbortSignal(), None, ctx
        )

    return asyncio.run(main())


def text_of(result: ToolResult) -> str:
    assert len(result.content) == 1
    return result.content[0].text


def is_gone(pid: int) -> bool:
    state = process_state(pid)
    return state is None or state[0] in "ZX"


def split_artifact(data: bytes) -> tuple[bytes, int, bytes]:
    """(head, omitted byte count, tail) of a capped artifact."""
    (match,) = list(MARKER.finditer(data))
    return data[: match.start()], int(match.group(1)), data[match.end() :]


def test_artifact_keeps_head_and_tail_under_the_cap(tmp_path: Path) -> None:
    cap = 64 * 1024
    ctx = make_ctx(tmp_path, artifactMaxBytes=cap)
    result = run("seq 1 300000", ctx)
    full = "".join(f"{n}\n" for n in range(1, 300001)).encode()
    assert not result.is_error
    saved = ctx.artifacts.path(result.details["artifact"]).read_bytes()
    assert len(saved) <= cap
    head, omitted, tail = split_artifact(saved)
    assert head.startswith(b"1\n2\n3\n") and full.startswith(head)
    assert tail.endswith(b"299999\n300000\n") and full.endswith(tail)
    assert len(head) + omitted + len(tail) == len(full)
    assert len(head) > cap // 3 and len(tail) > cap // 3
    text = text_of(result)
    assert text.endswith("\n300000")
    header = text.partition("\n")[0]
    assert f"{omitted} bytes omitted" in header
    assert result.details["artifact"] in header
    assert result.details["artifactTruncated"] is True


def test_output_under_the_cap_is_saved_whole(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path, artifactMaxBytes=1024 * 1024)
    result = run("seq 1 30000", ctx)
    saved = ctx.artifacts.path(result.details["artifact"]).read_bytes()
    assert saved == "".join(f"{n}\n" for n in range(1, 30001)).encode()
    assert result.details["artifactTruncated"] is False
    assert "omitted" not in text_of(result)


def test_yes_is_stopped_once_its_output_passes_the_hard_limit(tmp_path: Path) -> None:
    cap, limit = 32 * 1024, 4 * 1024 * 1024
    ctx = make_ctx(tmp_path, artifactMaxBytes=cap, outputHardLimitBytes=limit)
    pids = tmp_path / "pids"
    started = time.monotonic()
    # the timeout is only a safety net: without the limit `yes` fills the disk
    result = run(f"echo $$ > {pids}; sleep 100 & echo $! >> {pids}; yes", ctx, timeout=5)
    assert time.monotonic() - started < 10
    assert result.is_error
    text = text_of(result)
    assert text.endswith(
        "\n\nCommand stopped: its output passed the limit of 4.0 MB (bash.outputHardLimitBytes)"
    )
    assert text.startswith("[Output truncated:")
    assert result.details["outputLimited"] is True
    assert result.details["totalBytes"] == limit
    assert result.details["exitCode"] is None
    saved = ctx.artifacts.path(result.details["artifact"]).read_bytes()
    assert len(saved) <= cap
    head, omitted, tail = split_artifact(saved)
    assert head.startswith(b"y\ny\n") and tail.endswith(b"y\ny\n")
    assert len(head) + omitted + len(tail) == limit
    shell, background = (int(p) for p in pids.read_text().split())
    assert is_gone(shell) and is_gone(background)


def test_memory_stays_bounded_while_yes_runs(tmp_path: Path) -> None:
    cap, limit = 8 * 1024 * 1024, 48 * 1024 * 1024
    ctx = make_ctx(tmp_path, artifactMaxBytes=cap, outputHardLimitBytes=limit)
    tracemalloc.start()
    try:
        result = run("yes", ctx, timeout=5)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.details["outputLimited"] is True
    assert result.details["totalBytes"] == limit
    assert peak < 2 * 1024 * 1024  # neither the output nor the artifact's tail in memory
    saved = ctx.artifacts.path(result.details["artifact"])
    assert cap - 1024 < saved.stat().st_size <= cap


def test_limits_come_from_the_session_settings(omp_harness: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("OMP_SETTINGS", json.dumps({"bash": {"outputHardLimitBytes": 100000}}))
    script = [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "yes", "timeout": 5}}]},
        {"text": "done"},
    ]
    session = omp_harness.session(script=script, no_session=False)
    events = omp_harness.run(session, "go")
    (end,) = [e for e in events.of("tool_execution_end") if e.tool_name == "bash"]
    assert end.is_error
    assert end.result["details"]["totalBytes"] == 100000
    assert end.result["content"][0].text.endswith(
        "Command stopped: its output passed the limit of 97.7 KB (bash.outputHardLimitBytes)"
    )


@pytest.mark.parametrize(
    ("bash", "message"),
    [
        (
            {"artifactMaxBytes": "lots"},
            "Invalid setting bash.artifactMaxBytes: expected a whole number of bytes "
            'of at least 4096, got "lots"',
        ),
        (
            {"outputHardLimitBytes": 10},
            "Invalid setting bash.outputHardLimitBytes: expected a whole number of bytes "
            "of at least 4096, got 10",
        ),
        (
            {"artifactMaxBytes": True},
            "Invalid setting bash.artifactMaxBytes: expected a whole number of bytes "
            "of at least 4096, got true",
        ),
    ],
)
def test_bad_limit_settings_are_a_one_line_error(
    tmp_path: Path, bash: dict[str, Any], message: str
) -> None:
    marker = tmp_path / "ran"
    result = run(f"touch {marker}", make_ctx(tmp_path, **bash))
    assert result.is_error
    assert text_of(result) == message
    assert not marker.exists()


def test_cut_lines_stay_whole_characters(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path, artifactMaxBytes=4100)  # head and tail cuts fall inside a "€"
    script = "import sys; sys.stdout.write('\u20ac' * 100000)"
    result = run(f'{sys.executable} -c "{script}"', ctx)
    saved = ctx.artifacts.path(result.details["artifact"]).read_bytes()
    assert len(saved) <= 4100
    head, omitted, tail = split_artifact(saved)
    assert set(head.decode("utf-8")) == set(tail.decode("utf-8")) == {"\u20ac"}
    assert len(head) + omitted + len(tail) == 300000
