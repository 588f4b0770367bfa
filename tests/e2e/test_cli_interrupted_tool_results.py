"""Every tool call gets exactly one tool result, however the run ends (follow-up of
issue 24 item 2): a signal during a tool leaves an aborted result in the session file,
and a session killed before it could write one (SIGKILL) goes on with the call answered,
never sent to a provider without its result. Real processes, signals and HTTP."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
from pathlib import Path

import pytest
from replay import chat_stream

ABORTED = "Tool execution was aborted."


def _finish(proc: subprocess.Popen[str], seconds: float = 15) -> str:
    try:
        _, err = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"omp did not end within {seconds} s: {err}")
    return err


def _start_tool(omp_cli, tool: str, session: Path, *mode: str, stdin=subprocess.DEVNULL):
    """Start omp on a run whose first tool call blocks; (process, tool call id) once the
    tool runs."""
    marker = omp_cli.root / "started"
    args: list = []
    if tool == "bash":
        call = {"name": "bash", "arguments": {"command": f"touch {marker}; sleep 30"}}
    else:
        ext = omp_cli.stuck_tool(marker)
        call = {"name": "stuck", "arguments": {}}
        args = ["-e", ext]
    script = omp_cli.script([{"tool_calls": [call]}, {"text": "never reached"}])
    prompt = [] if mode else ["-p", "go"]
    proc = omp_cli.popen(
        *mode, *prompt, *args, "--script", script, "--session", session, stdin=stdin
    )
    return proc, marker


def _results_of_the_call(omp_cli, session: Path) -> tuple[str, list[dict]]:
    """The id of the session's one tool call, and every tool result written for it."""
    messages = omp_cli.messages_of(omp_cli.read_session(session))
    [call] = [
        block
        for m in messages
        if m["role"] == "assistant"
        for block in m["content"]
        if block["type"] == "toolCall"
    ]
    results = [m for m in messages if m["role"] == "toolResult"]
    assert all(r["toolCallId"] == call["id"] for r in results), results
    return call["id"], results


@pytest.mark.parametrize("tool", ["bash", "stuck"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_a_tool_leaves_one_aborted_result(omp_cli, tool, signum):
    session = omp_cli.root / "s.jsonl"
    proc, marker = _start_tool(omp_cli, tool, session)
    omp_cli.wait_for(marker, proc)
    proc.send_signal(signum)
    err = _finish(proc)
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err
    _, results = _results_of_the_call(omp_cli, session)
    assert len(results) == 1, results
    assert results[0]["isError"] is True
    assert omp_cli.text_of(results[0]) == ABORTED


def test_rpc_abort_then_end_of_input_leaves_one_aborted_result(omp_cli):
    session = omp_cli.root / "s.jsonl"
    proc, marker = _start_tool(omp_cli, "stuck", session, "--mode", "rpc", stdin=subprocess.PIPE)
    ended = threading.Event()

    def read() -> None:
        for line in proc.stdout:
            if json.loads(line).get("type") == "agent_end":
                ended.set()

    threading.Thread(target=read, daemon=True).start()
    proc.stdin.write('{"id": "p", "type": "prompt", "message": "go"}\n')
    proc.stdin.flush()
    omp_cli.wait_for(marker, proc)
    proc.stdin.write('{"id": "a", "type": "abort"}\n')
    proc.stdin.flush()
    assert ended.wait(20), "abort did not end the run"
    proc.stdin.close()
    proc.wait(15)
    assert proc.returncode == 0, proc.stderr.read()
    _, results = _results_of_the_call(omp_cli, session)
    assert [(r["isError"], omp_cli.text_of(r)) for r in results] == [(True, ABORTED)]


def _use_replay_provider(omp_cli, replay_server) -> None:
    omp_cli.use_provider("proxy", f"{replay_server.url}/v1", api_key="REPLAY_KEY")
    omp_cli.env["REPLAY_KEY"] = "sk-replay-0123456789abcdef"


def test_a_session_killed_during_a_tool_goes_on_with_the_call_answered(omp_cli, replay_server):
    session = omp_cli.sessions_dir() / "killed.jsonl"
    session.parent.mkdir(parents=True)
    proc, marker = _start_tool(omp_cli, "bash", session)
    omp_cli.wait_for(marker, proc)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=15)
    call_id, results = _results_of_the_call(omp_cli, session)
    assert results == []  # what SIGKILL leaves: a call without its result

    _use_replay_provider(omp_cli, replay_server)
    replay_server.add(chat_stream("carrying on"), headers={"content-type": "text/event-stream"})
    done = omp_cli("-c", "-p", "go on", "--model", "proxy/coder", timeout=30)

    assert (done.returncode, done.stdout) == (0, "carrying on\n"), done.stderr
    [request] = replay_server.requests
    sent = request.json["messages"]
    calls = [c["id"] for m in sent if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    answers = [m for m in sent if m["role"] == "tool"]
    assert calls == [call_id]  # the model is told what it called, not left to guess
    assert [a["tool_call_id"] for a in answers] == calls
    position = sent.index(answers[0])
    assert sent[position - 1]["role"] == "assistant"
    assert "interrupted" in json.dumps(answers[0]["content"])
    assert [m["role"] for m in sent[position + 1 :]] == ["user"]
