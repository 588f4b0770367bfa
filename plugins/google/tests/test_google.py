"""The google-generative-ai (Gemini) provider plugin, end to end against recorded streams
replayed on a loopback server (plugins/google)."""

from __future__ import annotations

import asyncio
import base64
import json
import re
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
    ServerToolContent,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from omp_llm.config import ProviderConfig
from omp_llm.provider import HttpProvider
from omp_provider_google.convert import build_request, convert_messages, thinking_config
from omp_provider_google.schema import sanitize_schema
from omp_provider_google.wire import WIRE, parse_recorded
from replay import FIXTURES, fixture_bytes, split_events

CASSETTE = "gemini/pydantic-ai__test_google_streaming_tool_call_thought_signature.yaml"
TURN1 = "extracted/gemini__pydantic-ai__test_google_streaming_tool_call_thought_signature.0.sse"
TURN2 = "extracted/gemini__pydantic-ai__test_google_streaming_tool_call_thought_signature.1.sse"
KEY = "AIzaSy-test-key-0123456789"
SSE = {"content-type": "text/event-stream"}
FAST = {"retry": {"baseDelayMs": 1}}
PROMPT = "What is the capital of the user country? Call the tool"
GET_COUNTRY = {
    "name": "get_country",
    "description": "",
    "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
}


@pytest.fixture(autouse=True)
def _tmp_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)


def gemini(base_url: str = "", model_id: str = "gemini-3-pro-preview", **kw: Any) -> Model:
    kw = {"reasoning": True, "input": ("text", "image"), "max_tokens": 8192, **kw}
    return Model(
        provider="google",
        id=model_id,
        api="google-generative-ai",
        base_url=base_url,
        cost={"input": 2.0, "output": 12.0, "cacheRead": 0.2},
        **kw,
    )


def make_provider(server: Any, tmp_path: Path, **kw: Any) -> tuple[HttpProvider, Model]:
    model = gemini(server.url + "/v1beta", **kw)
    config = ProviderConfig(
        name="google",
        api="google-generative-ai",
        base_url=server.url + "/v1beta",
        models=[model],
        key_env=["GEMINI_API_KEY"],
    )
    provider = HttpProvider(config, WIRE, tmp_path / "agent")
    provider.cli_api_key = KEY
    return provider, model


def run(provider, model, context, level="off", settings=None) -> list[dict[str, Any]]:
    options = StreamOptions(thinking_level=level, settings={**FAST, **(settings or {})})

    async def collect() -> list[dict[str, Any]]:
        return [ev async for ev in provider.stream(model, context, options)]

    return asyncio.run(collect())


def types(events: list[dict[str, Any]]) -> list[str]:
    return [ev["type"] for ev in events]


def sse(*chunks: dict[str, Any]) -> list[bytes]:
    return [f"data: {json.dumps(c)}\r\n\r\n".encode() for c in chunks]


def text_chunk(text: str, finish: str | None = None, **part: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text, **part}]}}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "usageMetadata": {"promptTokenCount": 5}}


def turn1_context() -> LlmContext:
    return LlmContext("", [UserMessage(content=PROMPT)], [GET_COUNTRY])


# -- the recorded conversation ----------------------------------------------------------


