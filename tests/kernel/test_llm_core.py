"""The shared provider machinery (omp_llm) that needs no HTTP library: retries, errors,
SSE, cost and models.json."""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat

import pytest
from omp import redact_keys
from omp.agent.cost import apply_cost
from omp.agent.messages import Usage
from omp.agent.providers import Model, StreamOptions
from omp_llm import config as llm_config
from omp_llm.driver import RetryPolicy, run_stream
from omp_llm.errors import ProviderError, http_error, parse_retry_after
from omp_llm.sse import iter_sse_sync, split_lines


def test_sse_decoder_handles_crlf_comments_multiline_and_a_missing_final_blank_line():
    body = b': keepalive\r\nevent: a\r\ndata: {"x":\r\ndata: 1}\r\n\r\ndata: last'
    events = list(iter_sse_sync(split_lines(body)))
    assert [(e.event, e.data) for e in events] == [("a", '{"x":\n1}'), ("message", "last")]


def test_errors_explain_the_body_and_never_show_the_key():
    key = "sk-live-abcdefghijklmnopqrstuvwxyz"
    body = json.dumps(
        {
            "error": {
                "type": "invalid_request_error",
                "message": f"Incorrect API key provided: {key}",
            }
        }
    )
    error = http_error(401, body, {}, [key])
    assert error.message.startswith("HTTP 401 invalid_request_error: Incorrect API key")
    assert key not in error.message and "[redacted]" in error.message
    assert not error.retryable
    assert (
        redact_keys("token sk-proj-1234567890abcdefghij here", []) == "token sk-pro…[redacted] here"
    )


@pytest.mark.parametrize(
    "status, retryable",
    [(408, True), (429, True), (500, True), (529, True), (400, False), (404, False)],
)
def test_retryable_statuses(status, retryable):
    assert http_error(status, "{}").retryable is retryable


def test_retry_after_seconds_millis_and_context_overflow():
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({}) is None
    overflow = http_error(400, json.dumps({"error": {"message": "prompt is too long: 210000"}}))
    assert overflow.context_overflow


def test_backoff_grows_with_jitter_and_honours_retry_after():
    policy = RetryPolicy(base_delay_ms=500, max_retries=3)
    assert 0.375 <= policy.delay(1, None) <= 0.5
    assert 0.75 <= policy.delay(2, None) <= 1.0
    assert policy.delay(4, None) is None  # past maxRetries
    assert policy.delay(1, 7.0) == 7.0
    assert policy.delay(1, 10_000.0) is None  # beyond maxDelayMs: fail now
    assert RetryPolicy.from_settings({"retry": {"enabled": False}}).delay(1, None) is None


