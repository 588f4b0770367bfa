"""The openai-responses provider plugin, end to end against a loopback replay server.

Recorded streams come from tests/fixtures byte for byte; the other streams are built
here from the event shapes of those recordings (noted where they are).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from omp import (
    AssistantMessage,
    DeveloperMessage,
    ImageContent,
    LlmContext,
    Model,
    ServerToolContent,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from omp.testing import EXTRA_CLOSERS
from omp_llm.config import ProviderConfig
from omp_llm.provider import HttpProvider, Request
from omp_provider_openai_responses.convert import build_request, call_id
from omp_provider_openai_responses.wire import WIRE, parse_recorded
from replay import fixture_bytes, split_events

USAGE_FIXTURE = (
    "extracted/openai-responses__pydantic-ai__test_openai_responses_streaming_usage.0.sse"
)
ERROR_FIXTURE = "openai-responses/vercel-ai__openai-error.1.chunks.txt"
KEY = "test-key"
FAST = {"retry": {"baseDelayMs": 1}}
FINAL_RESULT = {
    "name": "final_result",
    "description": "The final response which ends this conversation",
    "parameters": {
        "additionalProperties": False,
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
        "type": "object",
    },
}
# parsed_body of the cassette openai-responses/pydantic-ai__test_openai_responses_streaming_usage
# .yaml, copied as written (PyYAML is not a test dependency).
CASSETTE_BODY = {
    "include": ["reasoning.encrypted_content"],
    "input": [{"content": "Calculate 100 * 200 / 3", "role": "user"}],
    "model": "gpt-5",
    "previous_response_id": None,
    "reasoning": {"effort": "low", "summary": None},
    "service_tier": "flex",
    "stream": True,
    "tool_choice": "required",
    "tools": [{**FINAL_RESULT, "strict": True, "type": "function"}],
}


@pytest.fixture(autouse=True)
def _no_real_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def gpt(model_id="gpt-5", **fields) -> Model:
    fields.setdefault("reasoning", True)
    return Model(provider="openai", id=model_id, api="openai-responses", **fields)


def make_provider(server, tmp_path, models=None, **config) -> HttpProvider:
    cfg = ProviderConfig(
        name="openai",
        api="openai-responses",
        base_url=server.url + "/v1",
        models=models or [gpt()],
        key_env=["OPENAI_API_KEY"],
        **config,
    )
    provider = HttpProvider(cfg, WIRE, tmp_path / "agent")
    provider.cli_api_key = KEY
    return provider


def run(provider, model, context, **options) -> list[dict]:
    async def collect():
        return [ev async for ev in provider.stream(model, context, StreamOptions(**options))]

    return asyncio.run(collect())


def types(events) -> list[str]:
    return [ev["type"] for ev in events]


def sse(*events: dict) -> bytes:
    """SSE as the Responses API frames it: ``event: <type>`` then the JSON data."""
    out = b""
    for number, event in enumerate(events):
        data = {"type": event["type"], "sequence_number": number, **event}
        out += f"event: {event['type']}\ndata: {json.dumps(data)}\n\n".encode()
    return out


def completed(usage=None, status="completed", reason=None) -> dict:
    response = {"id": "resp_1", "status": status, "usage": usage}
    if reason:
        response["incomplete_details"] = {"reason": reason}
    kind = "response.completed" if status == "completed" else "response.incomplete"
    return {"type": kind, "response": response}


def text_events(*deltas: str, usage=None) -> list[dict]:
    """A message item streamed as output_text deltas (shapes of the recorded stream)."""
    text = "".join(deltas)
    return [
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"id": "msg_1", "type": "message", "role": "assistant", "content": []},
        },
        *({"type": "response.output_text.delta", "item_id": "msg_1", "delta": d} for d in deltas),
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            },
        },
        completed(usage or {"input_tokens": 10, "output_tokens": 3, "total_tokens": 13}),
    ]


def hello_context() -> LlmContext:
    return LlmContext(system_prompt="", messages=[UserMessage(content="hi")])


# -- the recorded stream -----------------------------------------------------------------


def test_recorded_reasoning_and_tool_call_stream_and_the_request_sent(replay_server, tmp_path):
    replay_server.add(
        split_events(fixture_bytes(USAGE_FIXTURE)), headers={"content-type": "text/event-stream"}
    )
    provider = make_provider(replay_server, tmp_path)
    context = LlmContext(
        system_prompt="",
        messages=[UserMessage(content="Calculate 100 * 200 / 3")],
        tools=[FINAL_RESULT],
    )
    events = run(provider, gpt(), context, thinking_level="low", settings=FAST)

    assert types(events) == [
        "start",
        "thinking_start",
        "thinking_end",
        "toolcall_start",
        *["toolcall_delta"] * 6,
        "toolcall_end",
        "done",
    ]
    deltas = [ev["delta"] for ev in events if ev["type"] == "toolcall_delta"]
    assert deltas == ['{"', "result", '":', "666", "6", "}"]
    message = events[-1]["message"]
    assert events[-1]["reason"] == "toolUse" and message.stop_reason == "toolUse"
    thinking, call = message.content
    assert thinking.thinking == ""
    signature = json.loads(thinking.thinking_signature)
    assert signature["id"] == "rs_0050471a34b36ae60068c97bac4dcc819595fd0f80d6b3c405"
    assert signature["encrypted_content"].startswith("gAAAAABoyXvxI6jwG5j6")  # the item.done one
    assert call.id == (
        "call_CWXgs68YprAjp6t0371hiPOI|fc_0050471a34b36ae60068c97bf19d9c819590eaf42c0edc1042"
    )
    assert call.name == "final_result" and call.arguments == {"result": 6666}
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (53, 469, 0, 0)
    assert usage.total_tokens == 522

    [request] = replay_server.requests
    assert request.path == "/v1/responses"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    body = request.json
    assert KEY not in request.body.decode()
    # Compared with the recorded request where the two agree by design.
    for field in ("model", "include", "stream"):
        assert body[field] == CASSETTE_BODY[field]
    assert body["reasoning"]["effort"] == CASSETTE_BODY["reasoning"]["effort"]
    [recorded_user] = CASSETTE_BODY["input"]
    assert body["input"] == [
        {
            "role": recorded_user["role"],
            "content": [{"type": "input_text", "text": recorded_user["content"]}],
        }
    ]
    [recorded_tool] = CASSETTE_BODY["tools"]
    assert body["tools"] == [{**recorded_tool, "strict": False}]
    assert body == {
        "model": "gpt-5",
        "input": body["input"],
        "stream": True,
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "reasoning": {"effort": "low", "summary": "auto"},
        "max_output_tokens": 16_384,
        "tools": body["tools"],
        "tool_choice": "auto",
    }


def test_parse_recorded_replays_a_body_from_memory():
    events = parse_recorded(fixture_bytes(USAGE_FIXTURE), gpt())
    assert types(events)[0] == "start" and types(events)[-1] == "done"
    assert events[-1]["message"].tool_calls[0].arguments == {"result": 6666}


def test_text_summary_parts_cached_tokens_and_message_ids(replay_server, tmp_path):
    reasoning = {"id": "rs_1", "type": "reasoning", "summary": []}
    done_reasoning = {
        **reasoning,
        "encrypted_content": "ENC",
        "summary": [
            {"type": "summary_text", "text": "Plan."},
            {"type": "summary_text", "text": "Check."},
        ],
    }
    usage = {
        "input_tokens": 100,
        "input_tokens_details": {"cached_tokens": 60},
        "output_tokens": 20,
        "output_tokens_details": {"reasoning_tokens": 12},
        "total_tokens": 120,
    }
    body = sse(
        {"type": "response.output_item.added", "output_index": 0, "item": reasoning},
        {"type": "response.reasoning_summary_part.added", "summary_index": 0},
        {"type": "response.reasoning_summary_text.delta", "delta": "Plan."},
        {"type": "response.reasoning_summary_part.added", "summary_index": 1},
        {"type": "response.reasoning_summary_text.delta", "delta": "Check."},
        {"type": "response.output_item.done", "output_index": 0, "item": done_reasoning},
        *text_events("Hel", "lo", usage=usage)[1:],
    )
    replay_server.add(split_events(body))
    events = run(
        make_provider(replay_server, tmp_path),
        gpt(),
        hello_context(),
        thinking_level="medium",
        settings=FAST,
    )
    assert types(events) == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    message = events[-1]["message"]
    assert message.stop_reason == "stop"
    assert message.content[0].thinking == "Plan.\n\nCheck."
    assert json.loads(message.content[0].thinking_signature) == {
        "id": "rs_1",
        "encrypted_content": "ENC",
    }
    assert message.content[1].text == "Hello" and message.content[1].text_signature == "msg_1"
    u = message.usage
    assert (u.input, u.cache_read, u.output, u.total_tokens) == (40, 60, 20, 120)
    assert replay_server.requests[0].json["reasoning"] == {"effort": "medium", "summary": "auto"}


def test_arguments_from_the_done_events_when_no_fragments_arrive(replay_server, tmp_path):
    item = {
        "id": "fc_1",
        "type": "function_call",
        "call_id": "call_1",
        "name": "read",
        "arguments": "",
    }
    body = sse(
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {
            "type": "response.function_call_arguments.done",
            "item_id": "fc_1",
            "arguments": '{"path": "a.py"}',
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {**item, "arguments": '{"path": "a.py"}'},
        },
        completed({"input_tokens": 5, "output_tokens": 5, "total_tokens": 10}),
    )
    replay_server.add(body)
    events = run(make_provider(replay_server, tmp_path), gpt(), hello_context(), settings=FAST)
    assert types(events) == ["start", "toolcall_start", "toolcall_delta", "toolcall_end", "done"]
    assert events[-1]["message"].tool_calls[0].arguments == {"path": "a.py"}
    assert events[-1]["reason"] == "toolUse"


def web_search_events() -> list[dict]:
    """A hosted web search then a cited answer, constructed by hand from OpenAI's
    documented Responses streaming shapes (tests/fixtures has no recorded one)."""
    search = {"id": "ws_1", "type": "web_search_call", "status": "in_progress"}
    action = {
        "type": "search",
        "query": "pineapple",
        "sources": [{"type": "url", "url": "https://en.wikipedia.org/wiki/Pineapple"}],
    }
    text = "The pineapple is a tropical plant."
    note = {
        "type": "url_citation",
        "start_index": 4,
        "end_index": 33,
        "url": "https://en.wikipedia.org/wiki/Pineapple",
        "title": "Pineapple - Wikipedia",
    }
    message = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
    part = {"type": "output_text", "text": text, "annotations": [note]}
    return [
        {"type": "response.output_item.added", "output_index": 0, "item": search},
        {"type": "response.web_search_call.searching", "output_index": 0, "item_id": "ws_1"},
        {"type": "response.web_search_call.completed", "output_index": 0, "item_id": "ws_1"},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {**search, "status": "completed", "action": action},
        },
        {"type": "response.output_item.added", "output_index": 1, "item": message},
        {"type": "response.output_text.delta", "item_id": "msg_1", "delta": text},
        {
            "type": "response.output_text.annotation.added",
            "item_id": "msg_1",
            "annotation_index": 0,
            "annotation": note,
        },
        {
            "type": "response.output_item.done",
            "output_index": 1,
            "item": {**message, "content": [part]},
        },
        completed({"input_tokens": 5, "output_tokens": 9, "total_tokens": 14}),
    ]


def test_hosted_web_search_and_url_citations(replay_server, tmp_path):
    replay_server.add(sse(*web_search_events()))
    events = run(make_provider(replay_server, tmp_path), gpt(), hello_context(), settings=FAST)
    assert types(events) == ["start", "text_start", "text_delta", "text_end", "done"]
    message = events[-1]["message"]
    search, answer = message.content
    assert isinstance(search, ServerToolContent)
    assert (search.id, search.name, search.input["query"]) == ("ws_1", "web_search", "pineapple")
    assert search.result == [{"type": "url", "url": "https://en.wikipedia.org/wiki/Pineapple"}]
    assert isinstance(answer, TextContent)
    [source] = answer.citations or []
    assert (source.type, source.url, source.title, source.cited_text) == (
        "url_citation",
        "https://en.wikipedia.org/wiki/Pineapple",
        "Pineapple - Wikipedia",
        "pineapple is a tropical plant",
    )
    # sent back, only the text goes
    later = LlmContext(system_prompt="", messages=[UserMessage(content="hi"), message])
    sent = build_request(request_for(gpt(), later))
    assert [item.get("role") for item in sent["input"]] == ["user", "assistant"]
    assert "wikipedia" not in json.dumps(sent) and "ws_1" not in json.dumps(sent)


def test_max_output_tokens_ends_with_length(replay_server, tmp_path):
    events = text_events("partial")
    events[-1] = completed(
        {"input_tokens": 5, "output_tokens": 7}, "incomplete", "max_output_tokens"
    )
    replay_server.add(sse(*events))
    result = run(
        make_provider(replay_server, tmp_path),
        gpt(reasoning=False),
        hello_context(),
        max_tokens=7,
        settings=FAST,
    )
    assert result[-1]["type"] == "done" and result[-1]["reason"] == "length"
    assert result[-1]["message"].usage.total_tokens == 12
    body = replay_server.requests[0].json
    assert body["max_output_tokens"] == 7
    assert "reasoning" not in body and "include" not in body


# -- the history sent ----------------------------------------------------------------------


def test_history_conversion_is_the_exact_body_sent(replay_server, tmp_path):
    replay_server.add(sse(*text_events("ok")))
    model = gpt(input=("text", "image"))
    png = ImageContent(data="iVBORw0=", mime_type="image/png")
    own = AssistantMessage(
        api="openai-responses",
        provider="openai",
        model="gpt-5",
        stop_reason="toolUse",
        content=[
            ThinkingContent(
                thinking="Look first.",
                thinking_signature='{"id": "rs_9", "encrypted_content": "E9"}',
            ),
            TextContent(text="Reading.", text_signature="msg_9"),
            ToolCall(id="call_9|fc_9", name="read", arguments={"path": "a.png"}),
        ],
    )
    foreign = AssistantMessage(
        api="anthropic-messages",
        provider="anthropic",
        model="claude",
        stop_reason="toolUse",
        content=[
            ThinkingContent(thinking="Claude thought.", thinking_signature="sig-anthropic"),
            ToolCall(id="toolu_01:bad.id", name="ls", arguments={}),
        ],
    )
    failed = AssistantMessage(
        api="openai-responses",
        provider="openai",
        model="gpt-5",
        stop_reason="aborted",
        content=[
            ThinkingContent(
                thinking="half", thinking_signature='{"id": "rs_x", "encrypted_content": "EX"}'
            ),
            TextContent(text="I will", text_signature="msg_x"),
            ToolCall(id="call_x|fc_x", name="ls", arguments={}),
        ],
    )
    unanswered = AssistantMessage(
        api="openai-responses",
        provider="openai",
        model="gpt-5",
        stop_reason="toolUse",
        content=[ToolCall(id="call_u|fc_u", name="ls", arguments={"d": "."})],
    )
    messages = [
        UserMessage(content=[TextContent(text="What is in a.png?"), png]),
        DeveloperMessage(content="Be brief."),
        own,
        ToolResultMessage(
            tool_call_id="call_9|fc_9",
            tool_name="read",
            content=[TextContent(text="an image:"), png],
        ),
        foreign,
        ToolResultMessage(
            tool_call_id="toolu_01:bad.id",
            tool_name="ls",
            is_error=True,
            content=[TextContent(text="no such dir")],
        ),
        failed,
        ToolResultMessage(
            tool_call_id="call_x|fc_x", tool_name="ls", content=[TextContent(text="orphan")]
        ),
        unanswered,
        UserMessage(content="go on"),
    ]
    context = LlmContext(system_prompt="You are omp.", messages=messages, tools=[FINAL_RESULT])
    events = run(
        make_provider(replay_server, tmp_path), model, context, thinking_level="high", settings=FAST
    )
    assert events[-1]["type"] == "done"
    foreign_id = call_id("toolu_01:bad.id")
    assert foreign_id.startswith("toolu_01_bad_id_") and len(foreign_id) <= 64
    image = {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0="}
    assert replay_server.requests[0].json["input"] == [
        {"role": "developer", "content": "You are omp."},
        {"role": "user", "content": [{"type": "input_text", "text": "What is in a.png?"}, image]},
        {"role": "developer", "content": [{"type": "input_text", "text": "Be brief."}]},
        {
            "type": "reasoning",
            "id": "rs_9",
            "encrypted_content": "E9",
            "summary": [{"type": "summary_text", "text": "Look first."}],
        },
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_9",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Reading.", "annotations": []}],
        },
        {
            "type": "function_call",
            "id": "fc_9",
            "call_id": "call_9",
            "name": "read",
            "arguments": '{"path": "a.png"}',
        },
        {"type": "function_call_output", "call_id": "call_9", "output": "an image:"},
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Attached image(s) from the tool result:"},
                image,
            ],
        },
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Claude thought."}],
        },
        {"type": "function_call", "call_id": foreign_id, "name": "ls", "arguments": "{}"},
        {"type": "function_call_output", "call_id": foreign_id, "output": "Error: no such dir"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "I will"}],
        },
        {
            "type": "function_call",
            "id": "fc_u",
            "call_id": "call_u",
            "name": "ls",
            "arguments": '{"d": "."}',
        },
        {
            "type": "function_call_output",
            "call_id": "call_u",
            "output": "No result provided (the tool call did not complete).",
        },
        {"role": "user", "content": [{"type": "input_text", "text": "go on"}]},
    ]


def test_without_images_or_signatures_nothing_unsendable_goes_out(tmp_path):
    model = gpt(reasoning=False)
    unsigned = AssistantMessage(
        api="openai-responses",
        provider="openai",
        model="gpt-5",
        stop_reason="toolUse",
        content=[
            ThinkingContent(thinking="no payload"),
            TextContent(text="Done.", text_signature="msg_2"),
            ToolCall(id="call_2|fc_2", name="ls", arguments={}),
        ],
    )
    context = LlmContext(
        system_prompt="sys",
        messages=[
            UserMessage(content=[ImageContent(data="AA==", mime_type="image/png")]),
            unsigned,
        ],
    )
    body = build_request(request_for(model, context, compat={"supportsDeveloperRole": False}))
    assert body["input"] == [
        {"role": "system", "content": "sys"},
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "(image omitted: this model does not accept images)"}
            ],
        },
        # No reasoning item can be sent (no payload; and not to a model without reasoning),
        # so no item keeps an id that would pair with it.
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Done."}],
        },
        {"type": "function_call", "call_id": "call_2", "name": "ls", "arguments": "{}"},
        {
            "type": "function_call_output",
            "call_id": "call_2",
            "output": "No result provided (the tool call did not complete).",
        },
    ]
    assert "tools" not in body and "tool_choice" not in body


def test_reasoning_is_not_replayed_to_a_model_without_reasoning():
    signed = AssistantMessage(
        api="openai-responses",
        provider="openai",
        model="gpt-5",
        content=[
            ThinkingContent(
                thinking="t", thinking_signature='{"id": "rs_1", "encrypted_content": "E"}'
            ),
            TextContent(text="Hi.", text_signature="msg_1"),
        ],
    )
    context = LlmContext(system_prompt="", messages=[UserMessage(content="a"), signed])
    plain = build_request(request_for(gpt("gpt-4.1", reasoning=False), context))
    assert plain["input"][1:] == [
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Hi."}],
        }
    ]
    reasoning = build_request(request_for(gpt(), context))
    assert [item.get("id") for item in reasoning["input"][1:]] == ["rs_1", "msg_1"]


def test_a_result_for_a_call_already_settled_is_not_sent_twice():
    call = AssistantMessage(
        api="openai-responses",
        provider="openai",
        model="gpt-5",
        stop_reason="toolUse",
        content=[ToolCall(id="call_1|fc_1", name="ls", arguments={})],
    )
    late = ToolResultMessage(
        tool_call_id="call_1|fc_1", tool_name="ls", content=[TextContent(text="late")]
    )
    context = LlmContext(system_prompt="", messages=[call, UserMessage(content="?"), late, late])
    body = build_request(request_for(gpt(reasoning=False), context))
    outputs = [i for i in body["input"] if i.get("type") == "function_call_output"]
    assert outputs == [
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": "No result provided (the tool call did not complete).",
        }
    ]


def request_for(model, context, level="off", compat=None, max_tokens=None):
    config = ProviderConfig(
        name="openai",
        api="openai-responses",
        base_url="http://x/v1",
        models=[model],
        compat=compat or {},
    )
    provider = HttpProvider(config, WIRE, Path("/nonexistent"))
    options = StreamOptions(thinking_level=level, max_tokens=max_tokens)
    return Request(provider, model, context, options, KEY, {})


@pytest.mark.parametrize(
    ("fields", "level", "compat", "expected"),
    [
        ({}, "off", {}, None),
        ({}, "minimal", {}, {"effort": "minimal", "summary": "auto"}),
        ({}, "xhigh", {}, {"effort": "high", "summary": "auto"}),
        (
            {"thinking_level_map": {"xhigh": "xhigh"}},
            "xhigh",
            {},
            {"effort": "xhigh", "summary": "auto"},
        ),
        ({"thinking_level_map": {"high": None}}, "high", {}, None),
        ({"thinking_level_map": {"off": "none"}}, "off", {}, {"effort": "none"}),
        ({}, "low", {"reasoningSummary": None}, {"effort": "low"}),
        ({"reasoning": False}, "high", {}, None),
    ],
)
def test_thinking_levels_map_to_reasoning_effort(fields, level, compat, expected):
    body = build_request(request_for(gpt(**fields), hello_context(), level, compat))
    assert body.get("reasoning") == expected
    reasoning_model = fields.get("reasoning", True)
    assert ("include" in body) == reasoning_model


def test_compat_switches_store_service_tier_and_max_tokens():
    compat = {"store": True, "serviceTier": "flex", "omitMaxOutputTokens": True}
    stored = AssistantMessage(
        api="openai-responses",
        provider="openai",
        model="gpt-5",
        content=[
            ThinkingContent(thinking="", thinking_signature='{"id": "rs_s"}'),
            TextContent(text="Hi.", text_signature="msg_s"),
        ],
    )
    context = LlmContext(system_prompt="", messages=[UserMessage(content="a"), stored])
    body = build_request(request_for(gpt(), context, compat=compat))
    assert body["store"] is True and body["service_tier"] == "flex"
    assert "max_output_tokens" not in body
    # With the store on, a reasoning item is referenced by id alone.
    assert body["input"][1] == {"type": "reasoning", "id": "rs_s", "summary": []}
    assert body["input"][2]["id"] == "msg_s"


# -- faults --------------------------------------------------------------------------------


def test_a_stream_cut_mid_event_after_content_is_an_error_without_retry(replay_server, tmp_path):
    chunks = split_events(sse(*text_events("Hel", "lo", " there")))
    # events: created, added, 3 deltas, ...: send created..first delta, then half an event.
    half = chunks[3][: len(chunks[3]) // 2]
    replay_server.add([*chunks[:3], half, chunks[3][len(half) :], *chunks[4:]], cut_after=4)
    events = run(make_provider(replay_server, tmp_path), gpt(), hello_context(), settings=FAST)
    assert types(events) == ["start", "text_start", "text_delta", "error"]
    error = events[-1]["error"]
    assert "ended early" in error.error_message and error.stop_reason == "error"
    assert error.content[0].text == "Hel"
    assert len(replay_server.requests) == 1


def test_a_stream_that_ends_without_completion_says_so(replay_server, tmp_path):
    replay_server.add(sse(*text_events("Hel", "lo")[:-1]))  # no response.completed
    events = run(make_provider(replay_server, tmp_path), gpt(), hello_context(), settings=FAST)
    assert events[-1]["type"] == "error"
    assert "ended early" in events[-1]["error"].error_message
    assert len(replay_server.requests) == 1


def test_429_with_retry_after_then_success(replay_server, tmp_path):
    replay_server.add(
        json.dumps(
            {
                "error": {
                    "message": "Rate limit reached",
                    "type": "requests",
                    "code": "rate_limit_exceeded",
                }
            }
        ),
        status=429,
        headers={"retry-after": "0", "content-type": "application/json"},
    )
    replay_server.add(split_events(sse(*text_events("fine"))))
    events = run(make_provider(replay_server, tmp_path), gpt(), hello_context(), settings=FAST)
    assert types(events) == [
        "start",
        "auto_retry_start",
        "text_start",
        "text_delta",
        "text_end",
        "auto_retry_end",
        "done",
    ]
    assert events[1]["delayMs"] == 0 and "Rate limit reached" in events[1]["errorMessage"]
    assert events[-1]["message"].text == "fine"
    assert len(replay_server.requests) == 2


def test_a_stalled_stream_hits_the_idle_timeout(replay_server, tmp_path):
    chunks = split_events(sse(*text_events("Hel", "lo")))
    first = b"".join(chunks[:3])  # created, item added, first delta: content was streamed
    replay_server.add([first, *chunks[3:]], stall_after=1)
    settings = {"stream": {"idleTimeoutMs": 300}, **FAST}
    events = run(make_provider(replay_server, tmp_path), gpt(), hello_context(), settings=settings)
    assert types(events) == ["start", "text_start", "text_delta", "error"]
    assert "idle timeout" in events[-1]["error"].error_message
    assert len(replay_server.requests) == 1


def test_extra_closing_braces_in_tool_call_fragments_are_repaired(replay_server, tmp_path):
    item = {
        "id": "fc_7",
        "type": "function_call",
        "call_id": "call_7",
        "name": "edit",
        "arguments": "",
    }
    fragments = ['{"path": "a.py", ', '"line": tru', "e}}}"]
    body = sse(
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        *(
            {"type": "response.function_call_arguments.delta", "item_id": "fc_7", "delta": f}
            for f in fragments
        ),
        {
            "type": "response.function_call_arguments.done",
            "item_id": "fc_7",
            "arguments": "".join(fragments),
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {**item, "arguments": "".join(fragments)},
        },
        completed({"input_tokens": 1, "output_tokens": 1}),
    )
    replay_server.add(split_events(body))
    events = run(make_provider(replay_server, tmp_path), gpt(), hello_context(), settings=FAST)
    assert types(events) == [
        "start",
        "toolcall_start",
        *["toolcall_delta"] * 3,
        "toolcall_end",
        "done",
    ]
    call = events[-1]["message"].tool_calls[0]
    assert call.id == "call_7|fc_7"
    assert call.arguments == {"path": "a.py", "line": True}
    assert call.arguments_error is None and call.arguments_repair == EXTRA_CLOSERS


def test_http_400_explanation_reaches_the_error_without_the_key(replay_server, tmp_path):
    explanation = f"Invalid 'input[0].content': bad part (request key {KEY})."
    replay_server.add(
        json.dumps(
            {
                "error": {
                    "message": explanation,
                    "type": "invalid_request_error",
                    "param": "input[0].content",
                    "code": None,
                }
            }
        ),
        status=400,
        headers={"content-type": "application/json"},
    )
    events = run(make_provider(replay_server, tmp_path), gpt(), hello_context(), settings=FAST)
    assert types(events) == ["start", "error"]
    message = events[-1]["error"].error_message
    assert "HTTP 400" in message and "Invalid 'input[0].content': bad part" in message
    assert KEY not in message and KEY not in json.dumps(events[-1]["error"].model_dump())
    assert len(replay_server.requests) == 1


def test_context_overflow_400(replay_server, tmp_path):
    replay_server.add(
        json.dumps(
            {
                "error": {
                    "message": "Your input exceeds the context window of this model. Please adjust "
                    "your input and try again.",
                    "type": "invalid_request_error",
                    "param": "input",
                    "code": "context_length_exceeded",
                }
            }
        ),
        status=400,
        headers={"content-type": "application/json"},
    )
    events = run(make_provider(replay_server, tmp_path), gpt(), hello_context(), settings=FAST)
    error = events[-1]["error"]
    assert error.error_message.startswith("context overflow")
    assert error.error_kind == "context_overflow" and error.error_status == 400


def test_recorded_insufficient_quota_error_event_is_not_retried(replay_server, tmp_path):
    # The fixture is JSON lines; the SSE framing (event: <type>) is built here.
    body = b""
    for line in fixture_bytes(ERROR_FIXTURE).splitlines():
        if line.strip():
            kind = json.loads(line)["type"]
            body += b"event: " + kind.encode() + b"\ndata: " + line + b"\n\n"
    replay_server.add(split_events(body))
    events = run(make_provider(replay_server, tmp_path), gpt(), hello_context(), settings=FAST)
    assert types(events) == ["start", "error"]
    message = events[-1]["error"].error_message
    assert "insufficient_quota" in message and "exceeded your current quota" in message
    assert len(replay_server.requests) == 1


def test_http_429_insufficient_quota_is_not_retried(replay_server, tmp_path):
    replay_server.add(
        json.dumps(
            {
                "error": {
                    "message": "You exceeded your current quota.",
                    "type": "insufficient_quota",
                    "code": "insufficient_quota",
                }
            }
        ),
        status=429,
        headers={"content-type": "application/json"},
    )
    events = run(make_provider(replay_server, tmp_path), gpt(), hello_context(), settings=FAST)
    assert types(events) == ["start", "error"]
    assert "insufficient_quota" in events[-1]["error"].error_message
    assert len(replay_server.requests) == 1


def test_in_band_failures_before_content_are_retried(replay_server, tmp_path):
    failed = {
        "type": "response.failed",
        "response": {
            "id": "resp_f",
            "status": "failed",
            "error": {"code": "server_error", "message": "The server had an error."},
        },
    }
    replay_server.add(sse({"type": "response.created", "response": {"id": "resp_f"}}, failed))
    replay_server.add(
        sse(
            {"type": "error", "code": "rate_limit_exceeded", "message": "Slow down.", "param": None}
        )
    )
    replay_server.add(sse(*text_events("ok")))
    events = run(make_provider(replay_server, tmp_path), gpt(), hello_context(), settings=FAST)
    retries = [ev for ev in events if ev["type"] == "auto_retry_start"]
    assert [r["errorMessage"] for r in retries] == [
        "server_error: The server had an error.",
        "rate_limit_exceeded: Slow down.",
    ]
    assert events[-1]["type"] == "done" and events[-1]["message"].text == "ok"


def test_a_content_filter_stop_is_an_error(replay_server, tmp_path):
    events = text_events("no")
    events[-1] = completed({"input_tokens": 1, "output_tokens": 1}, "incomplete", "content_filter")
    replay_server.add(sse(*events))
    result = run(make_provider(replay_server, tmp_path), gpt(), hello_context(), settings=FAST)
    assert result[-1]["type"] == "error"
    assert "content_filter" in result[-1]["error"].error_message


def test_headers_custom_values_and_no_auth_header(replay_server, tmp_path, monkeypatch):
    monkeypatch.setenv("ORG_HEADER_VALUE", "org-123")
    replay_server.add(sse(*text_events("a")))
    replay_server.add(sse(*text_events("b")))
    provider = make_provider(
        replay_server, tmp_path, headers={"OpenAI-Organization": "ORG_HEADER_VALUE"}
    )
    run(provider, gpt(), hello_context(), settings=FAST)
    headers = replay_server.requests[0].headers
    assert headers["openai-organization"] == "org-123"
    assert headers["authorization"] == f"Bearer {KEY}"
    assert headers["accept"] == "text/event-stream"
    bare = make_provider(replay_server, tmp_path, auth_header=False)
    run(bare, gpt(), hello_context(), settings=FAST)
    assert "authorization" not in replay_server.requests[1].headers


def test_cancelling_the_task_propagates(replay_server, tmp_path):
    chunks = split_events(sse(*text_events("a", "b", "c", "d")))
    replay_server.add(chunks, stall_after=3)  # created, item added, "a"; then silence
    provider = make_provider(replay_server, tmp_path)

    async def main():
        seen: list[str] = []

        async def consume():
            async for ev in provider.stream(gpt(), hello_context(), StreamOptions(settings=FAST)):
                seen.append(ev["type"])

        task = asyncio.create_task(consume())
        while "text_delta" not in seen:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return seen

    seen = asyncio.run(main())
    assert "done" not in seen and "error" not in seen


# -- the plugin ----------------------------------------------------------------------------


def test_the_plugin_registers_providers_of_this_api(tmp_path, monkeypatch):
    from omp_llm import config as llm_config
    from omp_provider_openai_responses import plugin

    monkeypatch.setattr(llm_config, "catalogue_providers", dict)
    (tmp_path / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "proxy": {
                        "baseUrl": "http://localhost:9/v1",
                        "api": "openai-responses",
                        "models": [{"id": "gpt-5-mini", "reasoning": True}],
                    },
                    "other": {
                        "baseUrl": "http://localhost:9/v1",
                        "api": "openai-completions",
                        "models": [{"id": "x"}],
                    },
                }
            }
        )
    )
    providers = plugin.omp_register_providers(SimpleNamespace(agent_dir=tmp_path))
    assert [p.name for p in providers] == ["proxy"]
    assert providers[0].wire is WIRE and providers[0].models[0].reasoning


def test_the_catalogue_openai_provider_is_served_by_this_plugin(tmp_path):
    from omp_provider_openai_responses import plugin

    providers = {
        p.name: p for p in plugin.omp_register_providers(SimpleNamespace(agent_dir=tmp_path))
    }
    openai = providers["openai"]
    assert openai.api == "openai-responses" and openai.wire is WIRE
    assert openai.config.base_url == "https://api.openai.com/v1"
    assert openai.needs_key() and openai.config.key_env == ["OPENAI_API_KEY"]
