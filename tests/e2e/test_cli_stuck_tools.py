"""A plugin tool whose plain ``def execute`` never returns cannot hold the process
(issue 24, item 2): Ctrl+C, and end of input in RPC mode, end omp promptly, after the
run's own cleanup (the session file keeps its lines), with real processes and signals."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time

import pytest

CALL_STUCK = [{"tool_calls": [{"name": "stuck", "arguments": {}}]}, {"text": "never reached"}]


def _ended(proc: subprocess.Popen, seconds: float = 10) -> float:
    """How long ``proc`` took to end; fails the test (and kills it) if it does not."""
    started = time.monotonic()
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"omp was still running {seconds} s later, held by the stuck tool")
    return time.monotonic() - started


@pytest.mark.parametrize("mode", ["print", "json"])
def test_ctrl_c_ends_a_run_whose_tool_thread_is_stuck(omp_cli, mode):
    marker = omp_cli.root / "stuck"
    ext = omp_cli.stuck_tool(marker)
    session = omp_cli.root / "s.jsonl"
    script = omp_cli.script(CALL_STUCK)
    proc = omp_cli.popen(
        "--mode", mode, "-p", "go", "-e", ext, "--script", script, "--session", session
    )
    omp_cli.wait_for(marker, proc)
    proc.send_signal(signal.SIGINT)
    took = _ended(proc)
    _, err = proc.communicate()
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert "Traceback" not in err
    assert took < 5
    entries = omp_cli.read_session(session)
    messages = omp_cli.messages_of(entries)
    assert [m["role"] for m in messages][:2] == ["user", "assistant"]
    assert messages[1]["content"][-1]["name"] == "stuck"


def test_rpc_mode_exits_on_end_of_input_after_aborting_a_stuck_tool(omp_cli):
    marker = omp_cli.root / "stuck"
    ext = omp_cli.stuck_tool(marker)
    script = omp_cli.script(CALL_STUCK)
    proc = omp_cli.popen("--mode", "rpc", "-e", ext, "--script", script, stdin=subprocess.PIPE)
    frames: list[dict] = []
    ended = threading.Event()

    def read() -> None:
        for line in proc.stdout:
            frames.append(json.loads(line))
            if frames[-1].get("type") == "agent_end":
                ended.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    proc.stdin.write('{"id": "p", "type": "prompt", "message": "go"}\n')
    proc.stdin.flush()
    omp_cli.wait_for(marker, proc)
    proc.stdin.write('{"id": "a", "type": "abort"}\n')
    proc.stdin.flush()
    if not ended.wait(20):
        proc.kill()
        pytest.fail(f"abort did not end the run: {frames[-3:]}")
    proc.stdin.close()
    took = _ended(proc)
    reader.join(5)
    err = proc.stderr.read()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert took < 5
    results = [f for f in frames if f.get("type") == "tool_execution_end"]
    assert [r["toolName"] for r in results] == ["stuck"]
    assert results[0]["isError"] is True
