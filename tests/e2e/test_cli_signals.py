"""No plugin can end or freeze omp, and signals end a run cleanly (issue 8, items 5 and 6),
with real processes and real signals."""

from __future__ import annotations

import json
import signal
import subprocess
import time

import pytest
from process_groups import group_gone

SLEEPY_TURN_START = """
import time
from pathlib import Path
import omp

@omp.hookimpl
def omp_turn_start(event):
    Path({marker!r}).write_text("sleeping")
    time.sleep(300)
"""


def _finish(proc: subprocess.Popen[str], seconds: float = 10) -> tuple[str, str, float]:
    started = time.monotonic()
    try:
        out, err = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"omp did not end within {seconds} s of the signal: {err}")
    return out, err, time.monotonic() - started


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_ends_a_run_blocked_in_a_sync_handler(omp_cli, signum):
    marker = omp_cli.root / "sleeping"
    ext = omp_cli.extension(SLEEPY_TURN_START.format(marker=str(marker)), "sleepy.py")
    proc = omp_cli.popen("-p", "hi", "-e", ext, "--script", omp_cli.script([{"text": "hello"}]))
    omp_cli.wait_for(marker, proc)
    proc.send_signal(signum)
    _, err, took = _finish(proc)
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err
    assert ("interrupted" if signum == signal.SIGINT else "terminated by SIGTERM") in err
    assert took < 5


def test_sys_exit_in_a_tool_call_handler_blocks_the_call_and_the_run_goes_on(omp_cli):
    ext = omp_cli.extension(
        "import sys, omp\n\n@omp.hookimpl\ndef omp_tool_call(event):\n    sys.exit(3)\n",
        "exits.py",
    )
    touched = omp_cli.cwd / "touched"
    script = omp_cli.script(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": f"touch {touched}"}}]},
            {"choose": [{"when": "plugin failed", "text": "it was blocked"}, {"text": "ran"}]},
        ]
    )
    proc = omp_cli("-p", "touch it", "-e", ext, "--script", script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "it was blocked\n"
    assert not touched.exists()
    assert "exits" in proc.stderr and "SystemExit" in proc.stderr


def test_a_handler_that_never_returns_times_out(omp_cli):
    ext = omp_cli.extension(
        "import asyncio, omp\n\n@omp.hookimpl\nasync def omp_tool_call(event):\n"
        "    await asyncio.Event().wait()\n",
        "forever.py",
    )
    script = omp_cli.script(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "echo ran"}}]},
            {"choose": [{"when": "did not finish within", "text": "timed out"}, {"text": "?"}]},
        ]
    )
    started = time.monotonic()
    proc = omp_cli(
        "-p", "go", "-e", ext, "--script", script, env={"OMP_SETTINGS": '{"hookTimeoutMs": 500}'}
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "timed out\n"
    assert time.monotonic() - started < 20


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_kill_the_tool_process_group_and_keep_the_session(omp_cli, signum):
    pidfile = omp_cli.root / "bash.pid"
    command = f"echo $$ > {pidfile}; sleep 300 & sleep 300; wait"
    script = omp_cli.script(
        [{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "x"}]
    )
    session = omp_cli.root / "s.jsonl"
    proc = omp_cli.popen("-p", "run it", "--script", script, "--session", session)
    omp_cli.wait_for(pidfile, proc)
    time.sleep(0.2)
    pid = int(pidfile.read_text().strip() or 0)
    proc.send_signal(signum)
    _, err, took = _finish(proc)
    assert took < 5
    assert proc.returncode == 128 + signum, err
    assert f"terminated by {signal.Signals(signum).name}" in err
    assert "Traceback" not in err
    assert group_gone(pid), "the bash tool's process group is still running"
    entries = [json.loads(line) for line in session.read_text().splitlines()]
    roles = [e["message"]["role"] for e in entries if e.get("type") == "message"]
    assert roles[:2] == ["user", "assistant"]