def test_recorded_tool_call_then_answer(replay_server, tmp_path):
    provider, model = make_provider(replay_server, tmp_path)
    replay_server.add(split_events(fixture_bytes(TURN1)), headers=SSE)
    replay_server.add(split_events(fixture_bytes(TURN2)), headers=SSE)

    context = turn1_context()
    events = run(provider, model, context)
    assert types(events) == ["start", "toolcall_start", "toolcall_delta", "toolcall_end", "done"]
    assert events[2]["delta"] == "{}"
    done = events[-1]
    assert done["reason"] == "toolUse"
    message = done["message"]
    call = message.content[0]
    assert (call.name, call.arguments) == ("get_country", {})
    assert re.fullmatch(r"get_country_\d+_\d+", call.id)
    assert call.thought_signature.startswith("EpwICpkIAXLI2nxlU6gsWZaZHRYkX1orzuM8vSUFwaAt1JRx")
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.total_tokens) == (29, 212, 0, 241)
    assert usage.cost.total == pytest.approx((29 * 2.0 + 212 * 12.0) / 1e6)

    first = replay_server.requests[0]
    assert first.path == "/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse"
    assert first.headers["x-goog-api-key"] == KEY
    assert KEY not in first.path and "authorization" not in first.headers
    # pydantic-ai sent the same contents (its tools use parameters_json_schema instead)
    assert first.json == {
        "contents": [{"role": "user", "parts": [{"text": PROMPT}]}],
        "tools": [{"functionDeclarations": [{"name": "get_country", "description": ""}]}],
        "generationConfig": {"maxOutputTokens": 8192, "thinkingConfig": {"thinkingLevel": "low"}},
    }

    result = ToolResultMessage(
        tool_call_id=call.id, tool_name="get_country", content=[TextContent(text="Mexico")]
    )
    context.messages += [message, result]
    events = run(provider, model, context)
    assert types(events) == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    assert [ev["delta"] for ev in events[2:4]] == ["The capital of Mexico", " is Mexico City."]
    final = events[-1]["message"]
    assert final.text == "The capital of Mexico is Mexico City." and final.stop_reason == "stop"
    assert (final.usage.input, final.usage.output, final.usage.total_tokens) == (257, 8, 265)

    # turn 2 against the cassette's request 2: the echoed functionCall carries the same
    # signature bytes (pydantic-ai re-encodes them url-safe) and the functionResponse
    # follows in a user turn (pydantic-ai says return_value where omp says output)
    cassette = (FIXTURES / CASSETTE).read_text()
    recorded_sig = re.search(r"thoughtSignature: (\S+)", cassette).group(1)
    body = replay_server.requests[1].json
    sent = body["contents"][1]["parts"][0]
    assert base64.b64decode(sent["thoughtSignature"]) == base64.urlsafe_b64decode(recorded_sig)
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": PROMPT}]},
        {
            "role": "model",
            "parts": [
                {
                    "functionCall": {"name": "get_country", "args": {}, "id": call.id},
                    "thoughtSignature": call.thought_signature,
                }
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "get_country",
                        "response": {"output": "Mexico"},
                        "id": call.id,
                    }
                }
            ],
        },
    ]


def test_parse_recorded_matches_the_live_stream():
    events = parse_recorded(fixture_bytes(TURN2), gemini())
    assert types(events) == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    assert events[-1]["message"].text == "The capital of Mexico is Mexico City."
    events = parse_recorded(fixture_bytes(TURN1), gemini())
    assert events[-1]["reason"] == "toolUse"


