"""The openai-completions provider end to end against the loopback replay server: the
recorded OpenAI and Groq streams, Ollama-style streams without [DONE], fault injection,
and the request bodies it sends."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from importlib.metadata import entry_points
from types import SimpleNamespace

import pytest
from omp import (
    AssistantMessage,
    DeveloperMessage,
    ImageContent,
    LlmContext,
    Model,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from omp_llm import config as llm_config
from omp_llm.config import ProviderConfig
from omp_llm.provider import HttpProvider, Request
from omp_provider_openai_completions import plugin
from omp_provider_openai_completions.convert import build_request, tool_call_id
from omp_provider_openai_completions.wire import WIRE, parse_recorded
from replay import fixture_bytes, split_events

API = "openai-completions"
KEY = "test-key-0123456789"
SSE = {"content-type": "text/event-stream"}
FAST = {"retry": {"baseDelayMs": 1}}
OPENAI_0 = "extracted/openai-chat__pydantic-ai__test_run_stream_sync_streams_real_model.0.sse"
OPENAI_1 = "extracted/openai-chat__pydantic-ai__test_run_stream_sync_streams_real_model.1.sse"
GROQ = "extracted/openai-chat__pydantic-ai__groq__test_tool_use_failed_error_streaming.{}.sse"

QUESTION = "What is the capital of the UK? Use the tool, then answer."
GET_CAPITAL = {
    "name": "get_capital",
    "description": "",
    "parameters": {
        "additionalProperties": False,
        "properties": {"country": {"type": "string"}},
        "required": ["country"],
        "type": "object",
    },
}


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(tmp_path / "agent"))


def make(base_url, tmp_path, *, key=KEY, local=False, compat=None, **model_fields):
    fields = {"provider": "openai", "id": "gpt-4o-mini", "api": API, "base_url": base_url}
    fields.update(model_fields)
    model = Model(**fields)
    config = ProviderConfig(
        name=model.provider,
        api=API,
        base_url=base_url,
        models=[model],
        key_env=[] if local else ["OMP_TEST_UNSET_KEY"],
        compat=dict(compat or {}),
        local=local,
    )
    provider = HttpProvider(config, WIRE, tmp_path)
    provider.cli_api_key = key
    return provider, model


def run(provider, model, context, settings=None, **options):
    opts = StreamOptions(settings={**FAST, **(settings or {})}, **options)

    async def collect():
        return [event async for event in provider.stream(model, context, opts)]

    return asyncio.run(collect())


def types(events):
    return [event["type"] for event in events]


def final(events):
    last = events[-1]
    return last["message"] if last["type"] == "done" else last["error"]


def assert_no_key(events, server):
    for event in events:
        if event["type"] == "error":
            assert KEY not in (event["error"].error_message or "")
        if event["type"].startswith("auto_retry"):
            assert KEY not in json.dumps(event)
    for recorded in server.requests:
        assert KEY not in recorded.body.decode()


# -- recorded streams ------------------------------------------------------------------


def test_openai_two_turns_match_the_cassette(replay_server, tmp_path):
    provider, model = make(replay_server.url + "/v1", tmp_path, cost={"input": 0.15, "output": 0.6})
    replay_server.add(split_events(fixture_bytes(OPENAI_0)), headers=SSE)
    replay_server.add(split_events(fixture_bytes(OPENAI_1)), headers=SSE)

    context = LlmContext("", [UserMessage(content=QUESTION)], [GET_CAPITAL])
    events = run(provider, model, context)
    assert types(events) == [
        "start",
        "toolcall_start",
        *["toolcall_delta"] * 5,
        "toolcall_end",
        "done",
    ]
    assert [e["delta"] for e in events if e["type"] == "toolcall_delta"] == [
        '{"',
        "country",
        '":"',
        "UK",
        '"}',
    ]
    turn1 = final(events)
    assert events[-1]["reason"] == "toolUse" and turn1.stop_reason == "toolUse"
    assert turn1.content == [
        ToolCall(
            id="call_ZR5UUuTt3pf61kjwAJIYdVMj", name="get_capital", arguments={"country": "UK"}
        )
    ]
    usage = turn1.usage
    assert (usage.input, usage.output, usage.cache_read, usage.total_tokens) == (53, 15, 0, 68)
    assert usage.cost.total == pytest.approx((53 * 0.15 + 15 * 0.6) / 1e6)

    # The cassette's parsed_body of turn 1, without pydantic-ai's own tool_choice:"auto"
    # and "strict": true (omp sends neither).
    tools = [{"type": "function", "function": GET_CAPITAL}]
    first = replay_server.requests[0]
    assert first.path == "/v1/chat/completions"
    assert first.headers["authorization"] == f"Bearer {KEY}"
    assert first.json == {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": QUESTION}],
        "stream": True,
        "stream_options": {"include_usage": True},
        "tools": tools,
    }

    result = ToolResultMessage(
        tool_call_id="call_ZR5UUuTt3pf61kjwAJIYdVMj",
        tool_name="get_capital",
        content=[TextContent(text="London")],
    )
    context.messages += [turn1, result]
    events = run(provider, model, context)
    words = ["The", " capital", " of", " the", " UK", " is", " London", "."]
    assert types(events) == ["start", "text_start", *["text_delta"] * 8, "text_end", "done"]
    assert [e["delta"] for e in events if e["type"] == "text_delta"] == words
    turn2 = final(events)
    assert turn2.text == "The capital of the UK is London." and turn2.stop_reason == "stop"
    assert (turn2.usage.input, turn2.usage.output, turn2.usage.total_tokens) == (78, 9, 87)
    # Turn 2's parsed_body: the assistant tool_calls and the role "tool" message.
    assert replay_server.requests[1].json == {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "user", "content": QUESTION},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_ZR5UUuTt3pf61kjwAJIYdVMj",
                        "type": "function",
                        "function": {"name": "get_capital", "arguments": '{"country":"UK"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_ZR5UUuTt3pf61kjwAJIYdVMj", "content": "London"},
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
        "tools": tools,
    }
    assert len(replay_server.requests) == 2


def groq(replay_server, tmp_path):
    return make(
        replay_server.url + "/openai/v1",
        tmp_path,
        provider="groq",
        id="openai/gpt-oss-120b",
        reasoning=True,
        compat={"supportsDeveloperRole": False},
    )


def test_groq_midstream_error_after_reasoning_is_surfaced_not_retried(replay_server, tmp_path):
    provider, model = groq(replay_server, tmp_path)
    replay_server.add(split_events(fixture_bytes(GROQ.format(0))), headers=SSE)
    replay_server.add(split_events(fixture_bytes(GROQ.format(1))), headers=SSE)  # never used
    context = LlmContext("Be brief.", [UserMessage(content="Call the tool.")])
    events = run(provider, model, context, thinking_level="medium", max_tokens=512)

    assert types(events)[:3] == ["start", "thinking_start", "thinking_delta"]
    assert types(events)[-1] == "error" and "auto_retry_start" not in types(events)
    message = final(events)
    assert message.stop_reason == "error"
    assert message.error_message.startswith("invalid_request_error: Tool call validation failed")
    assert message.content[0].thinking.startswith("We need to call the tool with invalid")
    assert len(replay_server.requests) == 1
    assert replay_server.requests[0].path == "/openai/v1/chat/completions"
    assert replay_server.requests[0].json == {
        "model": "openai/gpt-oss-120b",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Call the tool."},
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_completion_tokens": 512,
        "reasoning_effort": "medium",
    }


def test_groq_usage_in_x_groq_and_top_level(replay_server, tmp_path):
    provider, model = groq(replay_server, tmp_path)
    replay_server.add(split_events(fixture_bytes(GROQ.format(1))), headers=SSE)
    replay_server.add(split_events(fixture_bytes(GROQ.format(2))), headers=SSE)
    context = LlmContext("", [UserMessage(content="Call the tool.")])

    events = run(provider, model, context, thinking_level="high")
    message = final(events)
    assert types(events)[-5:] == [
        "thinking_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]
    assert message.stop_reason == "toolUse"
    assert message.tool_calls[0].id == "fc_bfb39741-3748-4def-9886-a93fc9c64a90"
    assert message.tool_calls[0].arguments == {"name": "example"}
    assert (message.usage.input, message.usage.output, message.usage.total_tokens) == (
        304,
        49,
        353,
    )
    assert replay_server.requests[0].json["reasoning_effort"] == "high"

    events = run(provider, model, context, thinking_level="high")
    message = final(events)
    assert [block.type for block in message.content] == ["thinking", "text"]
    assert message.text == "The tool returned the expected result for the valid call."
    assert (message.usage.input, message.usage.output) == (339, 58)


def test_parse_recorded_matches_the_live_stream(replay_server, tmp_path):
    provider, model = make(replay_server.url + "/v1", tmp_path)
    for name in (OPENAI_0, OPENAI_1, GROQ.format(2)):
        replay_server.add(split_events(fixture_bytes(name)), headers=SSE)
        live = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
        recorded = parse_recorded(fixture_bytes(name), model)
        assert types(recorded) == types(live)
        assert final(recorded).content == final(live).content
        assert final(recorded).usage.input == final(live).usage.input


# -- Ollama /v1 and other servers -------------------------------------------------------


def chunk(delta=None, finish=None, **extra):
    data = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "qwen2.5-coder:7b",
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}],
        **extra,
    }
    return f"data: {json.dumps(data)}\n\n".encode()


USAGE = b'data: {"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}'


def local(replay_server, tmp_path, **compat):
    return make(
        replay_server.url + "/v1",
        tmp_path,
        key=None,
        local=True,
        compat=compat,
        provider="local",
        id="qwen2.5-coder:7b",
    )


def test_ollama_text_without_done_marker_or_final_blank_line(replay_server, tmp_path):
    provider, model = local(replay_server, tmp_path)
    body = [
        chunk({"role": "assistant", "content": "Hel"}),
        chunk({"content": "lo"}),
        chunk({"content": ""}, "stop"),
        USAGE,  # the last event has no blank line after it
    ]
    replay_server.add(body, headers=SSE)
    events = run(provider, model, LlmContext("sys", [UserMessage(content="hi")]))
    assert types(events) == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    message = final(events)
    assert message.text == "Hello" and message.stop_reason == "stop"
    assert (message.usage.input, message.usage.output) == (10, 2)
    assert "authorization" not in replay_server.requests[0].headers
    assert replay_server.requests[0].json["messages"][0] == {"role": "system", "content": "sys"}


def test_ollama_whole_tool_call_with_finish_reason_stop(replay_server, tmp_path):
    provider, model = local(replay_server, tmp_path)
    call = {"id": "call_x1", "index": 0, "type": "function"}
    call["function"] = {"name": "read", "arguments": '{"path":"a.py"}'}
    replay_server.add(
        [chunk({"role": "assistant", "content": "", "tool_calls": [call]}), chunk({}, "stop")],
        headers=SSE,
    )
    events = run(provider, model, LlmContext("", [UserMessage(content="read a.py")]))
    message = final(events)
    assert events[-1]["reason"] == "toolUse"
    assert message.tool_calls == [ToolCall(id="call_x1", name="read", arguments={"path": "a.py"})]


def test_stream_ending_without_finish_reason_is_an_early_end(replay_server, tmp_path):
    provider, model = local(replay_server, tmp_path)
    replay_server.add([chunk({"content": "Half an ans"})], headers=SSE)
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    message = final(events)
    assert types(events)[-1] == "error" and "auto_retry_start" not in types(events)
    assert "ended early" in message.error_message
    assert message.text == "Half an ans"
    assert len(replay_server.requests) == 1


def test_interleaved_tool_calls_keep_one_block_per_index(replay_server, tmp_path):
    provider, model = make(replay_server.url + "/v1", tmp_path)

    def call(index, fragment, call_id=None, name=None):
        entry = {"index": index, "function": {"arguments": fragment}}
        if call_id:
            entry.update(id=call_id, type="function")
            entry["function"]["name"] = name
        return chunk({"tool_calls": [entry]})

    replay_server.add(
        [
            call(0, '{"x":', "call_a", "first"),
            call(1, '{"y":', "call_b", "second"),
            call(0, "1}"),
            call(1, "2}"),
            chunk({}, "tool_calls"),
            b"data: [DONE]\n\n",
        ],
        headers=SSE,
    )
    events = run(provider, model, LlmContext("", [UserMessage(content="go")]))
    message = final(events)
    assert message.tool_calls == [
        ToolCall(id="call_a", name="first", arguments={"x": 1}),
        ToolCall(id="call_b", name="second", arguments={"y": 2}),
    ]
    deltas = [(e["contentIndex"], e["delta"]) for e in events if e["type"] == "toolcall_delta"]
    assert deltas == [(0, '{"x":'), (1, '{"y":'), (0, "1}"), (1, "2}")]


def test_think_tags_in_content_become_thinking(replay_server, tmp_path):
    provider, model = local(replay_server, tmp_path)
    pieces = ["<th", "ink>reason", "ing</thi", "nk>\n\nAns", "wer"]
    replay_server.add([chunk({"content": p}) for p in pieces] + [chunk({}, "stop")], headers=SSE)
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    message = final(events)
    assert message.content == [ThinkingContent(thinking="reasoning"), TextContent(text="Answer")]
    assert types(events)[1:4] == ["thinking_start", "thinking_delta", "thinking_delta"]


def test_reasoning_content_field_and_custom_reasoning_field(replay_server, tmp_path):
    provider, model = make(replay_server.url + "/v1", tmp_path, compat={"reasoningField": "think"})
    replay_server.add(
        [
            chunk({"reasoning_content": "hmm"}),
            chunk({"think": " more"}),
            chunk({"content": "ok"}),
            chunk({}, "stop"),
        ],
        headers=SSE,
    )
    message = final(run(provider, model, LlmContext("", [UserMessage(content="hi")])))
    assert message.content == [ThinkingContent(thinking="hmm more"), TextContent(text="ok")]


def test_refusal_is_text(replay_server, tmp_path):
    provider, model = make(replay_server.url + "/v1", tmp_path)
    replay_server.add(
        [chunk({"refusal": "I can't help with that."}), chunk({}, "stop")], headers=SSE
    )
    message = final(run(provider, model, LlmContext("", [UserMessage(content="hi")])))
    assert message.text == "I can't help with that." and message.stop_reason == "stop"


# -- faults -------------------------------------------------------------------------------


def test_stream_cut_mid_event_after_content_is_an_error_without_retry(replay_server, tmp_path):
    provider, model = make(replay_server.url + "/v1", tmp_path)
    events = split_events(fixture_bytes(OPENAI_1))
    chunks = [*events[:4], events[4][:40], events[4][40:], *events[5:]]
    replay_server.add(chunks, headers=SSE, cut_after=5)  # the cut falls inside event 5
    replay_server.add(split_events(fixture_bytes(OPENAI_1)), headers=SSE)  # must not be used
    result = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    message = final(result)
    assert types(result)[-1] == "error" and "auto_retry_start" not in types(result)
    assert "ended early" in message.error_message
    assert message.text == "The capital of"
    assert len(replay_server.requests) == 1


def test_429_with_retry_after_zero_is_retried(replay_server, tmp_path):
    provider, model = make(replay_server.url + "/v1", tmp_path)
    limited = {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate"}}
    replay_server.add(json.dumps(limited), status=429, headers={"retry-after": "0"})
    replay_server.add(split_events(fixture_bytes(OPENAI_1)), headers=SSE)
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    assert types(events)[:2] == ["start", "auto_retry_start"]
    assert events[1]["delayMs"] == 0 and "Rate limit reached" in events[1]["errorMessage"]
    assert types(events)[-2:] == ["auto_retry_end", "done"]
    assert final(events).text == "The capital of the UK is London."
    assert len(replay_server.requests) == 2
    assert_no_key(events, replay_server)


def test_idle_timeout_after_the_first_chunk(replay_server, tmp_path):
    provider, model = make(replay_server.url + "/v1", tmp_path)
    events = split_events(fixture_bytes(OPENAI_1))
    replay_server.add([events[0] + events[1], *events[2:]], headers=SSE, stall_after=1)
    settings = {"stream": {"idleTimeoutMs": 300}}
    result = run(provider, model, LlmContext("", [UserMessage(content="hi")]), settings)
    message = final(result)
    assert types(result)[-1] == "error"
    assert "idle timeout" in message.error_message
    assert message.text == "The"
    assert len(replay_server.requests) == 1


def test_invalid_json_in_tool_call_deltas_does_not_crash(replay_server, tmp_path):
    provider, model = make(replay_server.url + "/v1", tmp_path)
    first = {"index": 0, "id": "call_1", "type": "function"}
    first["function"] = {"name": "bash", "arguments": '{"command": "ls'}
    second = {"index": 0, "function": {"arguments": '"}}}, not json'}}
    third = {"index": 1, "id": "call_2", "type": "function"}
    third["function"] = {"name": "bash", "arguments": "%%% nonsense"}
    replay_server.add(
        [
            chunk({"tool_calls": [first]}),
            chunk({"tool_calls": [second]}),
            chunk({"tool_calls": [third]}),
            chunk({}, "tool_calls"),
            b"data: [DONE]\n\n",
        ],
        headers=SSE,
    )
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    message = final(events)
    assert events[-1]["type"] == "done" and events[-1]["reason"] == "toolUse"
    assert message.tool_calls[0].arguments == {"command": "ls"}  # shown, never run
    assert message.tool_calls[1].arguments == {}
    for call in message.tool_calls:
        assert call.arguments_error.startswith("Tool call arguments are not valid JSON (")


def test_http_400_explanation_is_in_the_error(replay_server, tmp_path):
    provider, model = make(replay_server.url + "/v1", tmp_path)
    body = {
        "error": {
            "message": "Invalid schema for function 'get_capital': 'object' is not valid",
            "type": "invalid_request_error",
            "param": "tools[0].function.parameters",
            "code": "invalid_function_parameters",
        }
    }
    replay_server.add(json.dumps(body), status=400, headers={"content-type": "application/json"})
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")], [GET_CAPITAL]))
    message = final(events)
    assert types(events) == ["start", "error"]
    assert message.error_message == (
        "HTTP 400 invalid_request_error: Invalid schema for function 'get_capital': "
        "'object' is not valid"
    )
    assert message.error_status == 400
    assert len(replay_server.requests) == 1


def test_context_overflow_400(replay_server, tmp_path):
    provider, model = make(replay_server.url + "/v1", tmp_path)
    body = {
        "error": {
            "message": "This model's maximum context length is 128000 tokens. However, your "
            "messages resulted in 130542 tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }
    replay_server.add(json.dumps(body), status=400, headers={"content-type": "application/json"})
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    message = final(events)
    assert message.error_message.startswith("context overflow")
    assert message.error_kind == "context_overflow"
    assert "maximum context length is 128000 tokens" in message.error_message


def test_404_names_the_url_and_hints_at_the_route(replay_server, tmp_path):
    provider, model = make(replay_server.url, tmp_path, provider="my-vllm")
    replay_server.add("404 page not found", status=404, headers={"content-type": "text/plain"})
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    text = final(events).error_message
    assert f"{replay_server.url}/chat/completions answered 404" in text
    assert "is the baseUrl missing /v1?" in text and "404 page not found" in text
    assert len(replay_server.requests) == 1


def test_404_model_not_found_stays_a_model_error(replay_server, tmp_path):
    provider, model = make(replay_server.url + "/v1", tmp_path, id="gpt-9")
    body = {"error": {"message": "The model `gpt-9` does not exist", "code": "model_not_found"}}
    replay_server.add(json.dumps(body), status=404)
    text = final(run(provider, model, LlmContext("", [UserMessage(content="hi")]))).error_message
    assert text.startswith("HTTP 404 model_not_found: The model `gpt-9` does not exist")
    assert f"answered by {replay_server.url}/v1/chat/completions" in text


def test_api_key_only_in_the_header_and_never_in_errors(replay_server, tmp_path):
    provider, model = make(replay_server.url + "/v1", tmp_path)
    body = {"error": {"message": f"Incorrect API key provided: {KEY}.", "type": "auth_error"}}
    replay_server.add(json.dumps(body), status=401)
    events = run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    message = final(events)
    assert "Incorrect API key provided: [redacted]" in message.error_message
    assert replay_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert_no_key(events, replay_server)


def test_auth_header_off_sends_no_authorization(replay_server, tmp_path):
    provider, model = make(replay_server.url + "/v1", tmp_path)
    provider.config.auth_header = False
    provider.config.headers = {"x-api-key": "literal-header-value"}
    replay_server.add(split_events(fixture_bytes(OPENAI_1)), headers=SSE)
    run(provider, model, LlmContext("", [UserMessage(content="hi")]))
    headers = replay_server.requests[0].headers
    assert "authorization" not in headers and headers["x-api-key"] == "literal-header-value"


def test_cancelling_the_task_propagates(replay_server, tmp_path):
    provider, model = make(replay_server.url + "/v1", tmp_path)
    events = split_events(fixture_bytes(OPENAI_1))
    replay_server.add([events[0] + events[1], *events[2:]], headers=SSE, stall_after=1)
    seen = []

    async def consume():
        async for event in provider.stream(
            model, LlmContext("", [UserMessage(content="hi")]), StreamOptions(settings=FAST)
        ):
            seen.append(event["type"])

    async def main():
        task = asyncio.create_task(consume())
        while "text_delta" not in seen:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(asyncio.wait_for(main(), 10))
    assert seen[-1] == "text_delta"


# -- request bodies ---------------------------------------------------------------------


def body_for(tmp_path, messages, *, system="", tools=(), compat=None, options=None, **fields):
    provider, model = make("http://127.0.0.1:9/v1", tmp_path, compat=compat, **fields)
    context = LlmContext(system, list(messages), list(tools))
    request = Request(provider, model, context, options or StreamOptions(), KEY, {})
    return build_request(request)


PNG = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
LONG_ID = "call_abcdefghijklmnopqrstuvwx|fc_0123456789abcdef0123456789abcdef"


def history(stop_reason="toolUse"):
    return [
        UserMessage(content=[TextContent(text="Look:"), PNG]),
        AssistantMessage(
            provider="anthropic",
            api="anthropic-messages",
            model="claude",
            stop_reason=stop_reason,
            content=[
                ThinkingContent(thinking="secret plan", thinking_signature="sig=="),
                TextContent(text="Reading it."),
                ToolCall(id=LONG_ID, name="read", arguments={"path": "é.png"}),
            ],
        ),
        ToolResultMessage(
            tool_call_id=LONG_ID,
            tool_name="read",
            content=[TextContent(text="binary file"), PNG],
            is_error=True,
        ),
        DeveloperMessage(content="Stay on task."),
        UserMessage(content="Go on."),
    ]


def test_body_reasoning_model_with_images_other_provider_history(tmp_path):
    options = StreamOptions(thinking_level="xhigh", max_tokens=1000)
    body = body_for(
        tmp_path,
        history(),
        system="You are omp.",
        options=options,
        id="o4-mini",
        reasoning=True,
        input=("text", "image"),
    )
    short = tool_call_id(LONG_ID)
    assert len(short) == 40 and short.startswith("call_abcdefghijklmnopqrstuvwx_f_")
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    assert body == {
        "model": "o4-mini",
        "messages": [
            {"role": "developer", "content": "You are omp."},
            {"role": "user", "content": [{"type": "text", "text": "Look:"}, image]},
            {
                "role": "assistant",
                "content": "Reading it.",
                "tool_calls": [
                    {
                        "id": short,
                        "type": "function",
                        "function": {"name": "read", "arguments": '{"path":"é.png"}'},
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": short,
                "content": "Error: binary file\n(1 image(s) attached in the next message)",
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Images returned by the tool call(s) above:"},
                    image,
                ],
            },
            {"role": "developer", "content": "Stay on task."},
            {"role": "user", "content": "Go on."},
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_completion_tokens": 1000,
        "reasoning_effort": "high",
    }


def test_body_mistral_style_compat(tmp_path):
    compat = {
        "toolCallIdLength": 9,
        "requiresToolResultName": True,
        "maxTokensField": "max_tokens",
        "supportsUsageInStreaming": False,
        "supportsDeveloperRole": False,
    }
    tool = {"name": "read", "description": "Read a file", "parameters": {"type": "object"}}
    body = body_for(
        tmp_path,
        history(),
        system="sys",
        tools=[tool],
        compat=compat,
        options=StreamOptions(max_tokens=64),
        provider="mistral",
        id="devstral",
        reasoning=True,
    )
    messages = body["messages"]
    call_id = messages[2]["tool_calls"][0]["id"]
    assert len(call_id) == 9 and call_id.isalnum()
    assert call_id == tool_call_id(LONG_ID, 9) != tool_call_id(LONG_ID + "x", 9)
    assert messages[3] == {
        "role": "tool",
        "tool_call_id": call_id,
        "content": "Error: binary file\n(image omitted: this model does not accept images)",
        "name": "read",
    }
    assert messages[0] == {"role": "system", "content": "sys"}
    assert messages[1]["content"][1] == {
        "type": "text",
        "text": "(image omitted: this model does not accept images)",
    }
    assert messages[4] == {"role": "system", "content": "Stay on task."}
    assert "stream_options" not in body and body["max_tokens"] == 64
    assert "max_completion_tokens" not in body
    assert body["tools"] == [{"type": "function", "function": tool}]
    assert "reasoning_effort" not in body  # thinking off by default


def test_body_failed_assistant_drops_tool_calls_and_their_results(tmp_path):
    messages = history("error")
    messages.insert(2, UserMessage(content="retry please"))
    body = body_for(tmp_path, messages)
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "user", "system", "user"]
    assert body["messages"][1] == {"role": "assistant", "content": "Reading it."}

    aborted = AssistantMessage(stop_reason="aborted", content=[ToolCall(id="c", name="x")])
    body = body_for(tmp_path, [UserMessage(content="hi"), aborted, UserMessage(content="again")])
    assert [m["role"] for m in body["messages"]] == ["user", "user"]


def test_body_unanswered_tool_call_gets_a_placeholder_result(tmp_path):
    calls = AssistantMessage(
        content=[ToolCall(id="c1", name="a"), ToolCall(id="c2", name="b", arguments={"n": 1})]
    )
    answer = ToolResultMessage(tool_call_id="c2", tool_name="b", content=[])
    stray = ToolResultMessage(tool_call_id="zzz", tool_name="b", content=[TextContent(text="?")])
    body = body_for(tmp_path, [UserMessage(content="hi"), calls, answer, stray])
    assert body["messages"][2:] == [
        {"role": "tool", "tool_call_id": "c2", "content": "(no output)"},
        {"role": "tool", "tool_call_id": "c1", "content": "No result provided"},
    ]


@pytest.mark.parametrize(
    ("compat", "fields", "level", "expected"),
    [
        ({}, {"reasoning": True}, "minimal", {"reasoning_effort": "minimal"}),
        ({}, {"reasoning": True}, "off", {}),
        ({}, {"reasoning": False}, "high", {}),
        ({"supportsReasoningEffort": False}, {"reasoning": True}, "high", {}),
        (
            {"thinkingFormat": "openrouter"},
            {"reasoning": True},
            "low",
            {"reasoning": {"effort": "low"}},
        ),
        ({"thinkingFormat": "qwen"}, {"reasoning": True}, "medium", {"enable_thinking": True}),
        ({"thinkingFormat": "qwen"}, {"reasoning": True}, "off", {"enable_thinking": False}),
        (
            {},
            {"reasoning": True, "thinking_level_map": {"xhigh": "xhigh", "minimal": None}},
            "xhigh",
            {"reasoning_effort": "xhigh"},
        ),
        ({}, {"reasoning": True, "thinking_level_map": {"minimal": None}}, "minimal", {}),
    ],
)
def test_body_thinking_mapping(tmp_path, compat, fields, level, expected):
    body = body_for(
        tmp_path,
        [UserMessage(content="hi")],
        compat=compat,
        options=StreamOptions(thinking_level=level),
        **fields,
    )
    keys = {"reasoning_effort", "reasoning", "enable_thinking", "thinking"}
    assert {k: v for k, v in body.items() if k in keys} == expected


# -- the plugin -------------------------------------------------------------------------


def test_plugin_registers_only_openai_completions_providers(tmp_path, monkeypatch):
    catalogue = {
        "providers": {
            "openai": {
                "api": API,
                "baseUrl": "https://api.openai.com/v1",
                "keyEnv": ["OPENAI_API_KEY"],
                "models": [{"id": "gpt-4o-mini"}],
            },
            "anthropic": {
                "api": "anthropic-messages",
                "baseUrl": "https://api.anthropic.com",
                "models": [{"id": "claude"}],
            },
        }
    }
    monkeypatch.setattr(llm_config, "_catalogue", lambda: catalogue)
    agent = tmp_path / "agent"
    agent.mkdir()
    custom = {"baseUrl": "http://127.0.0.1:8000/v1", "api": API, "models": [{"id": "qwen3"}]}
    (agent / "models.json").write_text(json.dumps({"providers": {"vllm": custom}}))
    providers = plugin.omp_register_providers(SimpleNamespace(agent_dir=agent))
    assert sorted(p.name for p in providers) == ["openai", "vllm"]
    assert all(isinstance(p, HttpProvider) and p.wire is WIRE for p in providers)
    names = {ep.name: ep.value for ep in entry_points(group="omp.plugins")}
    assert names["openai_completions"] == "omp_provider_openai_completions.plugin"


def test_plugin_module_is_cheap_to_import():
    code = (
        "import sys, omp; before = set(sys.modules); "
        "import omp_provider_openai_completions.plugin; "
        "loaded = set(sys.modules) - before; "
        "heavy = {'httpx', 'pydantic', 'omp_provider_openai_completions.wire'} & loaded; "
        "assert not heavy, heavy"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
