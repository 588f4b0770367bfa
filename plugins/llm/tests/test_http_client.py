"""The HTTP client every provider plugin shares (omp_llm.http): no TLS work for a plain
http:// server, one verifying TLS context per process, one client per event loop, and
no import attempted per request once the first one is done (issue 10)."""

from __future__ import annotations

import asyncio
import importlib
import sys

import httpx
import pytest
from omp import LlmContext, Model, StreamOptions, UserMessage
from omp_llm.config import ProviderConfig
from omp_llm.provider import HttpProvider
from omp_provider_openai_completions.wire import WIRE

SSE = {"content-type": "text/event-stream"}
ANSWER = [
    b'data: {"id":"a","object":"chat.completion.chunk","created":0,"model":"m",'
    b'"choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},'
    b'"finish_reason":null}]}\n\n',
    b'data: {"id":"a","object":"chat.completion.chunk","created":0,"model":"m",'
    b'"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n',
    b"data: [DONE]\n\n",
]
CLIENTS = {
    "openai-completions": ("omp_provider_openai_completions.wire", "shared_client"),
    "openai-responses": ("omp_provider_openai_responses.wire", "WIRE.client"),
    "anthropic-messages": ("omp_provider_anthropic.wire", "client"),
    "google-generative-ai": ("omp_provider_google.wire", "client"),
}


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(tmp_path / "agent"))


def provider_for(base_url, tmp_path):
    model = Model(provider="peer", id="m", api="openai-completions", base_url=base_url)
    config = ProviderConfig(
        name="peer", api=model.api, base_url=base_url, models=[model], key_env=[], local=True
    )
    return HttpProvider(config, WIRE, tmp_path), model


async def ask(provider, model):
    context = LlmContext("", [UserMessage(content="hello")], [])
    events = [e async for e in provider.stream(model, context, StreamOptions(settings={}))]
    assert events[-1]["type"] == "done", events[-1]


def client_factory(api):
    module, attribute = CLIENTS[api]
    found = importlib.import_module(module)
    for part in attribute.split("."):
        found = getattr(found, part)
    return found


@pytest.mark.parametrize("api", sorted(CLIENTS))
def test_a_plain_http_server_costs_no_tls_context(api, replay_server, verifying_contexts):
    replay_server.add(b"{}", headers={"content-type": "application/json"})

    async def post():
        response = await client_factory(api)().post(replay_server.url + "/v1/x", json={})
        return response.status_code

    assert asyncio.run(post()) == 200
    assert verifying_contexts == []


def test_https_servers_share_one_tls_context_made_on_first_use(verifying_contexts):
    async def reach(api):
        client = client_factory(api)()
        with pytest.raises(httpx.ConnectError):  # nothing listens there
            await client.post("https://127.0.0.1:9/v1/x", json={})

    for api in sorted(CLIENTS):
        asyncio.run(reach(api))
    assert len(verifying_contexts) == 1


def test_one_client_serves_every_request_of_a_loop(replay_server, tmp_path, monkeypatch):
    import httpx

    made = []

    class Counting(httpx.AsyncClient):
        def __init__(self, *args, **kwargs):
            made.append(self)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(httpx, "AsyncClient", Counting)
    provider, model = provider_for(replay_server.url + "/v1", tmp_path)

    async def three():
        for _ in range(3):
            replay_server.add(list(ANSWER), headers=SSE)
            await ask(provider, model)

    asyncio.run(three())
    assert len(made) == 1


class _ImportWatch:
    """A meta path finder that records every module name Python had to look for."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def find_spec(self, name, path=None, target=None):
        self.names.append(name)
        return None


def test_a_request_after_the_first_imports_nothing(replay_server, tmp_path):
    provider, model = provider_for(replay_server.url + "/v1", tmp_path)
    watch = _ImportWatch()

    async def twice():
        replay_server.add(list(ANSWER), headers=SSE)
        await ask(provider, model)
        sys.meta_path.insert(0, watch)
        try:
            replay_server.add(list(ANSWER), headers=SSE)
            await ask(provider, model)
        finally:
            sys.meta_path.remove(watch)

    asyncio.run(twice())
    assert watch.names == []


def test_requests_of_a_run_share_one_connection(replay_server, tmp_path):
    accepted = []
    accept = replay_server.httpd.get_request

    def counting():
        accepted.append(accept())
        return accepted[-1]

    replay_server.httpd.get_request = counting
    provider, model = provider_for(replay_server.url + "/v1", tmp_path)

    async def three():
        for _ in range(3):
            replay_server.add(list(ANSWER), headers=SSE)
            await ask(provider, model)

    asyncio.run(three())
    assert len(accepted) == 1


def test_proxies_from_the_environment_are_honoured(replay_server, monkeypatch):
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", replay_server.url)
    replay_server.add(b"{}", headers={"content-type": "application/json"})

    async def post():
        client = client_factory("openai-completions")()
        response = await client.post("http://model.example.invalid/v1/x", json={})
        return response.status_code

    assert asyncio.run(post()) == 200
    assert replay_server.requests[0].path == "http://model.example.invalid/v1/x"


HTTPX_CLI_PROBE = """
import sys
import omp_llm.http
omp_llm.http.new_client()
cli = ("click", "rich", "pygments", "httpx._main")
loaded = [m for m, module in sys.modules.items() if module is not None]
print(sorted(m for m in loaded if m in cli or m.split(".")[0] in cli[:3]))
"""


def test_the_client_does_not_import_httpxs_command_line_tool():
    """``import httpx`` imports its command-line client (click, rich, pygments: ~35 ms)
    whenever those are installed, as they are for the interactive mode; a provider's
    client never runs that command, so a one-turn run does not pay for it."""
    import os
    import subprocess

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run(
        [sys.executable, "-c", HTTPX_CLI_PROBE], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
