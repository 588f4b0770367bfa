"""The anthropic-messages provider end to end: recorded streams replayed by a loopback
server, the request bodies it sent, and fault injection (cuts, stalls, HTTP errors)."""

from __future__ import annotations

import asyncio
import json
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from omp import (
    AssistantMessage,
    DeveloperMessage,
    ImageContent,
    LlmContext,
    Model,
    RedactedThinkingContent,
    ServerToolContent,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    to_wire,
)
from omp.testing import CUT_OFF_TEXT
from omp_llm.config import ProviderConfig
from omp_llm.provider import HttpProvider
from omp_llm.sse import split_lines
from omp_provider_anthropic.convert import build_request, convert_messages
from omp_provider_anthropic.wire import WIRE, messages_url, parse_recorded
from replay import FIXTURES, fixture_bytes, split_events

KEY = "test-key-0123456789"
SSE = {"content-type": "text/event-stream"}
FAST = {"retry": {"baseDelayMs": 1}}
TOOL_USE = "anthropic/anthropic-sdk-python__tool_use_response.sse"
THINKING = "extracted/anthropic__pydantic-ai__test_anthropic_model_thinking_part_stream.0.sse"
CASSETTE = "anthropic/pydantic-ai__test_anthropic_model_thinking_part_stream.yaml"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def model_at(base_url: str, **fields: Any) -> Model:
    values = {"max_tokens": 32_000, "reasoning": True, "input": ("text", "image"), **fields}
    return Model(
        provider="anthropic",
        id="claude-sonnet-4-0",
        api="anthropic-messages",
        base_url=base_url,
        **values,
    )


def provider_for(model: Model, tmp_path: Path, compat: dict | None = None) -> HttpProvider:
    config = ProviderConfig(
        name="anthropic",
        api="anthropic-messages",
        base_url=model.base_url,
        models=[model],
        key_env=["ANTHROPIC_API_KEY"],
        compat=compat or {},
    )
    provider = HttpProvider(config, WIRE, tmp_path / "agent")
    provider.cli_api_key = KEY
    return provider


def run(provider, model, context, **options) -> list[dict[str, Any]]:
    settings = options.pop("settings", FAST)

    async def go():
        opts = StreamOptions(settings=settings, **options)
        return [event async for event in provider.stream(model, context, opts)]

    return asyncio.run(go())


def hello() -> LlmContext:
    return LlmContext(system_prompt="", messages=[UserMessage(content="Hi")])


def setup(replay_server, tmp_path, compat=None, **fields):
    model = model_at(replay_server.url, **fields)
    return model, provider_for(model, tmp_path, compat)


def types(events) -> list[str]:
    return [event["type"] for event in events]


def final(events) -> AssistantMessage:
    last = events[-1]
    return last.get("message") or last["error"]


def chunks_to_sse(data: bytes) -> bytes:
    """vercel/ai's JSON-lines chunks as SSE (built here; the fixture file is untouched)."""
    out = b""
    for line in data.splitlines():
        if line.strip():
            out += b"event: " + json.loads(line)["type"].encode() + b"\ndata: " + line + b"\n\n"
    return out


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def error_texts(events) -> str:
    return json.dumps(
        [{k: v for k, v in e.items() if k != "partial"} for e in events],
        default=lambda m: m.model_dump(),
    )


# -- recorded streams ------------------------------------------------------------------


