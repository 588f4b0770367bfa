"""The transport (§2.1, §2.2): the ready frame, only frames on stdout, parse errors,
unknown commands, EOF and SIGTERM, large frames under protocol v1 and v2."""

from __future__ import annotations

import json
import random
import signal
import string
import time
from pathlib import Path


def test_ready_frame_comes_first_with_omp_fields(rpc):
    assert rpc.frames[0] == {
        "type": "ready",
        "protocolVersion": 1,
        "supportedProtocolVersions": [1, 2],
        "maxFrameBytes": 1048576,
        "maxReassembledFrameBytes": 67108864,
    }


def test_a_plugin_printing_to_stdout_reaches_stderr_not_the_protocol(rpc):
    rpc.ok("get_state")
    assert rpc.bad_lines == []
    assert "must not corrupt the protocol" in rpc.stderr()


def test_malformed_line_gets_a_parse_error_and_reading_goes_on(rpc):
    start = rpc.mark()
    rpc.send("{not json")
    error = rpc.wait_for(lambda f: f.get("command") == "parse", start)
    assert error["type"] == "response" and error["success"] is False
    assert error["error"].startswith("Failed to parse command: ")
    assert "id" not in error
    assert rpc.ok("get_state")["sessionId"]


def test_unknown_command_answers_without_the_id(rpc):
    start = rpc.mark()
    rpc.send({"id": "u1", "type": "frobnicate"})
    answer = rpc.wait_for(lambda f: f.get("error", "").startswith("Unknown command"), start)
    assert answer == {
        "type": "response",
        "command": "frobnicate",
        "success": False,
        "error": "Unknown command: frobnicate",
    }


def test_response_echoes_the_id_and_errors_have_omp_shape(rpc):
    answer = rpc.request("set_session_name", name="  ")
    assert answer["id"].startswith("req_")
    assert answer == {
        "id": answer["id"],
        "type": "response",
        "command": "set_session_name",
        "success": False,
        "error": "Session name cannot be empty",
    }


def test_missing_feature_answers_success_false_naming_it(rpc):
    for kind in ("set_host_uri_schemes", "get_subagent_messages", "handoff", "login"):
        answer = rpc.request(kind)
        assert answer["success"] is False, answer
        assert "not supported" in answer["error"], answer
    assert rpc.request("set_fast_mode", enabled=True)["error"] == (
        "Fast mode is unavailable for the current model."
    )
    # turning it off is what omp answers for a model without fast mode: done, off
    assert rpc.ok("set_fast_mode", enabled=False) == {"enabled": False, "active": False}