def test_thinking_stream_signatures_and_cached_usage(replay_server, tmp_path):
    provider, model = make_provider(replay_server, tmp_path, model_id="gemini-2.5-flash")
    usage = {
        "promptTokenCount": 100,
        "cachedContentTokenCount": 60,
        "candidatesTokenCount": 7,
        "thoughtsTokenCount": 30,
        "totalTokenCount": 137,
    }
    replay_server.add(
        sse(
            text_chunk("Let me ", thought=True),
            text_chunk("think.", thought=True, thoughtSignature="c2lnLXRoaW5r"),
            text_chunk("Hello"),
            {
                **text_chunk(" world", "STOP", thoughtSignature="c2lnLXRleHQ="),
                "usageMetadata": usage,
            },
        ),
        headers=SSE,
    )
    events = run(provider, model, LlmContext("Be brief.", [UserMessage(content="hi")]), "medium")
    assert types(events) == [
        "start",
        "thinking_start",
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
    thinking, text = message.content
    assert (thinking.thinking, thinking.thinking_signature) == ("Let me think.", "c2lnLXRoaW5r")
    assert (text.text, text.text_signature) == ("Hello world", "c2lnLXRleHQ=")
    u = message.usage
    assert (u.input, u.cache_read, u.output, u.total_tokens) == (40, 60, 37, 137)
    body = replay_server.requests[0].json
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert body["generationConfig"]["thinkingConfig"] == {
        "thinkingBudget": 8192,
        "includeThoughts": True,
    }

    # sent back to the same model: a thought part and a text part, both signed
    context = LlmContext("", [UserMessage(content="hi"), message, UserMessage(content="again")])
    contents = build_request(
        SimpleNamespace(model=model, context=context, options=StreamOptions(), compat={})
    )["contents"]
    assert contents[1] == {
        "role": "model",
        "parts": [
            {"text": "Let me think.", "thought": True, "thoughtSignature": "c2lnLXRoaW5r"},
            {"text": "Hello world", "thoughtSignature": "c2lnLXRleHQ="},
        ],
    }


def test_max_tokens_is_length_and_safety_is_an_error(replay_server, tmp_path):
    provider, model = make_provider(replay_server, tmp_path)
    replay_server.add(sse(text_chunk("cut", "MAX_TOKENS")), headers=SSE)
    replay_server.add(sse(text_chunk("I will not", "SAFETY")), headers=SSE)
    context = LlmContext("", [UserMessage(content="hi")])
    events = run(provider, model, context)
    assert events[-1]["type"] == "done" and events[-1]["reason"] == "length"
    events = run(provider, model, context)
    assert events[-1]["type"] == "error"
    assert "SAFETY" in events[-1]["error"].error_message
    assert len(replay_server.requests) == 2


def grounded_stream() -> list[bytes]:
    """A Gemini answer grounded by Google Search, constructed by hand from Google's
    documented GenerateContentResponse shape (``groundingMetadata`` with
    ``webSearchQueries``, ``groundingChunks`` and ``groundingSupports``): no recorded
    grounded stream is in tests/fixtures. The metadata comes on the last two chunks, the
    second repeating the first (as Gemini may)."""
    first = "The pineapple is a tropical plant."
    second = " It was first grown in South America."
    meta = {
        "webSearchQueries": ["pineapple origin", "pineapple plant"],
        "searchEntryPoint": {"renderedContent": "<div>...</div>"},
        "groundingChunks": [
            {"web": {"uri": "https://en.wikipedia.org/wiki/Pineapple", "title": "wikipedia.org"}},
            {"web": {"uri": "https://example.org/facts", "title": "example.org"}},
            {"retrievedContext": {"uri": "gs://bucket/doc", "title": "not the web"}},
        ],
        "groundingSupports": [
            {
                "segment": {"startIndex": 0, "endIndex": len(first), "text": first},
                "groundingChunkIndices": [0],
                "confidenceScores": [0.9],
            },
            {
                "segment": {"startIndex": len(first), "endIndex": 71, "text": second.strip()},
                "groundingChunkIndices": [0, 1, 2, 7],
            },
        ],
    }
    chunk = text_chunk(second, "STOP")
    chunk["candidates"][0]["groundingMetadata"] = meta
    repeat = {"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}}]}
    repeat["candidates"][0]["groundingMetadata"] = meta
    repeat["usageMetadata"] = {"promptTokenCount": 5, "candidatesTokenCount": 9}
    return sse(text_chunk(first), chunk, repeat)


def test_google_search_grounding_is_kept_and_never_sent_back(replay_server, tmp_path):
    provider, model = make_provider(replay_server, tmp_path)
    replay_server.add(grounded_stream(), headers=SSE)
    events = run(provider, model, LlmContext("", [UserMessage(content="pineapple?")]))
    assert types(events) == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    message = events[-1]["message"]
    text, search = message.content
    assert text.text == "The pineapple is a tropical plant. It was first grown in South America."
    wiki, facts = "https://en.wikipedia.org/wiki/Pineapple", "https://example.org/facts"
    assert [(c.type, c.url, c.title, c.cited_text) for c in text.citations] == [
        ("grounding_support", wiki, "wikipedia.org", "The pineapple is a tropical plant."),
        ("grounding_support", wiki, "wikipedia.org", "It was first grown in South America."),
        ("grounding_support", facts, "example.org", "It was first grown in South America."),
    ]
    assert isinstance(search, ServerToolContent)
    assert search.name == "google_search"
    assert search.input == {"queries": ["pineapple origin", "pineapple plant"]}
    assert search.result == [
        {"url": wiki, "title": "wikipedia.org"},
        {"url": facts, "title": "example.org"},
    ]
    # survives a session file's JSON round trip
    assert AssistantMessage.model_validate_json(message.model_dump_json()) == message
    # sent back: the text only
    context = LlmContext(
        "", [UserMessage(content="pineapple?"), message, UserMessage(content="ok")]
    )
    contents = build_request(
        SimpleNamespace(model=model, context=context, options=StreamOptions(), compat={})
    )["contents"]
    assert contents[1] == {"role": "model", "parts": [{"text": text.text}]}


def test_a_stream_without_grounding_gains_no_search_block():
    events = parse_recorded(b"".join(sse(text_chunk("Hello", "STOP"))), gemini())
    [text] = events[-1]["message"].content
    assert (text.text, text.citations) == ("Hello", None)


# -- request conversion -----------------------------------------------------------------


def test_thinking_config_mapping():
    g3, flash, pro = (
        gemini(),
        gemini(model_id="gemini-2.5-flash"),
        gemini(model_id="gemini-2.5-pro"),
    )
    assert thinking_config(g3, "high", {}, {}) == {"thinkingLevel": "high", "includeThoughts": True}
    assert thinking_config(g3, "minimal", {}, {}) == {
        "thinkingLevel": "low",
        "includeThoughts": True,
    }
    assert thinking_config(g3, "off", {}, {}) == {"thinkingLevel": "low"}
    assert thinking_config(flash, "off", {}, {}) == {"thinkingBudget": 0}
    assert thinking_config(pro, "off", {}, {}) is None
    budgets = {"thinkingBudgets": {"low": 512}}
    assert thinking_config(flash, "low", budgets, {})["thinkingBudget"] == 512
    assert thinking_config(g3, "low", {}, {"thinkingMode": "budget"})["thinkingBudget"] == 2048
    assert thinking_config(gemini(reasoning=False), "high", {}, {}) is None
    mapped = gemini(thinking_level_map={"high": None, "low": 333, "off": None})
    assert thinking_config(mapped, "high", {}, {}) is None
    assert thinking_config(mapped, "off", {}, {}) is None
    assert thinking_config(mapped, "low", {}, {}) == {
        "thinkingBudget": 333,
        "includeThoughts": True,
    }


def test_conversion_rules():
    model = gemini(model_id="gemini-2.5-flash")
    img = ImageContent(data="aGVsbG8=", mime_type="image/png")
    foreign = AssistantMessage(
        provider="anthropic",
        api="anthropic-messages",
        model="claude",
        stop_reason="toolUse",
        content=[
            ThinkingContent(thinking="pondering", thinking_signature="anthropic-sig"),
            TextContent(text="Reading."),
            ToolCall(id="toolu_01|x/y", name="read", arguments={"path": "a"}),
            ToolCall(id="toolu_02", name="read", arguments={"path": "b"}),
        ],
    )
    aborted = AssistantMessage(
        provider="google",
        api="google-generative-ai",
        model="gemini-2.5-flash",
        stop_reason="aborted",
        content=[TextContent(text="Partial"), ToolCall(id="c9", name="bash", arguments={})],
    )
    messages = [
        UserMessage(content=[TextContent(text="look"), img]),
        DeveloperMessage(content="be careful"),
        foreign,
        ToolResultMessage(
            tool_call_id="toolu_01|x/y",
            tool_name="read",
            content=[TextContent(text="nope")],
            is_error=True,
        ),
        # toolu_02 never answered: filled in
        UserMessage(content="   "),
        UserMessage(content="go on"),
        aborted,
        ToolResultMessage(tool_call_id="c9", tool_name="bash", content=[TextContent(text="x")]),
        UserMessage(content="again"),
    ]
    assert convert_messages(model, messages) == [
        {
            "role": "user",
            "parts": [
                {"text": "look"},
                {"inlineData": {"mimeType": "image/png", "data": "aGVsbG8="}},
                {"text": "be careful"},
            ],
        },
        {
            "role": "model",
            "parts": [
                {"text": "pondering"},
                {"text": "Reading."},
                {"functionCall": {"name": "read", "args": {"path": "a"}, "id": "toolu_01_x_y"}},
                {"functionCall": {"name": "read", "args": {"path": "b"}, "id": "toolu_02"}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "read",
                        "response": {"error": "nope"},
                        "id": "toolu_01_x_y",
                    }
                },
                {
                    "functionResponse": {
                        "name": "read",
                        "response": {"error": "No result provided"},
                        "id": "toolu_02",
                    }
                },
                {"text": "go on"},
            ],
        },
        {"role": "model", "parts": [{"text": "Partial"}]},
        {"role": "user", "parts": [{"text": "again"}]},
    ]
    # Gemini 3 needs a signature on every call: foreign calls get the validator skip
    g3 = convert_messages(gemini(), messages[:4])
    assert g3[1]["parts"][2]["thoughtSignature"] == "skip_thought_signature_validator"
    # a text-only model gets no image bytes; tool ids can be left out
    text_only = convert_messages(gemini(input=("text",)), messages[:4], {"sendToolCallIds": False})
    assert text_only[0]["parts"][1] == {
        "text": "(image omitted: this model does not accept images)"
    }
    assert "id" not in text_only[1]["parts"][2]["functionCall"]
    assert "id" not in text_only[2]["parts"][0]["functionResponse"]


def test_tool_result_images():
    call = AssistantMessage(
        provider="google",
        api="google-generative-ai",
        model="gemini-2.5-flash",
        stop_reason="toolUse",
        content=[ToolCall(id="s1", name="shot", arguments={})],
    )
    result = ToolResultMessage(
        tool_call_id="s1",
        tool_name="shot",
        content=[ImageContent(data="aW1n", mime_type="image/jpeg")],
    )
    image = {"inlineData": {"mimeType": "image/jpeg", "data": "aW1n"}}
    older = convert_messages(gemini(model_id="gemini-2.5-flash"), [call, result])
    assert older[1]["parts"] == [
        {
            "functionResponse": {
                "name": "shot",
                "response": {"output": "(see attached image)"},
                "id": "s1",
            }
        },
        {"text": "Tool result image:"},
        image,
    ]
    newer = convert_messages(gemini(), [call, result])
    assert newer[1]["parts"][0]["functionResponse"]["parts"] == [image]


def test_schema_sanitising_of_a_nasty_schema():
    nasty = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Params",
        "type": "object",
        "additionalProperties": False,
        "$defs": {
            "Point": {
                "title": "Point",
                "type": "object",
                "properties": {"x": {"type": "number", "default": 0}, "y": {"type": "number"}},
                "required": ["x", "y"],
            },
            "Tree": {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}},
            },
        },
        "properties": {
            "path": {"type": "string", "format": "uri", "examples": ["a"], "minLength": 1},
            "when": {"type": "string", "format": "date-time"},
            "mode": {"const": "fast"},
            "count": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 9}, {"type": "null"}]},
            "tags": {"type": ["array", "null"], "items": {"type": "string"}, "maxItems": 3},
            "origin": {"$ref": "#/$defs/Point", "description": "start"},
            "tree": {"$ref": "#/$defs/Tree"},
            "extra": {"type": "object", "patternProperties": {"^x": {"type": "string"}}},
            "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "level": {"enum": ["low", "high"], "default": "low"},
        },
        "required": ["path", "ghost"],
    }
    assert sanitize_schema(nasty) == {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "when": {"type": "string", "format": "date-time"},
            "mode": {"type": "string", "enum": ["fast"]},
            "count": {"type": "integer", "minimum": 1, "maximum": 9, "nullable": True},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3, "nullable": True},
            "origin": {
                "type": "object",
                "description": "start",
                "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                "required": ["x", "y"],
            },
            "tree": {
                "type": "object",
                "properties": {
                    "children": {"type": "array", "items": {"type": "object"}},
                },
            },
            "extra": {"type": "object"},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "level": {"type": "string", "enum": ["low", "high"]},
        },
        "required": ["path"],
    }
    flat = json.dumps(sanitize_schema(nasty))
    for banned in ("$ref", "$defs", "$schema", "additionalProperties", "default", "title"):
        assert banned not in flat


