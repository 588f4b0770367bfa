"""Fault injection shared by every provider (issue 8, items 2, 9 and 10).

A tool call the stream cut off is never run; complete but invalid arguments are an
error unless a documented repair applies; a finished answer is not lost to a connection
left open; retries are bounded in time, quick against a dead local server, and reported.
The loopback replay server (tests/replay.py) plays the faulty servers.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from typing import Any

import omp
import pytest
from omp import LlmContext, Model, StreamOptions, Tool, ToolResult, UserMessage
from omp.testing import CUT_OFF_TEXT
from omp_llm.config import ProviderConfig
from omp_llm.provider import HttpProvider
from omp_provider_anthropic.wire import WIRE as ANTHROPIC
from omp_provider_google.wire import WIRE as GOOGLE
from omp_provider_openai_completions.wire import WIRE as COMPLETIONS
from omp_provider_openai_responses.wire import WIRE as RESPONSES
from pydantic import BaseModel

KEY = "test-key-0123456789abcdef"
SSE = {"content-type": "text/event-stream"}
FAST = {"retry": {"baseDelayMs": 1}}
WIRES = {
    "openai-completions": (COMPLETIONS, "/v1"),
    "anthropic-messages": (ANTHROPIC, ""),
    "openai-responses": (RESPONSES, "/v1"),
    "google-generative-ai": (GOOGLE, "/v1beta"),
}


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(tmp_path / "agent"))


# -- helpers ----------------------------------------------------------------------------


def provider_at(base: str, api: str, tmp_path) -> tuple[HttpProvider, Model]:
    wire, suffix = WIRES[api]
    model = Model(provider="fault", id="model-1", api=api, base_url=base + suffix)
    config = ProviderConfig(
        name="fault", api=api, base_url=base + suffix, models=[model], key_env=["FAULT_KEY"]
    )
    provider = HttpProvider(config, wire, tmp_path / "agent")
    provider.cli_api_key = KEY
    return provider, model


def stream(provider, model, settings=None) -> tuple[list[dict[str, Any]], float]:
    options = StreamOptions(settings={**FAST, **(settings or {})})
    context = LlmContext("", [UserMessage(content="go")])

    async def collect():
        return [event async for event in provider.stream(model, context, options)]

    started = time.monotonic()
    events = asyncio.run(collect())
    return events, time.monotonic() - started


def final(events):
    last = events[-1]
    return last["message"] if last["type"] == "done" else last["error"]


def types(events) -> list[str]:
    return [event["type"] for event in events]


def data(*objects: Any) -> list[bytes]:
    return [f"data: {json.dumps(o)}\n\n".encode() for o in objects]


def named(*objects: dict[str, Any]) -> list[bytes]:
    return [f"event: {o['type']}\ndata: {json.dumps(o)}\n\n".encode() for o in objects]


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def call(index: int, arguments: str, name: str | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if name:
        entry.update(id=f"call_{index}", type="function")
        entry["function"]["name"] = name
    return chunk({"tool_calls": [entry]})


USAGE = {"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 4}}
DONE = b"data: [DONE]\n\n"


def answer(text: str) -> list[bytes]:
    return [*data(chunk({"role": "assistant", "content": text}), chunk({}, "stop"), USAGE), DONE]


def dead_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# -- the agent loop with a real provider: what runs and what the model is told ----------


class PathArgs(BaseModel):
    path: str


class Touch:
    """A plugin with one tool, ``touch``, that records every path it was run with."""

    def __init__(self) -> None:
        self.ran: list[str] = []

        def execute(call_id, params, signal, on_update, ctx):
            self.ran.append(params.path)
            return ToolResult.text(f"touched {params.path}", details={"path": params.path})

        self.tool = Tool(name="touch", parameters=PathArgs, execute=execute)

    @omp.hookimpl
    def omp_register_tools(self, api):
        return [self.tool]


def run_agent(omp_harness, monkeypatch, server, *replies: list[bytes], **options) -> tuple:
    """Run one prompt against the completions provider at ``server``, which answers
    each request with the next reply; the tool plugin and the event log."""
    models = {
        "providers": {
            "fault": {
                "baseUrl": server.url + "/v1",
                "api": "openai-completions",
                "apiKey": "FAULT_KEY",
                "models": [{"id": "model-1"}],
            }
        }
    }
    (omp_harness.agent_dir / "models.json").write_text(json.dumps(models))
    monkeypatch.setenv("FAULT_KEY", KEY)
    monkeypatch.setenv("OMP_SETTINGS", json.dumps(FAST))
    for reply in replies:
        server.add(reply, headers=SSE, **options)
    touch = Touch()
    session = omp_harness.session(plugins=[touch], model="fault/model-1")
    log = omp_harness.run(session, "touch the file")
    return touch, log


def tool_results(log) -> list[Any]:
    return [
        e.message for e in log.of("message_end") if getattr(e.message, "role", "") == "toolResult"
    ]


def result_text(message) -> str:
    return "".join(block.text for block in message.content)


def sent_tool_messages(server, request: int) -> list[dict[str, Any]]:
    return [m for m in server.requests[request].json["messages"] if m["role"] == "tool"]


def test_a_call_cut_by_the_output_limit_is_not_run(omp_harness, monkeypatch, replay_server):
    cut = data(
        chunk({"role": "assistant", "content": ""}),
        call(0, "", "touch"),
        call(0, '{"path": "build/ou'),
        chunk({}, "length"),
        USAGE,
    )
    touch, log = run_agent(
        omp_harness, monkeypatch, replay_server, [*cut, DONE], answer("I will retry.")
    )
    assert touch.ran == []
    [result] = tool_results(log)
    assert result.is_error and result_text(result) == CUT_OFF_TEXT
    assistant = next(e.message for e in log.of("message_end") if e.message.role == "assistant")
    assert assistant.stop_reason == "length"
    assert assistant.tool_calls[0].arguments_error == CUT_OFF_TEXT
    # the model is told, and may try again
    assert sent_tool_messages(replay_server, 1)[0]["content"] == f"Error: {CUT_OFF_TEXT}"
    assert log.final_text() == "I will retry."


def test_unterminated_arguments_are_not_run_even_when_the_server_says_tool_calls(
    omp_harness, monkeypatch, replay_server
):
    cut = data(
        call(0, '{"path": "rm -rf build', "touch"),
        chunk({}, "tool_calls"),
        USAGE,
    )
    touch, log = run_agent(omp_harness, monkeypatch, replay_server, [*cut, DONE], answer("ok"))
    assert touch.ran == []
    [result] = tool_results(log)
    assert result.is_error and result_text(result) == CUT_OFF_TEXT


def test_a_stream_ending_mid_call_runs_nothing_and_says_the_call_was_cut(
    omp_harness, monkeypatch, replay_server
):
    cut = data(call(0, '{"path": "a.txt"}', "touch"), call(1, '{"path": "b.t', "touch"))
    touch, log = run_agent(omp_harness, monkeypatch, replay_server, cut)
    assert touch.ran == []
    results = tool_results(log)
    assert [r.tool_call_id for r in results] == ["call_0", "call_1"]  # one result each
    assert all(r.is_error for r in results)
    assert result_text(results[1]) == CUT_OFF_TEXT
    assert len(replay_server.requests) == 1


def test_complete_but_invalid_json_is_an_error_result(omp_harness, monkeypatch, replay_server):
    broken = data(
        call(0, '{"path": "a.txt", "mode": \'x\'}', "touch"), chunk({}, "tool_calls"), USAGE
    )
    touch, log = run_agent(omp_harness, monkeypatch, replay_server, [*broken, DONE], answer("ok"))
    assert touch.ran == []
    [result] = tool_results(log)
    assert result.is_error
    assert result_text(result).startswith("Tool call arguments are not valid JSON (")
    assert "was not run" in result_text(result)


def test_extra_closing_braces_are_repaired_and_the_repair_is_reported(
    omp_harness, monkeypatch, replay_server
):
    extra = data(call(0, '{"path": "a.txt"}}', "touch"), chunk({}, "tool_calls"), USAGE)
    touch, log = run_agent(omp_harness, monkeypatch, replay_server, [*extra, DONE], answer("ok"))
    assert touch.ran == ["a.txt"]
    [result] = tool_results(log)
    assert not result.is_error
    assert result.details["path"] == "a.txt"
    assert "closing" in result.details["argumentsRepair"]


def test_the_complete_call_before_a_cut_one_runs(omp_harness, monkeypatch, replay_server):
    body = data(
        call(0, '{"path": "first.txt"}', "touch"),
        call(1, '{"path": "sec', "touch"),
        chunk({}, "length"),
        USAGE,
    )
    touch, log = run_agent(omp_harness, monkeypatch, replay_server, [*body, DONE], answer("ok"))
    assert touch.ran == ["first.txt"]
    first, second = tool_results(log)
    assert not first.is_error and result_text(first) == "touched first.txt"
    assert second.is_error and result_text(second) == CUT_OFF_TEXT


def test_the_scripted_provider_goes_through_the_same_rule(omp_harness):
    touch = Touch()
    script = [
        {"tool_calls": [{"name": "touch", "arguments": {"path": "x"}}], "stop_reason": "length"},
        {"text": "fine"},
    ]
    session = omp_harness.session(plugins=[touch], script=script)
    log = omp_harness.run(session, "go")
    assert touch.ran == []
    [result] = tool_results(log)
    assert result_text(result) == CUT_OFF_TEXT


# -- every provider marks what the stream cut off ----------------------------------------


def test_anthropic_tool_block_open_at_max_tokens_is_cut_off(replay_server, tmp_path):
    replay_server.add(
        named(
            {"type": "message_start", "message": {"usage": {"input_tokens": 5}}},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "toolu_1", "name": "touch"},
            },
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {}},
            {"type": "message_stop"},
        ),
        headers=SSE,
    )
    provider, model = provider_at(replay_server.url, "anthropic-messages", tmp_path)
    events, _ = stream(provider, model)
    message = final(events)
    assert message.stop_reason == "length"
    # the block stopped with no input at all: the limit hit before the arguments came
    assert message.tool_calls[0].arguments_error == CUT_OFF_TEXT


def test_anthropic_complete_call_then_text_cut_keeps_the_call(replay_server, tmp_path):
    replay_server.add(
        named(
            {"type": "message_start", "message": {"usage": {"input_tokens": 5}}},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "toolu_1", "name": "touch"},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": '{"path": "a"}'},
            },
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_start", "index": 1, "content_block": {"type": "text"}},
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "text_delta", "text": "and"},
            },
            {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {}},
            {"type": "message_stop"},
        ),
        headers=SSE,
    )
    provider, model = provider_at(replay_server.url, "anthropic-messages", tmp_path)
    message = final(stream(provider, model)[0])
    assert message.tool_calls[0].arguments == {"path": "a"}
    assert message.tool_calls[0].arguments_error is None


def test_responses_call_open_at_max_output_tokens_is_cut_off(replay_server, tmp_path):
    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "touch"}
    replay_server.add(
        named(
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {
                "type": "response.function_call_arguments.delta",
                "item_id": "fc_1",
                "delta": '{"path": "a.txt"}',
            },
            {
                "type": "response.incomplete",
                "response": {
                    "status": "incomplete",
                    "incomplete_details": {"reason": "max_output_tokens"},
                    "usage": {"input_tokens": 3, "output_tokens": 9},
                },
            },
        ),
        headers=SSE,
    )
    provider, model = provider_at(replay_server.url, "openai-responses", tmp_path)
    message = final(stream(provider, model)[0])
    assert message.stop_reason == "length"
    assert message.tool_calls[0].arguments_error == CUT_OFF_TEXT


def test_google_whole_call_is_complete(replay_server, tmp_path):
    part = {"functionCall": {"name": "touch", "args": {"path": "a.txt"}}}
    body = {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2},
    }
    replay_server.add(data(body), headers=SSE)
    provider, model = provider_at(replay_server.url, "google-generative-ai", tmp_path)
    message = final(stream(provider, model)[0])
    assert message.stop_reason == "toolUse"
    assert message.tool_calls[0].arguments == {"path": "a.txt"}
    assert message.tool_calls[0].arguments_error is None


# -- a finished answer on a connection left open (item 9) ---------------------------------


def test_completions_finished_with_usage_but_no_done_completes_at_once(replay_server, tmp_path):
    body = data(chunk({"role": "assistant", "content": "All done."}), chunk({}, "stop"), USAGE)
    replay_server.add(body, headers=SSE, stall_after=len(body))
    provider, model = provider_at(replay_server.url, "openai-completions", tmp_path)
    events, elapsed = stream(provider, model, {"stream": {"idleTimeoutMs": 20_000}})
    message = final(events)
    assert events[-1]["type"] == "done", message.error_message
    assert message.text == "All done." and message.usage.output == 4
    assert elapsed < 5


def test_completions_finished_without_usage_completes_after_a_short_grace(replay_server, tmp_path):
    body = data(chunk({"role": "assistant", "content": "All done."}), chunk({}, "stop"))
    replay_server.add(body, headers=SSE, stall_after=len(body))
    provider, model = provider_at(replay_server.url, "openai-completions", tmp_path)
    events, _ = stream(provider, model, {"stream": {"idleTimeoutMs": 500}})
    assert events[-1]["type"] == "done", final(events).error_message
    assert final(events).text == "All done."
    assert "auto_retry_start" not in types(events)


def test_completions_connection_dropped_after_the_finish_is_complete(replay_server, tmp_path):
    body = data(chunk({"role": "assistant", "content": "All done."}), chunk({}, "stop"), USAGE)
    replay_server.add(body, headers=SSE, cut_after=len(body))
    provider, model = provider_at(replay_server.url, "openai-completions", tmp_path)
    events, _ = stream(provider, model)
    assert events[-1]["type"] == "done", final(events).error_message
    assert final(events).text == "All done."


def test_google_finished_chunk_on_an_open_connection_completes(replay_server, tmp_path):
    body = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "Hi."}]}, "finishReason": "STOP"}
        ],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2},
    }
    replay_server.add(data(body), headers=SSE, stall_after=1)
    provider, model = provider_at(replay_server.url, "google-generative-ai", tmp_path)
    events, elapsed = stream(provider, model, {"stream": {"idleTimeoutMs": 20_000}})
    assert events[-1]["type"] == "done", final(events).error_message
    assert final(events).text == "Hi." and elapsed < 5


def test_anthropic_stop_reason_without_message_stop_completes(replay_server, tmp_path):
    body = named(
        {"type": "message_start", "message": {"usage": {"input_tokens": 5}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi."}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 2},
        },
    )
    replay_server.add(body, headers=SSE, stall_after=len(body))
    provider, model = provider_at(replay_server.url, "anthropic-messages", tmp_path)
    events, _ = stream(provider, model, {"stream": {"idleTimeoutMs": 500}})
    assert events[-1]["type"] == "done", final(events).error_message
    assert final(events).text == "Hi." and final(events).usage.output == 2


# -- retries: bounded, quick against a dead local server, reported (item 10) --------------


def test_refused_loopback_connection_fails_after_one_quick_retry(tmp_path):
    base = f"http://127.0.0.1:{dead_port()}"
    provider, model = provider_at(base, "openai-completions", tmp_path)
    settings = {"retry": {"baseDelayMs": 200, "maxRetries": 4}}
    events, elapsed = stream(provider, model, settings)
    retries = [e for e in events if e["type"] == "auto_retry_start"]
    assert len(retries) == 1
    assert retries[0]["maxAttempts"] == 1
    assert "connection refused" in retries[0]["errorMessage"]
    message = final(events)
    assert events[-1]["type"] == "error"
    assert f"{base}/v1/chat/completions" in message.error_message
    assert "connection refused" in message.error_message
    assert elapsed < 2


def test_a_stalled_stream_is_not_retried_past_the_time_budget(replay_server, tmp_path):
    role_only = data(chunk({"role": "assistant", "content": ""}))
    for _ in range(11):
        replay_server.add(role_only, headers=SSE, stall_after=1)
    provider, model = provider_at(replay_server.url, "openai-completions", tmp_path)
    settings = {"stream": {"idleTimeoutMs": 200}, "retry": {"baseDelayMs": 1, "maxTotalMs": 500}}
    events, elapsed = stream(provider, model, settings)
    assert events[-1]["type"] == "error"
    assert "idle timeout" in final(events).error_message
    assert 2 <= len(replay_server.requests) <= 4
    assert elapsed < 2


def test_a_retry_after_beyond_the_budget_fails_at_once(replay_server, tmp_path):
    limited = json.dumps({"error": {"message": "slow down", "type": "rate_limit_error"}})
    replay_server.add(limited, status=429, headers={"retry-after": "30"})
    provider, model = provider_at(replay_server.url, "openai-completions", tmp_path)
    events, elapsed = stream(provider, model, {"retry": {"maxTotalMs": 1000}})
    assert types(events) == ["start", "error"]
    assert "slow down" in final(events).error_message
    assert len(replay_server.requests) == 1 and elapsed < 5


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://localhost:11434/v1", True),
        ("http://127.8.9.10:8000", True),
        ("http://[::1]:8080/v1", True),
        ("https://api.openai.com/v1", False),
        ("http://10.0.0.5:8000/v1", False),
        ("http://localhost.example.com/v1", False),
    ],
)
def test_loopback_base_urls(url, local):
    from omp_llm.transport import is_loopback

    assert is_loopback(url) is local
