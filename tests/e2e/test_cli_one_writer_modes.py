"""One writer per session file in the protocol modes too (issue 24, "also confirm"): while
a print-mode omp holds a session, an RPC client's ``switch_session`` and an editor's ACP
``session/load`` of it are refused and the file stays as it was. (The CLI's own refusals
are in test_cli_session_writers.py.)"""

from __future__ import annotations

import json
import subprocess
import threading

import pytest

MARK_REQUEST = """
import os
from pathlib import Path

import omp


@omp.hookimpl
def omp_message_start(event):
    if event.message.role == "assistant":
        Path(os.environ["OMP_TEST_MARK"]).touch()
"""


@pytest.fixture
def busy(omp_cli):
    """A print-mode omp whose first request is in flight, and its session file."""
    mark = omp_cli.root / "request-sent"
    ext = omp_cli.extension(MARK_REQUEST, "mark_request.py")
    script = omp_cli.script([{"delay": 60, "text": "too late"}])
    proc = omp_cli.popen(
        "-e", ext, "--script", script, "-p", "first", env={"OMP_TEST_MARK": str(mark)}
    )
    omp_cli.wait_for(mark, proc, "the first request was sent")
    (path,) = omp_cli.session_files()
    yield proc, path
    proc.kill()
    proc.communicate(timeout=20)


def _frames(*frames: dict) -> str:
    return "".join(json.dumps(f) + "\n" for f in frames)


def _ask_acp(omp_cli, frames: str, wanted_id: int) -> dict:
    """Run ``omp acp``, send ``frames`` and keep stdin open until the reply to
    ``wanted_id`` arrives (an editor waits for its answers); that reply."""
    proc = omp_cli.popen("acp", stdin=subprocess.PIPE)
    watchdog = threading.Timer(60, proc.kill)  # a server that never answers ends the test
    watchdog.start()
    try:
        proc.stdin.write(frames)
        proc.stdin.flush()
        for line in proc.stdout:
            reply = json.loads(line)
            if reply.get("id") == wanted_id:
                return reply
        raise AssertionError(f"no reply to {wanted_id}: {proc.stderr.read()}")
    finally:
        watchdog.cancel()
        proc.kill()
        proc.communicate(timeout=20)


def test_rpc_switch_session_to_a_busy_session_is_refused(omp_cli, busy):
    first, path = busy
    before = path.read_bytes()
    script = omp_cli.script([{"text": "never"}])
    frame = {"id": "s", "type": "switch_session", "sessionPath": str(path)}

    proc = omp_cli("--mode", "rpc", "--script", script, input=_frames(frame))

    replies = [f for f in omp_cli.json_lines(proc.stdout) if f.get("id") == "s"]
    assert len(replies) == 1, proc.stdout
    assert replies[0]["success"] is False
    assert "is in use by another omp process" in replies[0]["error"]
    assert path.read_bytes() == before
    assert first.poll() is None


def test_acp_session_load_of_a_busy_session_is_refused(omp_cli, busy):
    first, path = busy
    before = path.read_bytes()
    session_id = omp_cli.read_session(path)[0]["id"]
    frames = _frames(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "session/load",
            "params": {"cwd": str(omp_cli.cwd), "sessionId": session_id, "mcpServers": []},
        },
    )

    reply = _ask_acp(omp_cli, frames, wanted_id=2)

    assert "error" in reply, reply
    assert "is in use by another omp process" in json.dumps(reply["error"])
    assert path.read_bytes() == before
    assert first.poll() is None