# -- faults -----------------------------------------------------------------------------


def test_stream_cut_after_content_is_an_error_without_retry(replay_server, tmp_path):
    provider, model = make_provider(replay_server, tmp_path)
    replay_server.add(
        sse(text_chunk("Hello"), text_chunk(" there"), text_chunk("!", "STOP")),
        headers=SSE,
        cut_after=1,
    )
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    assert types(events)[:3] == ["start", "text_start", "text_delta"]
    assert events[-1]["type"] == "error"
    text = events[-1]["error"].error_message
    assert text.startswith("the stream ended early: connection failed")
    assert "auto_retry_start" not in types(events)
    assert len(replay_server.requests) == 1


def test_clean_end_without_finish_reason_is_incomplete(replay_server, tmp_path):
    provider, model = make_provider(replay_server, tmp_path)
    replay_server.add(sse(text_chunk("Hello")), headers=SSE)
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    assert events[-1]["type"] == "error"
    assert "ended before the response was complete" in events[-1]["error"].error_message


def test_429_then_success_retries(replay_server, tmp_path):
    provider, model = make_provider(replay_server, tmp_path)
    replay_server.add(
        json.dumps({"error": {"code": 429, "message": "Quota", "status": "RESOURCE_EXHAUSTED"}}),
        status=429,
        headers={"content-type": "application/json", "Retry-After": "0"},
    )
    replay_server.add(split_events(fixture_bytes(TURN2)), headers=SSE)
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    kinds = types(events)
    assert kinds[:2] == ["start", "auto_retry_start"]
    assert "Quota" in events[1]["errorMessage"]
    assert kinds[-2:] == ["auto_retry_end", "done"]
    assert events[-1]["message"].text == "The capital of Mexico is Mexico City."
    assert len(replay_server.requests) == 2