def test_tool_use_stream_and_request(replay_server, tmp_path):
    replay_server.add(split_events(fixture_bytes(TOOL_USE)), headers=SSE)
    model, provider = setup(replay_server, tmp_path, reasoning=False)
    tools = [
        {
            "name": "get_weather",
            "description": "Weather for a city",
            "parameters": {"type": "object", "properties": {"location": {"type": "string"}}},
        }
    ]
    context = LlmContext(
        system_prompt="You are omp.",
        tools=tools,
        messages=[UserMessage(content="Weather in Paris?")],
    )
    events = run(provider, model, context, thinking_level="high")
    assert types(events) == [
        "start",
        "text_start",
        "text_delta",
        "text_delta",
        "text_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]
    assert [e["delta"] for e in events if e["type"] == "toolcall_delta"] == [
        '{"locati',
        'on": "P',
        "ar",
        'is"}',
    ]
    message = final(events)
    assert events[-1]["reason"] == "toolUse" and message.stop_reason == "toolUse"
    assert message.text == "I'll check the current weather in Paris for you."
    call = message.tool_calls[0]
    assert (call.id, call.name, call.arguments) == (
        "toolu_01NRLabsLyVHZPKxbKvkfSMn",
        "get_weather",
        {"location": "Paris"},
    )
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (377, 65, 0, 0)
    assert usage.total_tokens == 442
    request = replay_server.requests[0]
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.headers["content-type"] == "application/json"
    assert KEY not in request.body.decode()
    assert request.json == {  # non-reasoning model: no thinking even at "high"
        "model": "claude-sonnet-4-0",
        "max_tokens": 32_000,
        "stream": True,
        "system": [
            {"type": "text", "text": "You are omp.", "cache_control": {"type": "ephemeral"}}
        ],
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "Weather in Paris?",
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            }
        ],
        "tools": [
            {
                "name": "get_weather",
                "description": "Weather for a city",
                "input_schema": tools[0]["parameters"],
            }
        ],
    }


def test_stream_without_final_blank_line_still_completes(replay_server, tmp_path):
    data = fixture_bytes(TOOL_USE)
    assert not data.endswith(b"\n")  # the quirk: message_stop is never followed by a blank line
    replay_server.add(data, headers=SSE)
    model, provider = setup(replay_server, tmp_path)
    events = run(provider, model, hello())
    assert events[-1]["type"] == "done" and events[-1]["reason"] == "toolUse"
    recorded = parse_recorded(data, model)
    assert types(recorded) == types(events)
    assert final(recorded).tool_calls[0].arguments == {"location": "Paris"}


def test_incomplete_partial_json_cut_by_max_tokens(replay_server, tmp_path):
    replay_server.add(
        fixture_bytes("anthropic/anthropic-sdk-python__incomplete_partial_json_response.sse"),
        headers=SSE,
    )
    model, provider = setup(replay_server, tmp_path)
    events = run(provider, model, hello())
    assert types(events)[-2:] == ["toolcall_end", "done"]  # the block never got its stop
    message = final(events)
    assert events[-1]["reason"] == "length" and message.stop_reason == "length"
    assert message.tool_calls[0].name == "make_file"
    assert message.tool_calls[0].arguments["filename"] == "taxes.txt"
    assert message.tool_calls[0].arguments_error == CUT_OFF_TEXT  # never run
    assert (message.usage.input, message.usage.output) == (450, 124)


def test_tool_without_arguments(replay_server, tmp_path):
    body = chunks_to_sse(fixture_bytes("anthropic/vercel-ai__anthropic-tool-no-args.chunks.txt"))
    replay_server.add(split_events(body), headers=SSE)
    model, provider = setup(replay_server, tmp_path)
    events = run(provider, model, hello())
    assert types(events) == [
        "start",
        "text_start",
        "text_delta",
        "text_delta",
        "text_end",
        "toolcall_start",
        "toolcall_end",
        "done",
    ]
    message = final(events)
    assert message.text == "I'll update the issue list for you."
    call = message.tool_calls[0]
    assert (call.id, call.name, call.arguments) == (
        "toolu_01QE1WLsSVp5hy5Q3GmGTmjP",
        "updateIssueList",
        {},
    )
    assert (message.usage.input, message.usage.output, message.usage.total_tokens) == (565, 48, 613)