def test_ten_thousand_malformed_lines_each_answered_memory_flat(fresh_rpc):
    client = fresh_rpc()
    rng = random.Random(15)
    alphabet = string.printable.replace("\n", "").replace("\r", "") + 'é€😀{}[]":,'

    def garbage() -> bytes:
        kind = rng.randrange(4)
        if kind == 0:
            return (
                bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 80))).replace(
                    b"\n", b"x"
                )
                + b"\xff"
            )
        if kind == 1:
            return (
                "{" + "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 200))) + ",{"
            ).encode()  # an object never closed (a random "{}" alone would be valid)
        if kind == 2:
            return json.dumps([rng.random()]).encode()  # JSON, but not an object
        return ("x" + "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 60)))).encode()

    def burst(count: int) -> None:
        start = client.mark()
        data = b"\n".join(garbage() for _ in range(count)) + b"\n"
        assert client.proc.stdin is not None
        client.proc.stdin.write(data)
        client.proc.stdin.flush()
        seen = []

        def last_parse(frame: dict) -> bool:
            seen.extend([1] if frame.get("command") == "parse" else [])
            return len(seen) == count

        client.wait_for(last_parse, start, timeout=60)
        parse = [f for f in client.since(start) if f.get("command") == "parse"]
        assert len(parse) == count

    burst(1000)  # warm up: first-use allocations are not growth
    before = client.rss_kib()
    for _ in range(9):
        burst(1000)
    after = client.rss_kib()
    assert client.ok("get_state")["messageCount"] == 0
    assert after - before < 4096, f"RSS grew from {before} KiB to {after} KiB"


def test_eof_drains_the_running_prompt_and_exits_zero(fresh_rpc):
    client = fresh_rpc()
    start = client.mark()
    assert client.request("prompt", message="DELAY please")["success"] is True
    assert client.close() == 0
    frames = client.since(start)
    end = [f for f in frames if f["type"] == "agent_end"]
    assert end and end[0]["isTerminal"] is True
    texts = [f["message"] for f in frames if f["type"] == "message_end"]
    assert texts[-1]["content"][0]["text"] == "late reply"


def test_sigterm_ends_cleanly_and_keeps_the_session(fresh_rpc):
    client = fresh_rpc()
    client.run("hello there")
    path = client.ok("get_state")["sessionFile"]
    start = client.mark()
    client.request("prompt", message="DELAY then die")
    client.wait_for(lambda f: f["type"] == "agent_start", start)
    client.proc.send_signal(signal.SIGTERM)
    code = client.proc.wait(10)
    assert code in (0, 128 + signal.SIGTERM)
    assert "Traceback" not in client.stderr()
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    entries = [json.loads(line) for line in lines]
    users = [e for e in entries if e.get("type") == "message" and e["message"]["role"] == "user"]
    assert [u["message"]["content"] for u in users][:2] == ["hello there", "DELAY then die"]


def test_large_tool_result_degrades_under_v1_and_is_chunked_under_v2(fresh_rpc):
    # Compaction would move the over-window result to an artifact (and pruning shorten it)
    # in agent_end's messages; here it stays whole.
    client = fresh_rpc(settings={"compaction": {"enabled": False, "pruneToolOutputs": False}})
    frames = client.run("BIG v1")
    end = next(f for f in frames if f["type"] == "tool_execution_end")
    text = json.dumps(end)
    assert len(text.encode()) < 1 << 20
    assert "elided for RPC frame" in text
    agent_end = next(f for f in frames if f["type"] == "agent_end")
    assert agent_end["messages"] == [] and agent_end["messageCount"] == 4
    too_big = client.request("get_messages")
    assert too_big == {
        "id": too_big["id"],
        "type": "response",
        "command": "get_messages",
        "success": False,
        "error": "RPC response exceeded the transport limit",
    }
    assert client.chunked == []

    assert client.ok("negotiate_protocol", protocolVersion=2) == {"protocolVersion": 2}
    frames = client.run("BIG v2")
    end = next(f for f in frames if f["type"] == "tool_execution_end")
    expected = ("abcdé€😀\n" * 250_000)[: 3 * 1024 * 1024 // 2]
    assert end["result"]["content"][0]["text"] == expected
    agent_end = next(f for f in frames if f["type"] == "agent_end")
    assert agent_end["messages"][2]["content"][0]["text"] == expected
    messages = client.ok("get_messages")["messages"]
    assert [m["content"][0]["text"] for m in messages if m["role"] == "toolResult"] == [
        expected,
        expected,
    ]
    # pages hold at most 768 KiB, yet always at least one message
    first = client.ok("get_messages_page", limit=256)
    assert [m["role"] for m in first["messages"]] == ["user", "assistant"]
    second = client.ok("get_messages_page", cursor=first["nextCursor"], limit=256)
    assert [m["role"] for m in second["messages"]] == ["toolResult"]
    assert second["totalMessages"] == len(messages)
    assert client.chunked and min(client.chunked) > 1 << 20


def test_negotiate_protocol_refuses_other_versions(rpc):
    answer = rpc.request("negotiate_protocol", protocolVersion=3)
    assert answer["success"] is False
    assert answer["error"] == "Unsupported RPC protocol version: 3"


PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5E"
    "rkJggg=="
)


def test_bad_fields_are_refused_at_once_with_one_line(rpc):
    cases = [
        ("prompt", {"message": "hi", "images": "a picture"}),
        ("prompt", {"message": "hi", "images": [{"type": "image"}]}),
        ("steer", {"message": "hi", "images": [{"data": 5, "mimeType": "image/png"}]}),
        ("follow_up", {"message": "hi", "images": [None]}),
        ("abort_and_prompt", {"message": "hi", "images": {"data": PIXEL}}),
        ("set_host_tools", {"tools": [{"name": 3}]}),
        ("get_messages_page", {"limit": "ten"}),
        ("switch_session", {"sessionPath": 5}),
        ("set_model", {"provider": ["x"], "modelId": {}}),
    ]
    for kind, fields in cases:
        answer = rpc.request(kind, **fields)
        assert answer["success"] is False, (kind, answer)
        assert answer["command"] == kind
        error = answer["error"]
        assert error and "\n" not in error and "pydantic" not in error, (kind, error)
    assert rpc.ok("get_state")["isStreaming"] is False


def test_prompt_images_reach_the_user_message(rpc):
    image = {"type": "image", "data": PIXEL, "mimeType": "image/png"}
    frames = rpc.run("look at this", images=[image])
    user = next(
        f["message"]
        for f in frames
        if f["type"] == "message_start" and f["message"]["role"] == "user"
    )
    assert user["content"] == [{"type": "text", "text": "look at this"}, image]


def test_dialog_answers_reach_a_command_that_holds_the_queue(fresh_rpc):
    client = fresh_rpc()
    client.run("hello")
    client.run("hello again")
    start = client.mark()
    client.send({"id": "c1", "type": "compact", "customInstructions": "ASK_FIRST"})
    ask = client.wait_for(lambda f: f.get("method") == "confirm", start)
    client.send({"id": "s1", "type": "get_state"})  # ordinary: waits its turn
    client.send({"type": "extension_ui_response", "id": ask["id"], "confirmed": False})
    client.wait_for(lambda f: f.get("id") == "s1", start)
    answers = [f for f in client.since(start) if f["type"] == "response"]
    assert [a["id"] for a in answers] == ["c1", "s1"]
    assert answers[0]["success"] is False and "cancelled" in answers[0]["error"]


def test_eof_rejects_an_open_dialog_and_exits_zero(fresh_rpc):
    client = fresh_rpc()
    start = client.mark()
    client.request("prompt", message="ASK me then leave")
    client.wait_for(lambda f: f.get("method") == "confirm", start)
    began = time.monotonic()
    assert client.close() == 0
    assert time.monotonic() - began < 10  # not the dialog's 30 s timeout
    end = next(f for f in client.since(start) if f["type"] == "tool_execution_end")
    assert end["result"]["content"][0]["text"].startswith("confirmed=False")
    assert "Traceback" not in client.stderr()


def test_ctx_shutdown_from_a_slash_command_ends_the_process(fresh_rpc):
    # stdin stays open: the mode ends because a plugin asked it to, as omp's does
    client = fresh_rpc()
    client.run("hello first")
    start = client.mark()
    client.request("prompt", message="/bye")
    assert client.proc.wait(10) == 0
    result = client.wait_for(lambda f: f["type"] == "prompt_result", start)
    assert result["agentInvoked"] is False
    assert "Traceback" not in client.stderr()