def test_in_stream_resource_exhausted_is_retried(replay_server, tmp_path):
    provider, model = make_provider(replay_server, tmp_path)
    error = {
        "error": {"code": 429, "message": "Resource exhausted", "status": "RESOURCE_EXHAUSTED"}
    }
    replay_server.add(sse(error), headers=SSE)
    replay_server.add(sse(text_chunk("ok", "STOP")), headers=SSE)
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    assert "auto_retry_start" in types(events)
    assert events[-1]["type"] == "done" and events[-1]["message"].text == "ok"


def test_idle_stall_times_out(replay_server, tmp_path):
    provider, model = make_provider(replay_server, tmp_path)
    replay_server.add(sse(text_chunk("Hel"), text_chunk("lo", "STOP")), headers=SSE, stall_after=1)
    settings = {"stream": {"idleTimeoutMs": 300}}
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")]), settings=settings)
    assert events[-1]["type"] == "error"
    assert "idle timeout" in events[-1]["error"].error_message
    assert events[-1]["error"].text == "Hel"


def test_invalid_json_tool_arguments_do_not_crash(replay_server, tmp_path):
    # some Gemini-compatible proxies send args as a JSON string; this one is broken
    provider, model = make_provider(replay_server, tmp_path)
    call = {"functionCall": {"name": "read", "args": '{"path": "a.txt", "limit": 4'}}
    bad = {"functionCall": {"name": "read", "args": "{{not json"}}
    chunk = {"candidates": [{"content": {"role": "model", "parts": [call, bad]}}]}
    replay_server.add(sse(chunk, text_chunk("", "STOP")), headers=SSE)
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    assert events[-1]["type"] == "done" and events[-1]["reason"] == "toolUse"
    first, second = events[-1]["message"].tool_calls
    assert first.arguments == {"path": "a.txt", "limit": 4}
    assert second.arguments == {}
    assert first.id != second.id


