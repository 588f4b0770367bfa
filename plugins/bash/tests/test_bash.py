"""The built-in ``bash`` tool (plugins/bash), with real processes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from omp import AbortSignal, ArtifactStore, ToolResult
from omp_tool_bash.output import MAX_BYTES, MAX_LINES
from omp_tool_bash.runner import process_state
from omp_tool_bash.tool import BashParams, BashTool, clamp_timeout

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")


def make_ctx(tmp_path: Path) -> SimpleNamespace:
    return SimpleNamespace(cwd=str(tmp_path), artifacts=ArtifactStore(tmp_path / "artifacts"))


async def arun(
    command: str,
    ctx: Any,
    signal: AbortSignal | None = None,
    updates: list[Any] | None = None,
    **params: Any,
) -> ToolResult:
    sink = updates if updates is not None else []
    result = await BashTool().execute(
        "call-1", BashParams(command=command, **params), signal or AbortSignal(), sink.append, ctx
    )
    assert isinstance(result, ToolResult)
    return result


def run(command: str, tmp_path: Path, **kwargs: Any) -> ToolResult:
    return asyncio.run(arun(command, make_ctx(tmp_path), **kwargs))


def text_of(result: ToolResult) -> str:
    assert len(result.content) == 1
    return result.content[0].text


def run_with_abort(command: str, tmp_path: Path, after: float) -> tuple[ToolResult, float]:
    """Run ``command``, abort the signal from another task ``after`` seconds in."""

    async def main() -> tuple[ToolResult, float]:
        signal = AbortSignal()

        async def abort_later() -> None:
            await asyncio.sleep(after)
            signal.abort()

        aborter = asyncio.create_task(abort_later())
        started = time.monotonic()
        result = await arun(command, make_ctx(tmp_path), signal=signal)
        elapsed = time.monotonic() - started
        await aborter
        return result, elapsed - after

    return asyncio.run(main())


def is_gone(pid: int) -> bool:
    """Dead: no such process, or a zombie (in this container init may never reap)."""
    state = process_state(pid)
    if state is None and not Path("/proc/self/stat").exists():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    return state is None or state[0] in "ZX"


def read_pids(path: Path, expected: int) -> list[int]:
    pids = [int(p) for p in path.read_text().split()]
    assert len(pids) == expected
    return pids


# -- basics -------------------------------------------------------------------------


def test_simple_echo(tmp_path: Path) -> None:
    result = run("echo hello", tmp_path)
    assert not result.is_error
    assert text_of(result) == "hello"
    details = result.details
    assert details["exitCode"] == 0
    assert (details["timedOut"], details["aborted"], details["truncated"]) == (False,) * 3
    assert details["artifact"] is None
    assert isinstance(details["durationMs"], int)


def test_no_output(tmp_path: Path) -> None:
    result = run("true", tmp_path)
    assert text_of(result) == "(no output)"
    assert not result.is_error


def test_nonzero_exit_is_an_error_with_the_output(tmp_path: Path) -> None:
    result = run("echo partial; exit 7", tmp_path)
    assert result.is_error
    assert text_of(result) == "partial\n\nExit code: 7"
    assert result.details["exitCode"] == 7


def test_stderr_is_merged_in_order(tmp_path: Path) -> None:
    result = run("echo one; echo two >&2; echo three; echo four >&2", tmp_path)
    assert text_of(result) == "one\ntwo\nthree\nfour"


def test_runs_in_ctx_cwd_with_empty_stdin(tmp_path: Path) -> None:
    work = tmp_path / "proj"
    work.mkdir()
    result = run("pwd; cat; echo done", work, timeout=5)  # cat would hang on a tty
    assert text_of(result) == f"{work}\ndone"
    assert result.details["durationMs"] < 4000


def test_missing_working_directory(tmp_path: Path) -> None:
    result = run("echo x", tmp_path / "nope")
    assert result.is_error
    assert text_of(result) == f"Working directory does not exist: {tmp_path / 'nope'}"


def test_empty_command_is_refused(tmp_path: Path) -> None:
    result = run("   ", tmp_path)
    assert result.is_error
    assert "empty" in text_of(result)


def test_non_interactive_environment(tmp_path: Path) -> None:
    result = run(
        "echo $PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT $CI $EDITOR $GIT_EDITOR $TERM "
        "$NO_COLOR $DEBIAN_FRONTEND $npm_config_yes",
        tmp_path,
    )
    assert text_of(result) == "cat cat 0 1 true true dumb 1 noninteractive true"


def test_non_utf8_bytes_become_replacement_characters(tmp_path: Path) -> None:
    result = run(r"printf '\xff\xfe ok\n'", tmp_path)
    assert not result.is_error
    assert text_of(result) == "\ufffd\ufffd ok"


def test_character_split_across_reads_survives_streaming(tmp_path: Path) -> None:
    updates: list[Any] = []
    result = run(r"printf '\xc3'; sleep 0.3; printf '\xa9\n'; sleep 0.3", tmp_path, updates=updates)
    assert text_of(result) == "\u00e9"
    texts = [u.content[0].text for u in updates]
    assert texts, "no streaming update"
    assert all("\ufffd" not in t for t in texts)
    assert texts[-1] == "\u00e9\n"


def test_output_streams_before_the_command_ends(tmp_path: Path) -> None:
    updates: list[Any] = []
    result = run("for i in 1 2 3; do echo n$i; sleep 0.25; done", tmp_path, updates=updates)
    assert text_of(result) == "n1\nn2\nn3"
    texts = [u.content[0].text for u in updates]
    assert any(t.startswith("n1") and "n3" not in t for t in texts)
    assert len(updates) < 40  # throttled


# -- timeout and abort --------------------------------------------------------------


def test_timeout_keeps_partial_output(tmp_path: Path) -> None:
    started = time.monotonic()
    result = run("echo before; sleep 30; echo after", tmp_path, timeout=1)
    assert time.monotonic() - started < 4
    assert result.is_error
    assert text_of(result) == "before\n\nCommand timed out after 1 s"
    assert result.details["timedOut"] is True
    assert result.details["exitCode"] is None


def test_abort_mid_run(tmp_path: Path) -> None:
    result, after_abort = run_with_abort("echo started; sleep 30; echo never", tmp_path, 0.3)
    assert after_abort < 1.0
    assert result.is_error
    assert text_of(result) == "started\n\nCommand was aborted"
    assert result.details["aborted"] is True


def test_already_aborted_signal(tmp_path: Path) -> None:
    signal = AbortSignal()
    signal.abort()
    started = time.monotonic()
    result = run("sleep 30", tmp_path, signal=signal)
    assert time.monotonic() - started < 1.5
    assert result.is_error and result.details["aborted"] is True


def test_forked_children_die_on_timeout_even_when_ignoring_term(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    command = (
        f"sleep 100 & echo $! >> {pids_file}; "
        f"sleep 100 & echo $! >> {pids_file}; "
        f"(trap '' TERM; sleep 100 & echo $! >> {pids_file}; wait) & echo $! >> {pids_file}; "
        "echo spawned; wait"
    )
    started = time.monotonic()
    result = run(command, tmp_path, timeout=1)
    elapsed = time.monotonic() - started
    pids = read_pids(pids_file, 4)
    assert text_of(result) == "spawned\n\nCommand timed out after 1 s"
    assert [pid for pid in pids if not is_gone(pid)] == []
    assert elapsed >= 2.5  # TERM was ignored, so KILL came after the grace
    assert elapsed < 6


def test_forked_children_die_on_abort(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    command = (
        f"sleep 100 & echo $! >> {pids_file}; "
        f"sleep 100 & echo $! >> {pids_file}; "
        f"(sleep 100; echo late) & echo $! >> {pids_file}; wait"
    )
    result, after_abort = run_with_abort(command, tmp_path, 0.5)
    pids = read_pids(pids_file, 3)
    assert after_abort < 1.0
    assert result.details["aborted"] is True
    assert [pid for pid in pids if not is_gone(pid)] == []


def test_background_job_does_not_block_the_call(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    started = time.monotonic()
    result = run(f"sleep 5 & echo $! > {pids_file}; echo ok", tmp_path)
    try:
        assert time.monotonic() - started < 2.5
        assert not result.is_error
        assert text_of(result).startswith("ok\n\n[The command exited but left background")
    finally:
        for pid in read_pids(pids_file, 1):
            if not is_gone(pid):
                os.kill(pid, 9)


def test_timeout_is_clamped() -> None:
    assert clamp_timeout(None) == 120
    assert clamp_timeout(0) == 1
    assert clamp_timeout(-5) == 1
    assert clamp_timeout(99_999) == 3600
    assert clamp_timeout(2.5) == 2.5


# -- large output -------------------------------------------------------------------


def test_ten_megabytes_of_output(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    started = time.monotonic()
    result = asyncio.run(arun("yes line | head -c 10000000", ctx))
    assert time.monotonic() - started < 10
    assert not result.is_error
    text = text_of(result)
    assert len(text.encode("utf-8")) <= MAX_BYTES
    header, _, body = text.partition("\n")
    ref = result.details["artifact"]
    assert ref.startswith("artifact://")
    assert header == (
        f"[Output truncated: showing the last {MAX_LINES} of 2000000 lines (9.8 KB of 9.5 MB). "
        f"Full output: {ref} — read it with the read tool]"
    )
    assert body.split("\n") == ["line"] * MAX_LINES
    assert result.details["truncated"] is True
    saved = ctx.artifacts.path(ref)
    assert saved.stat().st_size == 10_000_000
    assert saved.read_bytes() == b"line\n" * 2_000_000


def test_tail_is_cut_at_a_line_boundary_by_bytes(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    script = "for i in range(3000): print(f'{i:05d}' + 'x' * 95)"  # 3000 lines of 100 chars
    result = asyncio.run(arun(f'{sys.executable} -c "{script}"', ctx))
    text = text_of(result)
    assert len(text.encode("utf-8")) <= MAX_BYTES
    lines = text.split("\n")[1:]
    assert lines[-1] == "02999" + "x" * 95
    assert all(len(line) == 100 for line in lines)  # no line cut in the middle
    first = int(lines[0][:5])
    assert [int(line[:5]) for line in lines] == list(range(first, 3000))
    assert f"showing the last {len(lines)} of 3000 lines" in text
    expected = "".join(f"{i:05d}" + "x" * 95 + "\n" for i in range(3000)).encode()
    assert ctx.artifacts.path(result.details["artifact"]).read_bytes() == expected


def test_line_limit_keeps_the_last_lines(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    result = asyncio.run(arun("seq 1 5000; exit 3", ctx))
    assert result.is_error
    text = text_of(result)
    lines = text.split("\n")
    assert lines[0].startswith(f"[Output truncated: showing the last {MAX_LINES} of 5000 lines")
    assert lines[1 : MAX_LINES + 1] == [str(n) for n in range(3001, 5001)]
    assert text.endswith("5000\n\nExit code: 3")
    saved = ctx.artifacts.path(result.details["artifact"]).read_text()
    assert saved == "".join(f"{n}\n" for n in range(1, 5001))


def test_exactly_at_the_limits_is_not_truncated(tmp_path: Path) -> None:
    result = run(f"seq 1 {MAX_LINES}", tmp_path)
    assert result.details["truncated"] is False
    assert text_of(result).split("\n") == [str(n) for n in range(1, MAX_LINES + 1)]


def test_one_huge_line_keeps_its_end(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    result = asyncio.run(arun("head -c 200000 /dev/zero | tr '\\0' a; echo END", ctx))
    text = text_of(result)
    assert len(text.encode("utf-8")) <= MAX_BYTES
    assert text.startswith("[Output truncated: the last line is too long")
    assert text.endswith("aaaEND")


def test_without_an_artifact_store_the_output_goes_to_a_temp_file(tmp_path: Path) -> None:
    ctx = SimpleNamespace(cwd=str(tmp_path))
    result = asyncio.run(arun("seq 1 3000", ctx))
    path = Path(result.details["artifact"])
    try:
        assert f"Full output: {path}" in text_of(result)
        assert path.read_text() == "".join(f"{n}\n" for n in range(1, 3001))
    finally:
        path.unlink()


# -- the tool contract and the plugin -----------------------------------------------


def test_spec_and_exclusive() -> None:
    tool = BashTool()
    assert tool.exclusive is True
    spec = tool.spec()
    assert spec["name"] == "bash"
    assert spec["parameters"]["required"] == ["command"]
    assert set(spec["parameters"]["properties"]) == {"command", "timeout"}
    assert len(spec["description"]) < 400


def test_plugin_module_is_cheap_to_import() -> None:
    code = (
        "import sys, omp_tool_bash.plugin; "
        "sys.exit(1 if 'pydantic' in sys.modules or 'omp_tool_bash.tool' in sys.modules "
        "else 0)"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    assert subprocess.run([sys.executable, "-c", code], env=env, check=False).returncode == 0


# -- end to end through the kernel --------------------------------------------------


def tool_ends(events: Any) -> list[Any]:
    return [e for e in events.of("tool_execution_end") if e.tool_name == "bash"]


def test_end_to_end_through_the_harness(omp_harness: Any) -> None:
    script = [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi > made.txt; exit 2"}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "cat made.txt; seq 1 3000"}}]},
        {"text": "done"},
    ]
    session = omp_harness.session(script=script, no_session=False)  # artifacts outlive the run
    events = omp_harness.run(session, "go")
    failed, long = tool_ends(events)
    assert failed.is_error
    assert failed.result["content"][0].text == "(no output)\n\nExit code: 2"
    assert (omp_harness.cwd / "made.txt").read_bytes() == b"hi\n"
    assert not long.is_error
    ref = long.result["details"]["artifact"]
    assert ref.startswith("artifact://")
    assert f"Full output: {ref}" in long.result["content"][0].text
    assert session.artifacts.path(ref).read_text().startswith("hi\n1\n2\n")
    assert events.final_text() == "done"


def test_end_to_end_abort_keeps_partial_output_and_kills_the_group(omp_harness: Any) -> None:
    pids_file = omp_harness.cwd / "pids"
    command = f"echo started; sleep 100 & echo $! > {pids_file}; wait"
    session = omp_harness.session(
        script=[{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}]
    )

    async def abort_once_running(session: Any) -> None:
        for _ in range(500):  # the command has started once it wrote the pid
            if pids_file.exists() and pids_file.read_text().strip():
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)
        session.abort()

    started = time.monotonic()
    events = omp_harness.run(session, "go", during=abort_once_running)
    assert time.monotonic() - started < 8
    (end,) = tool_ends(events)
    assert end.is_error
    assert end.result["content"][0].text == "started\n\nCommand was aborted"
    assert end.result["details"]["aborted"] is True
    assert all(is_gone(pid) for pid in read_pids(pids_file, 1))