def _yaml_block(text: str, key: str) -> Any:
    """The value under ``key:`` in a VCR cassette (the small YAML subset it uses)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == f"{key}:")
    indent = len(lines[start]) - len(lines[start].lstrip())
    block = []
    for line in lines[start + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        block.append(line)

    def scalar(value: str) -> Any:
        if value in ("true", "false"):
            return value == "true"
        return int(value) if value.lstrip("-").isdigit() else value

    def parse(rows: list[tuple[int, str]]) -> Any:
        if rows[0][1].startswith("- "):
            items, depth = [], rows[0][0]
            for col, row in rows:
                if col == depth and row.startswith("- "):
                    items.append([])
                    col, row = col + 2, row[2:]
                items[-1].append((col, row))
            return [parse(item) for item in items]
        mapping, depth, i = {}, rows[0][0], 0
        while i < len(rows):
            name, _, value = rows[i][1].partition(":")
            nested = []
            i += 1
            while i < len(rows) and (rows[i][0] > depth or rows[i][1].startswith("- ")):
                nested.append(rows[i])
                i += 1
            mapping[name] = parse(nested) if nested else scalar(value.strip())
        return mapping

    return parse([(len(r) - len(r.lstrip()), r.strip()) for r in block if r.strip()])


def test_thinking_stream_and_request_match_the_cassette(replay_server, tmp_path):
    replay_server.add(split_events(fixture_bytes(THINKING)), headers=SSE)
    model, provider = setup(replay_server, tmp_path, compat={"cacheControl": False})
    context = LlmContext(
        system_prompt="", messages=[UserMessage(content="How do I cross the street?")]
    )
    events = run(provider, model, context, thinking_level="minimal", max_tokens=4096)
    kinds = types(events)
    assert kinds[:2] == ["start", "thinking_start"]
    assert kinds.count("thinking_delta") == 13  # the empty delta and the signature: no event
    assert kinds[-3:] == ["text_delta", "text_end", "done"]
    message = final(events)
    thinking, text = message.content
    assert thinking.thinking.startswith("This is a straightforward question about pedestrian")
    assert thinking.thinking_signature.startswith("EvMCCkYICxgCKkCHP2cSuEdcJK")
    assert text.text.startswith("Here are the basic steps for safely crossing the street:")
    assert events[-1]["reason"] == "stop"
    assert (message.usage.input, message.usage.output) == (43, 282)
    cassette = (FIXTURES / CASSETTE).read_text(encoding="utf-8")
    recorded = _yaml_block(cassette, "parsed_body")
    assert recorded["thinking"] == {"budget_tokens": 1024, "type": "enabled"}
    assert replay_server.requests[0].json == recorded

    # the signed thinking goes back unchanged on the next turn (same provider and api)
    replay_server.add(split_events(fixture_bytes(TOOL_USE)), headers=SSE)
    follow = LlmContext(
        system_prompt="", messages=[*context.messages, message, UserMessage(content="Thanks")]
    )
    run(provider, model, follow, thinking_level="minimal", max_tokens=4096)
    sent = replay_server.requests[1].json["messages"][1]
    assert sent == {
        "role": "assistant",
        "content": [
            {
                "type": "thinking",
                "thinking": thinking.thinking,
                "signature": thinking.thinking_signature,
            },
            {"type": "text", "text": text.text},
        ],
    }


def web_search_stream() -> bytes:
    """A web search answer, constructed by hand from Anthropic's documented streaming
    event shapes (server_tool_use with input_json_delta, web_search_tool_result, text
    with citations_delta): tests/fixtures holds no recorded stream of it."""
    result = {
        "type": "web_search_result",
        "title": "Pineapple - Wikipedia",
        "url": "https://en.wikipedia.org/wiki/Pineapple",
        "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y",
        "page_age": "May 1, 2024",
    }
    citation = {
        "type": "web_search_result_location",
        "url": "https://en.wikipedia.org/wiki/Pineapple",
        "title": "Pineapple - Wikipedia",
        "encrypted_index": "Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm",
        "cited_text": "The pineapple is a tropical plant with an edible fruit.",
    }
    start = {"type": "message", "role": "assistant", "model": "claude-sonnet-4-0"}
    return sse(
        {"type": "message_start", "message": {**start, "usage": {"input_tokens": 2679}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "I'll search for that."},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {
                "type": "server_tool_use",
                "id": "srvtoolu_01",
                "name": "web_search",
                "input": {},
            },
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": '{"query": "pine'},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": 'apple"}'},
        },
        {"type": "content_block_stop", "index": 1},
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_01",
                "content": [result],
            },
        },
        {"type": "content_block_stop", "index": 2},
        {
            "type": "content_block_start",
            "index": 3,
            "content_block": {"type": "text", "text": "", "citations": []},
        },
        {
            "type": "content_block_delta",
            "index": 3,
            "delta": {"type": "citations_delta", "citation": citation},
        },
        {
            "type": "content_block_delta",
            "index": 3,
            "delta": {"type": "text_delta", "text": "It is a tropical plant."},
        },
        {"type": "content_block_stop", "index": 3},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 510, "server_tool_use": {"web_search_requests": 1}},
        },
        {"type": "message_stop"},
    )


def test_web_search_server_tool_and_citations(replay_server, tmp_path):
    replay_server.add(split_events(web_search_stream()), headers=SSE)
    model, provider = setup(replay_server, tmp_path, reasoning=False)
    events = run(provider, model, hello())
    assert types(events) == [
        "start",
        "text_start",
        "text_delta",
        "text_end",
        "text_start",
        "text_delta",
        "text_end",
        "done",
    ]
    message = final(events)
    assert message.stop_reason == "stop"
    assert message.text == "I'll search for that.It is a tropical plant."
    first, search, cited = message.content
    assert isinstance(first, TextContent) and first.citations is None
    assert isinstance(search, ServerToolContent)
    assert (search.id, search.name, search.input) == (
        "srvtoolu_01",
        "web_search",
        {"query": "pineapple"},
    )
    assert search.result == [  # the encrypted content is left out
        {
            "type": "web_search_result",
            "title": "Pineapple - Wikipedia",
            "url": "https://en.wikipedia.org/wiki/Pineapple",
            "page_age": "May 1, 2024",
        }
    ]
    assert isinstance(cited, TextContent) and cited.citations is not None
    [source] = cited.citations
    assert (source.type, source.url, source.title, source.cited_text) == (
        "web_search_result_location",
        "https://en.wikipedia.org/wiki/Pineapple",
        "Pineapple - Wikipedia",
        "The pineapple is a tropical plant with an edible fruit.",
    )
    assert "encrypted_index" not in to_wire(source)
    # a session file keeps both, camelCase
    wire = to_wire(message)
    assert wire["content"][2]["citations"][0]["citedText"].startswith("The pineapple")
    assert AssistantMessage.model_validate(json.loads(json.dumps(wire))) == message
    # sent back, only the text goes: no citations, no server tool blocks
    turns = convert_messages([UserMessage(content="Hi"), message], model)
    assert turns[1]["content"] == [
        {"type": "text", "text": "I'll search for that."},
        {"type": "text", "text": "It is a tropical plant."},
    ]


def test_history_conversion(replay_server, tmp_path):
    replay_server.add(split_events(fixture_bytes(TOOL_USE)), headers=SSE)
    model, provider = setup(replay_server, tmp_path)
    ours = {"provider": "anthropic", "api": "anthropic-messages", "model": model.id}
    image = ImageContent(data="aGk=", mime_type="image/png")
    wire_image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "aGk="},
    }
    tools = [{"name": "read", "description": "Read a file", "parameters": {"type": "object"}}]
    messages = [
        UserMessage(content="Read a.py"),
        DeveloperMessage(content="Plan mode is on."),
        AssistantMessage(
            **ours,
            stop_reason="toolUse",
            content=[
                ThinkingContent(thinking="Look first", thinking_signature="sig-1"),
                RedactedThinkingContent(data="opaque"),
                ThinkingContent(thinking="unsigned thought"),
                TextContent(text="Reading."),
                TextContent(text=""),
                ToolCall(id="call|weird/id", name="read", arguments={"path": "a.py"}),
            ],
        ),
        ToolResultMessage(
            tool_call_id="call|weird/id",
            tool_name="read",
            content=[TextContent(text="print(1)"), image],
        ),
        AssistantMessage(
            provider="openai",
            api="openai-responses",
            model="gpt-5",
            content=[
                ThinkingContent(thinking="foreign thought", thinking_signature="enc"),
                RedactedThinkingContent(data="x"),
                TextContent(text="Done."),
            ],
        ),
        UserMessage(content=[TextContent(text="Now this"), image]),
        AssistantMessage(
            **ours,
            stop_reason="aborted",
            content=[
                TextContent(text="Let me"),
                ToolCall(id="toolu_gone", name="read", arguments={}),
            ],
        ),
        ToolResultMessage(
            tool_call_id="toolu_gone",
            tool_name="read",
            is_error=True,
            content=[TextContent(text="aborted")],
        ),
        AssistantMessage(
            **ours,
            stop_reason="toolUse",
            content=[ToolCall(id="toolu_2", name="read", arguments={"path": "b.py"})],
        ),
        UserMessage(content="continue"),
    ]
    run(provider, model, LlmContext("Be brief.", messages, tools), thinking_level="medium")
    body = replay_server.requests[0].json
    # it continues a tool call whose assistant turn has no thinking block: no thinking
    assert "thinking" not in body
    assert body["max_tokens"] == 32_000
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Read a.py"},
                {"type": "text", "text": "Plan mode is on."},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Look first", "signature": "sig-1"},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "text", "text": "unsigned thought"},
                {"type": "text", "text": "Reading."},
                {
                    "type": "tool_use",
                    "id": "call_weird_id",
                    "name": "read",
                    "input": {"path": "a.py"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_weird_id",
                    "is_error": False,
                    "content": [{"type": "text", "text": "print(1)"}, wire_image],
                }
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "foreign thought"},
                {"type": "text", "text": "Done."},
            ],
        },
        {"role": "user", "content": [{"type": "text", "text": "Now this"}, wire_image]},
        # the aborted turn keeps its text, loses its tool call; the orphan result is dropped
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me"},
                {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {"path": "b.py"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "is_error": True,
                    "content": [
                        {
                            "type": "text",
                            "text": "No result provided: the tool call was interrupted.",
                        }
                    ],
                },
                {"type": "text", "text": "continue", "cache_control": {"type": "ephemeral"}},
            ],
        },
    ]


def _request(model: Model, level: str, max_tokens=None, settings=None, messages=None):
    context = LlmContext(system_prompt="", messages=messages or [UserMessage(content="Hi")])
    options = StreamOptions(thinking_level=level, max_tokens=max_tokens, settings=settings or {})
    return SimpleNamespace(model=model, options=options, context=context, compat={})


def test_thinking_mapping():
    model = model_at("http://x", max_tokens=64_000)
    body = build_request(_request(model, "medium", max_tokens=2048))
    assert body["thinking"]["budget_tokens"] == 8192 and body["max_tokens"] == 8192 + 4096
    custom = build_request(_request(model, "low", settings={"thinkingBudgets": {"low": 3000}}))
    assert custom["thinking"] == {"type": "enabled", "budget_tokens": 3000}
    assert "thinking" not in build_request(_request(model, "off"))
    ours = {"provider": "anthropic", "api": "anthropic-messages"}
    call = ToolCall(id="toolu_1", name="read", arguments={})
    result = ToolResultMessage(tool_call_id="toolu_1", tool_name="read")
    signed = AssistantMessage(
        **ours, content=[ThinkingContent(thinking="t", thinking_signature="s"), call]
    )
    loop = [UserMessage(content="Hi"), signed, result]
    assert build_request(_request(model, "low", messages=loop))["thinking"]["budget_tokens"] == 2048
    unsigned = AssistantMessage(**ours, content=[TextContent(text="Reading."), call])
    loop = [UserMessage(content="Hi"), unsigned, result]
    assert "thinking" not in build_request(_request(model, "low", messages=loop))
    small = model_at("http://x", max_tokens=8192)
    capped = build_request(_request(small, "high"))
    assert capped["max_tokens"] == 8192 and capped["thinking"]["budget_tokens"] == 4096
    unsupported = model_at("http://x", thinking_level_map={"xhigh": None, "high": 5000})
    assert "thinking" not in build_request(_request(unsupported, "xhigh"))
    assert build_request(_request(unsupported, "high"))["thinking"]["budget_tokens"] == 5000
    assert "thinking" not in build_request(_request(model_at("http://x", reasoning=False), "high"))


def test_base_url_ending_in_v1_is_not_doubled(replay_server, tmp_path):
    assert messages_url("https://api.anthropic.com") == "https://api.anthropic.com/v1/messages"
    assert messages_url("https://proxy.example/v1/") == "https://proxy.example/v1/messages"
    replay_server.add(fixture_bytes(TOOL_USE), headers=SSE)
    model = model_at(replay_server.url + "/v1")
    events = run(provider_for(model, tmp_path), model, hello())
    assert events[-1]["type"] == "done"
    assert replay_server.requests[0].path == "/v1/messages"


def test_custom_headers_and_bearer_auth(replay_server, tmp_path):
    replay_server.add(fixture_bytes(TOOL_USE), headers=SSE)
    model, provider = setup(replay_server, tmp_path, compat={"bearerAuth": True})
    provider.config.headers = {"anthropic-beta": "interleaved-thinking-2025-05-14"}
    run(provider, model, hello())
    headers = replay_server.requests[0].headers
    assert headers["authorization"] == f"Bearer {KEY}" and "x-api-key" not in headers
    assert headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"


# -- in-band errors and retries --------------------------------------------------------


def test_overloaded_first_chunk_is_retried(replay_server, tmp_path):
    replay_server.add(
        fixture_bytes("anthropic/vercel-ai__anthropic-overloaded-first-chunk.sse"), headers=SSE
    )
    replay_server.add(split_events(fixture_bytes(TOOL_USE)), headers=SSE)
    model, provider = setup(replay_server, tmp_path)
    events = run(provider, model, hello())
    assert types(events)[:2] == ["start", "auto_retry_start"]
    assert events[1]["errorMessage"] == "overloaded_error: Overloaded"
    assert types(events)[-2:] == ["auto_retry_end", "done"]
    assert final(events).tool_calls[0].arguments == {"location": "Paris"}
    assert len(replay_server.requests) == 2


def test_overloaded_midstream_is_an_error_without_retry(replay_server, tmp_path):
    replay_server.add(
        split_events(fixture_bytes("anthropic/vercel-ai__anthropic-overloaded-midstream.sse")),
        headers=SSE,
    )
    model, provider = setup(replay_server, tmp_path)
    events = run(provider, model, hello())
    assert types(events) == ["start", "text_start", "text_delta", "error"]
    message = final(events)
    assert message.stop_reason == "error"
    assert message.error_message == "overloaded_error: Overloaded"
    assert message.error_kind == "overloaded_error" and message.text == "Hello"
    assert len(replay_server.requests) == 1


def test_http_529_then_success(replay_server, tmp_path):
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    replay_server.add(
        json.dumps(overloaded), status=529, headers={"content-type": "application/json"}
    )
    replay_server.add(split_events(fixture_bytes(TOOL_USE)), headers=SSE)
    model, provider = setup(replay_server, tmp_path)
    events = run(provider, model, hello())
    assert events[1]["type"] == "auto_retry_start"
    assert events[1]["errorMessage"] == "HTTP 529 overloaded_error: Overloaded"
    assert events[-1]["type"] == "done" and len(replay_server.requests) == 2


def test_http_429_retry_after_then_success(replay_server, tmp_path):
    limited = {"type": "error", "error": {"type": "rate_limit_error", "message": "Slow down"}}
    replay_server.add(json.dumps(limited), status=429, headers={"retry-after": "0"})
    replay_server.add(split_events(fixture_bytes(TOOL_USE)), headers=SSE)
    model, provider = setup(replay_server, tmp_path)
    events = run(provider, model, hello())
    assert types(events)[:3] == ["start", "auto_retry_start", "text_start"]
    assert events[1]["delayMs"] == 0 and "Slow down" in events[1]["errorMessage"]
    assert events[-1]["type"] == "done"


def test_http_400_explanation_is_in_the_error(replay_server, tmp_path):
    bad = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "messages.0.content: field required"},
    }
    replay_server.add(json.dumps(bad), status=400)
    model, provider = setup(replay_server, tmp_path)
    events = run(provider, model, hello())
    assert types(events) == ["start", "error"]
    assert final(events).error_message == (
        "HTTP 400 invalid_request_error: messages.0.content: field required"
    )
    assert final(events).error_status == 400 and len(replay_server.requests) == 1


def test_context_overflow(replay_server, tmp_path):
    too_long = {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 210000 tokens > 200000 maximum",
        },
    }
    replay_server.add(json.dumps(too_long), status=400)
    model, provider = setup(replay_server, tmp_path)
    events = run(provider, model, hello())
    message = final(events)
    assert message.error_message.startswith("context overflow")
    assert "210000 tokens > 200000 maximum" in message.error_message
    assert message.error_kind == "context_overflow"


def test_api_key_never_appears_in_errors(replay_server, tmp_path):
    denied = {
        "type": "error",
        "error": {"type": "authentication_error", "message": f"invalid x-api-key {KEY}"},
    }
    replay_server.add(json.dumps(denied), status=401)
    model, provider = setup(replay_server, tmp_path)
    events = run(provider, model, hello())
    assert replay_server.requests[0].headers["x-api-key"] == KEY
    assert final(events).error_message == (
        "HTTP 401 authentication_error: invalid x-api-key [redacted]"
    )
    assert KEY not in error_texts(events)


# -- fault injection -------------------------------------------------------------------


def test_cut_mid_stream_after_content(replay_server, tmp_path):
    body = split_events(fixture_bytes(TOOL_USE))
    replay_server.add(body, headers=SSE, cut_after=4)  # after the first text delta
    model, provider = setup(replay_server, tmp_path)
    events = run(provider, model, hello())
    assert types(events) == ["start", "text_start", "text_delta", "error"]
    assert "stream ended early" in final(events).error_message
    assert KEY not in error_texts(events)
    assert len(replay_server.requests) == 1


def test_cut_mid_event_before_content_is_retried(replay_server, tmp_path):
    data = fixture_bytes(TOOL_USE)
    replay_server.add([data[:40], data[40:]], headers=SSE, cut_after=1)  # inside message_start
    replay_server.add(split_events(data), headers=SSE)
    model, provider = setup(replay_server, tmp_path)
    events = run(provider, model, hello())
    assert types(events)[:2] == ["start", "auto_retry_start"]
    assert events[-1]["type"] == "done" and len(replay_server.requests) == 2


def test_stall_hits_the_idle_timeout(replay_server, tmp_path):
    replay_server.add(split_events(fixture_bytes(TOOL_USE)), headers=SSE, stall_after=4)
    model, provider = setup(replay_server, tmp_path)
    settings = {**FAST, "stream": {"idleTimeoutMs": 300}}
    events = run(provider, model, hello(), settings=settings)
    assert types(events) == ["start", "text_start", "text_delta", "error"]
    assert "idle timeout" in final(events).error_message


def test_stall_after_first_chunk_is_retried_then_fails(replay_server, tmp_path):
    replay_server.add(split_events(fixture_bytes(TOOL_USE)), headers=SSE, stall_after=1)
    model, provider = setup(replay_server, tmp_path)
    settings = {"retry": {"enabled": False}, "stream": {"idleTimeoutMs": 300}}
    events = run(provider, model, hello(), settings=settings)
    assert types(events) == ["start", "error"]
    assert "idle timeout" in final(events).error_message


def test_invalid_json_in_tool_call_delta(replay_server, tmp_path):
    body = sse(
        {"type": "message_start", "message": {"usage": {"input_tokens": 5, "output_tokens": 1}}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_x", "name": "bash", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"command": ]]nope'},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": ",,}"},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
    )  # authored here: no recorded stream carries broken tool JSON
    replay_server.add(split_events(body), headers=SSE)
    model, provider = setup(replay_server, tmp_path)
    events = run(provider, model, hello())
    assert types(events) == [
        "start",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]
    call = final(events).tool_calls[0]
    assert call.name == "bash" and isinstance(call.arguments, dict)
    assert call.arguments_error.startswith("Tool call arguments are not valid JSON (")
    assert final(events).usage.total_tokens == 14


def test_redacted_thinking_is_kept(replay_server, tmp_path):
    body = sse(
        {"type": "message_start", "message": {"usage": {"input_tokens": 1}}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "ok"}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "refusal"}, "usage": {}},
        {"type": "message_stop"},
    )
    replay_server.add(body, headers=SSE)
    model, provider = setup(replay_server, tmp_path)
    events = run(provider, model, hello())
    assert types(events) == ["start", "text_start", "text_delta", "text_end", "done"]
    assert events[2]["contentIndex"] == 1
    redacted, text = final(events).content
    assert isinstance(redacted, RedactedThinkingContent) and redacted.data == "EmwKAhgBEgy3va"
    assert text.text == "ok" and events[-1]["reason"] == "stop"


def test_abort_cancels_the_stream(replay_server, tmp_path):
    replay_server.add(split_events(fixture_bytes(TOOL_USE)), headers=SSE, stall_after=4)
    model, provider = setup(replay_server, tmp_path)

    async def go():
        seen: list[str] = []
        first_delta = asyncio.Event()

        async def consume():
            async for event in provider.stream(model, hello(), StreamOptions(settings=FAST)):
                seen.append(event["type"])
                if event["type"] == "text_delta":
                    first_delta.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(first_delta.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return seen

    seen = asyncio.run(go())
    assert "done" not in seen and "error" not in seen
    assert len(replay_server.requests) == 1


# -- packaging -------------------------------------------------------------------------


def test_plugin_registers_anthropic_messages_providers(tmp_path, monkeypatch):
    import omp_llm.config as config
    from omp_provider_anthropic import plugin

    entry = [e for e in metadata.entry_points(group="omp.plugins") if e.name == "anthropic"]
    assert entry and entry[0].value == "omp_provider_anthropic.plugin"
    builtin = {
        "anthropic": ProviderConfig(
            "anthropic", "anthropic-messages", "https://api.anthropic.com", [model_at("")]
        ),
        "openai": ProviderConfig("openai", "openai-responses", "https://api.openai.com/v1", []),
    }
    monkeypatch.setattr(config, "catalogue_providers", lambda: dict(builtin))
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "proxy": {
                        "api": "anthropic-messages",
                        "baseUrl": "http://127.0.0.1:9/v1",
                        "apiKey": "PROXY_KEY",
                        "models": [{"id": "claude-proxy"}],
                    }
                }
            }
        )
    )
    providers = plugin.omp_register_providers(SimpleNamespace(agent_dir=agent))
    assert sorted(p.name for p in providers) == ["anthropic", "proxy"]
    assert all(p.wire is WIRE for p in providers)


def test_parse_recorded_reports_in_band_errors():
    model = model_at("")
    events = parse_recorded(
        fixture_bytes("anthropic/vercel-ai__anthropic-overloaded-midstream.sse"), model
    )
    assert types(events) == ["start", "text_start", "text_delta", "error"]
    assert len(split_lines(fixture_bytes(THINKING))) > 100