MODEL = Model(
    provider="p",
    id="m",
    api="x",
    cost={"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75},
)


def run(attempts, settings=None):
    calls = {"n": 0}

    async def attempt(out):
        number = calls["n"]
        calls["n"] += 1
        async for event in attempts[number](out):
            yield event

    async def collect():
        options = StreamOptions(settings=settings or {"retry": {"baseDelayMs": 1}})
        return [e async for e in run_stream(MODEL, options, attempt)]

    return asyncio.run(collect()), calls["n"]


async def overloaded(out):
    raise ProviderError("overloaded", retryable=True, status=529)
    yield  # pragma: no cover - makes this an async generator


async def good(out):
    yield out.text_start()
    yield out.text_delta("hi")
    yield out.text_end()
    out.message.usage = Usage(input=1000, output=100, cache_read=2000)
    yield out.done()


async def cut_after_text(out):
    yield out.text_start()
    yield out.text_delta("partial")


def test_retries_until_success_with_retry_events_and_cost():
    events, calls = run([overloaded, overloaded, good])
    kinds = [e["type"] for e in events]
    assert calls == 3
    assert kinds == [
        "start",
        "auto_retry_start",
        "auto_retry_start",
        "text_start",
        "text_delta",
        "text_end",
        "auto_retry_end",
        "done",
    ]
    usage = events[-1]["message"].usage
    assert usage.cost.total == pytest.approx(1000 * 3 / 1e6 + 100 * 15 / 1e6 + 2000 * 0.3 / 1e6)
    assert usage.total_tokens == 3100


def test_no_retry_once_content_was_streamed():
    events, calls = run([cut_after_text, good])
    assert calls == 1
    final = events[-1]
    assert final["type"] == "error"
    assert "the stream ended before the response was complete" in final["error"].error_message


def test_gives_up_after_max_retries_with_the_last_error():
    events, calls = run([overloaded] * 3, {"retry": {"baseDelayMs": 1, "maxRetries": 2}})
    assert calls == 3
    assert events[-2] == {
        "type": "auto_retry_end",
        "success": False,
        "attempt": 2,
        "finalError": "overloaded",
    }
    assert events[-1]["error"].error_message == "overloaded"


def test_context_overflow_is_reported_as_such():
    async def too_long(out):
        raise http_error(400, '{"error": {"message": "maximum context length is 8192"}}')
        yield  # pragma: no cover

    events, _ = run([too_long])
    message = events[-1]["error"]
    assert message.error_message.startswith("context overflow:")
    assert message.error_kind == "context_overflow"


def test_a_model_without_prices_is_unpriced_not_free():
    usage = apply_cost(Usage(input=10, output=5), Model(provider="p", id="free?"))
    assert usage.unpriced is True and usage.cost.total == 0


def write(path, data):
    path.write_text(json.dumps(data))
    return path


def test_models_json_adds_providers_overrides_builtins_and_upserts_models(tmp_path):
    write(
        tmp_path / "models.json",
        {
            "providers": {
                "my-vllm": {
                    "baseUrl": "http://localhost:8000/v1",
                    "api": "openai-completions",
                    "apiKey": "VLLM_KEY",
                    "compat": {"supportsDeveloperRole": False},
                    "models": [{"id": "qwen"}],
                },
                "anthropic": {
                    "baseUrl": "https://proxy.example/v1",
                    "models": [{"id": "my-claude", "contextWindow": 50000}],
                },
            }
        },
    )
    providers = {p.name: p for p in llm_config.load_providers(tmp_path)}
    vllm = providers["my-vllm"]
    assert vllm.models[0].id == "qwen" and vllm.models[0].context_window == 128_000
    assert vllm.models[0].compat == {"supportsDeveloperRole": False}
    assert vllm.source.endswith("models.json")
    anthropic = providers["anthropic"]
    assert anthropic.base_url == "https://proxy.example/v1"
    assert len(anthropic.models) > 1  # built-in models kept
    assert "my-claude" in {m.id for m in anthropic.models}
    assert all(m.base_url == "https://proxy.example/v1" for m in anthropic.models)


def test_a_malformed_models_file_is_one_clear_problem(tmp_path):
    """Reported, not raised: the rest of the providers keep working (issue 8, item 14;
    more in test_models_file.py)."""
    (tmp_path / "models.json").write_text('{"providers": {"x": ')
    [problem] = llm_config.models_file_problems(tmp_path)
    assert re.search(r"invalid .*models.json: line 1, column", problem)
    assert "anthropic" in {p.name for p in llm_config.load_providers(tmp_path)}
    write(tmp_path / "models.json", {"providers": {"x": {"models": [{"id": "a"}]}}})
    [problem] = llm_config.models_file_problems(tmp_path)
    assert re.search(r'invalid provider .x..*needs "api"', problem)
    assert "x" not in {p.name for p in llm_config.load_providers(tmp_path)}


def test_key_order_cli_then_auth_file_then_models_json_then_environment(tmp_path):
    config = llm_config.ProviderConfig(
        name="anthropic",
        api="anthropic-messages",
        base_url="u",
        models=[],
        key_env=["ANTHROPIC_API_KEY"],
    )
    env = {"ANTHROPIC_API_KEY": "from-env"}
    assert llm_config.resolve_key(config, tmp_path, None, env) == "from-env"
    path = llm_config.save_api_key(tmp_path, "anthropic", "from-auth-file")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert llm_config.resolve_key(config, tmp_path, None, env) == "from-auth-file"
    assert llm_config.resolve_key(config, tmp_path, "from-cli", env) == "from-cli"
    custom = llm_config.ProviderConfig(name="c", api="a", base_url="u", models=[], api_key="MY_KEY")
    assert llm_config.resolve_key(custom, tmp_path, None, {"MY_KEY": "named"}) == "named"
    assert llm_config.resolve_key(custom, tmp_path, None, {}) == "MY_KEY"  # a literal
    command = llm_config.ProviderConfig(
        name="d", api="a", base_url="u", models=[], api_key="!echo from-command"
    )
    assert llm_config.resolve_key(command, tmp_path, None, {}) == "from-command"
    assert llm_config.key_source(command, tmp_path, {}).startswith("command in")


def test_the_catalogue_is_complete():
    providers = llm_config.catalogue_providers()
    assert {
        "anthropic",
        "openai",
        "google",
        "openrouter",
        "groq",
        "xai",
        "mistral",
        "deepseek",
        "cerebras",
        "ollama",
    } <= set(providers)
    for provider in providers.values():
        assert provider.models, provider.name
        for model in provider.models:
            assert model.context_window > 0 and model.max_tokens > 0
            assert model.api in (
                "anthropic-messages",
                "openai-responses",
                "openai-completions",
                "google-generative-ai",
            )
    assert providers["ollama"].local and not providers["ollama"].key_env


def test_models_yml_is_read_like_models_json(tmp_path):
    pytest.importorskip("yaml", reason="PyYAML is installed with the default distribution")
    (tmp_path / "models.yml").write_text(
        "providers:\n"
        "  lmstudio:\n"
        "    baseUrl: http://localhost:1234/v1\n"
        "    api: openai-completions\n"
        "    apiKey: lm-studio\n"
        "    models:\n"
        "      - id: qwen2.5-coder-7b\n"
        "        contextWindow: 32768\n"
    )
    providers = {p.name: p for p in llm_config.load_providers(tmp_path)}
    model = providers["lmstudio"].models[0]
    assert (model.id, model.context_window, model.max_tokens) == ("qwen2.5-coder-7b", 32768, 16384)