def test_http_400_explanation_and_key_redacted(replay_server, tmp_path):
    provider, model = make_provider(replay_server, tmp_path)
    body = {
        "error": {
            "code": 400,
            "message": f"API key not valid: {KEY}. Please pass a valid API key.",
            "status": "INVALID_ARGUMENT",
        }
    }
    replay_server.add(json.dumps(body), status=400, headers={"content-type": "application/json"})
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    assert types(events) == ["start", "error"]
    message = events[-1]["error"].error_message
    assert "API key not valid" in message and "HTTP 400" in message
    assert KEY not in message and "[redacted]" in message
    assert len(replay_server.requests) == 1


def test_context_overflow(replay_server, tmp_path):
    provider, model = make_provider(replay_server, tmp_path)
    body = {
        "error": {
            "code": 400,
            "message": "The input token count (1200000) exceeds the maximum number of tokens "
            "allowed (1048576).",
            "status": "INVALID_ARGUMENT",
        }
    }
    replay_server.add(json.dumps(body), status=400, headers={"content-type": "application/json"})
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    error = events[-1]["error"]
    assert error.error_message.startswith("context overflow")
    assert error.error_kind == "context_overflow"


# -- registration -----------------------------------------------------------------------


def test_plugin_registers_google_providers(tmp_path, monkeypatch):
    import omp_llm.config as config
    from omp_provider_google import plugin

    catalogue = {
        "providers": {
            "google": {
                "api": "google-generative-ai",
                "baseUrl": "https://generativelanguage.googleapis.com/v1beta",
                "keyEnv": ["GEMINI_API_KEY"],
                "models": [{"id": "gemini-2.5-flash", "reasoning": True}],
            },
            "other": {"api": "anthropic-messages", "baseUrl": "https://x", "models": []},
        }
    }
    monkeypatch.setattr(config, "_catalogue", lambda: catalogue)
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "proxy": {
                        "api": "google-generative-ai",
                        "baseUrl": "http://127.0.0.1:9/v1beta",
                        "models": [{"id": "gemini-x"}],
                    }
                }
            }
        )
    )
    providers = plugin.omp_register_providers(SimpleNamespace(agent_dir=agent))
    assert sorted(p.name for p in providers) == ["google", "proxy"]
    assert all(p.wire is WIRE for p in providers)


