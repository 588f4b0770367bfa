"""Session events other than a plain turn, as omp's frames (§2.6): auto compaction and
auto retry (with ``set_auto_retry`` and ``abort_retry`` acting on them)."""

from __future__ import annotations

import json
import time


def test_auto_compaction_frames_carry_omp_fields(fresh_rpc):
    # A 3,000-token threshold: the long reply puts the next request over it.
    settings = {"compaction": {"reserveTokens": 197_000, "keepRecentTokens": 500}}
    client = fresh_rpc(settings=settings)
    client.run("LONG please")
    frames = client.run("hello after the long reply")
    kinds = [f["type"] for f in frames]
    start = frames[kinds.index("auto_compaction_start")]
    assert start == {
        "type": "auto_compaction_start",
        "reason": "threshold",
        "action": "context-full",
    }
    end = frames[kinds.index("auto_compaction_end")]
    assert (end["action"], end["aborted"], end["willRetry"]) == ("context-full", False, False)
    assert {"summary", "firstKeptEntryId", "tokensBefore"} <= set(end["result"])
    assert isinstance(end["result"]["tokensBefore"], int) and end["result"]["summary"]
    assert "errorMessage" not in end
    assert kinds.index("agent_start") < kinds.index("auto_compaction_start")
    assert kinds.index("auto_compaction_end") < len(kinds) - 1 - kinds[::-1].index("message_end")
    assert not [k for k in _keys(end) if "_" in k]  # camelCase all through


def _keys(value):
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item)


SECRET = "sk-test-rpc-0123456789abcdefghijkl"
OVERLOADED = json.dumps({"error": {"message": "overloaded", "type": "server_error"}})


def _sse(text: str) -> str:
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


def _peer_client(fresh_rpc, replay_server):
    peer = {
        "baseUrl": f"{replay_server.url}/v1",
        "api": "openai-completions",
        "apiKey": "PEER_KEY",
        "models": [{"id": "coder"}],
    }
    client = fresh_rpc(
        models={"peer": peer},
        env={"PEER_KEY": SECRET},
        settings={"retry": {"baseDelayMs": 50}},
    )
    client.ok("set_model", provider="peer", modelId="coder")
    return client


def test_auto_retry_frames_carry_omp_fields(fresh_rpc, replay_server):
    client = _peer_client(fresh_rpc, replay_server)
    replay_server.add(OVERLOADED, status=503)
    replay_server.add(_sse("back again"), headers={"content-type": "text/event-stream"})
    frames = client.run("hello")
    [start] = [f for f in frames if f["type"] == "auto_retry_start"]
    assert set(start) == {"type", "attempt", "maxAttempts", "delayMs", "errorMessage"}
    assert (start["attempt"], start["maxAttempts"]) == (1, 10)
    assert isinstance(start["delayMs"], int) and "503" in start["errorMessage"]
    [end] = [f for f in frames if f["type"] == "auto_retry_end"]
    assert end == {"type": "auto_retry_end", "success": True, "attempt": 1}
    assistant = [f["message"] for f in frames if f["type"] == "message_end"][-1]
    assert assistant["content"] == [{"type": "text", "text": "back again"}]
    assert SECRET not in json.dumps(client.frames) and SECRET not in client.stderr()


def test_set_auto_retry_off_makes_a_failure_final(fresh_rpc, replay_server):
    client = _peer_client(fresh_rpc, replay_server)
    client.ok("set_auto_retry", enabled=False)
    replay_server.add(OVERLOADED, status=503)
    frames = client.run("hello")
    assert not [f for f in frames if f["type"].startswith("auto_retry")]
    assistant = [f["message"] for f in frames if f["type"] == "message_end"][-1]
    assert assistant["stopReason"] == "error" and "503" in assistant["errorMessage"]
    assert len(replay_server.requests) == 1


def test_abort_retry_gives_up_a_retry_waiting_out_its_delay(fresh_rpc, replay_server):
    client = _peer_client(fresh_rpc, replay_server)
    replay_server.add(OVERLOADED, status=503, headers={"retry-after": "30"})
    start = client.mark()
    client.request("prompt", message="hello")
    retry = client.wait_for(lambda f: f["type"] == "auto_retry_start", start)
    assert retry["delayMs"] == 30_000
    began = time.monotonic()
    assert client.ok("abort_retry") is None
    end = client.wait_for(lambda f: f["type"] == "agent_end", start, timeout=10)
    assert time.monotonic() - began < 5
    assert end["messages"][-1]["stopReason"] in ("aborted", "error")
    assert len(replay_server.requests) == 1
    assert client.ok("get_state")["isStreaming"] is False
    # as omp: the retry that will not happen is closed, so a "retrying" display clears
    [closed] = [f for f in client.since(start) if f["type"] == "auto_retry_end"]
    assert closed == {
        "type": "auto_retry_end",
        "success": False,
        "attempt": 1,
        "finalError": "Retry cancelled",
    }


def test_set_auto_compaction_off_keeps_the_context_whole(fresh_rpc):
    settings = {"compaction": {"reserveTokens": 197_000, "keepRecentTokens": 500}}
    client = fresh_rpc(settings=settings)
    client.ok("set_auto_compaction", enabled=False)
    client.run("LONG please")
    frames = client.run("hello after the long reply")
    assert not [f for f in frames if f["type"].startswith("auto_compaction")]
    assert client.ok("get_state")["messageCount"] == 4
