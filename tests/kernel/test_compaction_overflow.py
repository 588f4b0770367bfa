"""A context-overflow error in each of the four APIs' recorded formats makes the
session compact and send the failed request once more; the run finishes."""

from __future__ import annotations

import json

import pytest

SECRET = "sk-test-0123456789abcdefghijklmnop"
SSE = {"content-type": "text/event-stream"}


def _sse(events: list[tuple[str | None, dict]]) -> bytes:
    out = ""
    for name, data in events:
        out += (f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n"
    return out.encode()


def anthropic_reply(text: str) -> bytes:
    message = {"id": "m", "type": "message", "role": "assistant", "model": "m", "content": []}
    message |= {"stop_reason": None, "usage": {"input_tokens": 50, "output_tokens": 1}}
    block = {"type": "text", "text": ""}
    delta = {"type": "text_delta", "text": text}
    end = {"stop_reason": "end_turn"}
    events = [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": end, "usage": {"output_tokens": 5}},
        {"type": "message_stop"},
    ]
    return _sse([(e["type"], e) for e in events])


def chat_reply(text: str) -> bytes:
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    return _sse([(None, c) for c in chunks]) + b"data: [DONE]\n\n"


def responses_reply(text: str) -> bytes:
    item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed"}
    item["content"] = [{"type": "output_text", "text": text, "annotations": []}]
    response = {"id": "resp_1", "status": "completed", "output": [item]}
    response["usage"] = {"input_tokens": 50, "output_tokens": 5, "total_tokens": 55}
    opened = {**item, "content": [], "status": "in_progress"}
    delta = {"output_index": 0, "item_id": "msg_1", "content_index": 0, "delta": text}
    events = [
        {"type": "response.output_item.added", "output_index": 0, "item": opened},
        {"type": "response.output_text.delta", **delta},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": response},
    ]
    return _sse([(e["type"], e) for e in events])


def google_reply(text: str) -> bytes:
    chunk = {
        "candidates": [
            {"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP"}
        ],
        "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 5, "totalTokenCount": 55},
    }
    return _sse([(None, chunk)])


# The overflow bodies as each API sends them (the provider tests' recorded formats).
APIS = {
    "anthropic-messages": (
        anthropic_reply,
        {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "prompt is too long: 210000 tokens > 200000 maximum",
            },
        },
    ),
    "openai-completions": (
        chat_reply,
        {
            "error": {
                "message": "This model's maximum context length is 128000 tokens. However, your "
                "messages resulted in 130542 tokens. Please reduce the length of the messages.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
    ),
    "openai-responses": (
        responses_reply,
        {
            "error": {
                "message": "Your input exceeds the context window of this model. Please adjust "
                "your input and try again.",
                "type": "invalid_request_error",
                "param": "input",
                "code": "context_length_exceeded",
            }
        },
    ),
    "google-generative-ai": (
        google_reply,
        {
            "error": {
                "code": 400,
                "message": "The input token count (1200000) exceeds the maximum number of "
                "tokens allowed (1048576).",
                "status": "INVALID_ARGUMENT",
            }
        },
    ),
}


@pytest.mark.parametrize("api", sorted(APIS))
def test_an_overflow_compacts_and_the_request_is_sent_again(
    api, omp_harness, replay_server, monkeypatch, tmp_path
):
    reply, overflow = APIS[api]
    base = replay_server.url + ("/v1" if api.startswith("openai") else "")
    provider = {
        "baseUrl": base,
        "api": api,
        "apiKey": "PROXY_KEY",
        "models": [{"id": "coder", "contextWindow": 200000}],
    }
    (omp_harness.agent_dir / "models.json").write_text(
        json.dumps({"providers": {"proxy": provider}})
    )
    monkeypatch.setenv("PROXY_KEY", SECRET)
    replay_server.add(reply("first answer"), headers=SSE)
    replay_server.add(reply("second answer"), headers=SSE)
    replay_server.add(json.dumps(overflow), status=400)
    replay_server.add(reply("## Goal\nwhat the user said first"), headers=SSE)
    replay_server.add(reply("answered after compaction"), headers=SSE)
    path = tmp_path / "overflow.jsonl"
    session = omp_harness.session(model="proxy/coder", session_path=path)
    log = omp_harness.run(session, "first question", "second question", "third question")

    assert log.final_text() == "answered after compaction"
    assert [e.reason for e in log.of("auto_compaction_start")] == ["overflow"]
    (end,) = log.of("auto_compaction_end")
    assert end.will_retry and not end.aborted and end.error_message is None
    assert len(replay_server.requests) == 5
    summary_request = replay_server.requests[3].body.decode()
    assert "first question" in summary_request and "<conversation>" in summary_request
    retried = replay_server.requests[4].body.decode()
    assert "what the user said first" in retried and "third question" in retried
    assert "first answer" not in retried
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    assert [e["type"] for e in entries].count("compaction") == 1
    assert SECRET not in path.read_text()