def test_in_stream_error_is_redacted_and_not_retried(replay_server, tmp_path):
    provider, model = make_provider(replay_server, tmp_path)
    error = {"error": {"code": 400, "message": f"bad key {KEY}", "status": "INVALID_ARGUMENT"}}
    replay_server.add(sse(error), headers=SSE)
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    assert types(events) == ["start", "error"]
    message = events[-1]["error"].error_message
    assert message.startswith("INVALID_ARGUMENT: bad key") and KEY not in message


def test_cancel_mid_stream_propagates(replay_server, tmp_path):
    provider, model = make_provider(replay_server, tmp_path)
    replay_server.add(sse(text_chunk("Hel"), text_chunk("lo", "STOP")), headers=SSE, stall_after=1)
    seen: list[str] = []

    async def consume() -> None:
        options = StreamOptions(settings=FAST)
        context = LlmContext("", [UserMessage(content="hi")])
        async for ev in provider.stream(model, context, options):
            seen.append(ev["type"])

    async def main() -> None:
        task = asyncio.create_task(consume())
        while "text_delta" not in seen:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 5)

    asyncio.run(main())
    assert seen == ["start", "text_start", "text_delta"]


def test_entry_point_is_installed():
    from importlib.metadata import entry_points

    names = {ep.name: ep.value for ep in entry_points(group="omp.plugins")}
    assert names.get("google") == "omp_provider_google.plugin"
