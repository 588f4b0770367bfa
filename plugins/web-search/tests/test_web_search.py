"""The ``web_search`` tool (plugins/web-search) against loopback stand-ins of SearXNG's,
Brave's, Tavily's and Exa's JSON APIs, and of Anthropic's Messages, OpenAI's Responses
and Gemini's streamGenerateContent APIs for the model's own search."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from omp import AbortSignal
from omp_tool_web_search.tool import WebSearchParams, WebSearchTool
from replay import split_events

BRAVE_KEY = "brave-test-key-0123456789"
TAVILY_KEY = "tvly-test-key-0123456789"
EXA_KEY = "exa-test-key-0123456789"
ALL_ENV = (
    "EXA_API_KEY",
    "TAVILY_API_KEY",
    "BRAVE_API_KEY",
    "SEARXNG_URL",
    "SEARXNG_ENDPOINT",
    "SEARXNG_TOKEN",
)

SEARXNG_ANSWER = {
    "query": "pineapple",
    "results": [
        {
            "title": "Pineapple - <b>Wikipedia</b>",
            "url": "https://en.wikipedia.org/wiki/Pineapple",
            "content": "The pineapple is a tropical plant\n with an edible fruit.",
            "publishedDate": "2024-05-01T00:00:00",
        },
        {"title": "Pineapple facts", "url": "https://example.org/facts", "content": "Spiky."},
        {"title": "Third", "url": "https://example.org/third", "content": "more"},
        {"title": "not a web link", "url": "ftp://example.org/x"},
    ],
}
BRAVE_ANSWER = {
    "web": {
        "results": [
            {
                "title": "Brave one",
                "url": "https://brave.example/one",
                "description": "First <strong>hit</strong>.",
                "page_age": "2025-01-02T03:04:05",
            },
            {
                "title": "Brave two",
                "url": "https://brave.example/two",
                "description": "Second hit.",
                "age": "3 days ago",
            },
        ]
    }
}


HOLD = object()


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


@dataclass
class StandIn:
    """A loopback server: ``routes`` maps a path to (status, JSON or bytes body)."""

    port: int
    routes: dict[str, tuple[int, Any]] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    """A route whose answer is ``HOLD`` waits for ``release`` (set at teardown)."""

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture
def stand_in() -> Iterator[StandIn]:
    state = StandIn(port=0)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def answer(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            state.seen.append(
                Seen(
                    self.command,
                    parts.path,
                    parse_qs(parts.query),
                    {k.lower(): v for k, v in self.headers.items()},
                    json.loads(raw) if raw else None,
                )
            )
            status, payload = state.routes.get(parts.path, (404, b"no such path"))
            state.arrived.set()
            if payload is HOLD:
                state.release.wait(30)
                payload = b"{}"
            body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = answer
        do_POST = answer

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(autouse=True)
def no_search_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ALL_ENV:
        monkeypatch.delenv(name, raising=False)


class FakeApi:
    def __init__(self) -> None:
        self.secrets: list[tuple[str, str]] = []

    def register_secret(self, value: str, label: str) -> None:
        self.secrets.append((value, label))


def run_tool(
    tool: WebSearchTool, settings: dict[str, Any] | None = None, model: Any = None, **params: Any
) -> tuple[Any, Any]:
    import asyncio

    ctx = SimpleNamespace(settings=dict(settings or {}), api=FakeApi(), model=model)
    result = asyncio.run(
        tool.execute("call-1", WebSearchParams(**params), AbortSignal(), None, ctx)
    )
    return result, ctx


def text(result: Any) -> str:
    return "".join(block.text for block in result.content)


# --- through a session: what the model sees --------------------------------------------


def search_session(
    omp_harness: Any, settings: dict[str, Any], offline: bool = False, **arguments: Any
) -> Any:
    (omp_harness.agent_dir / "settings.json").write_text(json.dumps(settings))
    call = {"name": "web_search", "arguments": arguments}
    session = omp_harness.session(
        script=[{"tool_calls": [call]}, {"text": "done", "repeat": True}],
        builtins=["web_search"],
        offline=offline,
    )
    return omp_harness.run(session, "look it up")


def test_searxng_query_recency_limit_and_results(omp_harness: Any, stand_in: StandIn) -> None:
    stand_in.routes["/sx/search"] = (200, SEARXNG_ANSWER)
    events = search_session(
        omp_harness,
        {"webSearch": {"searxngUrl": stand_in.url("/sx/")}},
        query="pineapple",
        recency="week",
        limit=2,
    )
    [end] = events.of("tool_execution_end")
    assert not end.is_error
    [seen] = stand_in.seen
    assert seen.method == "GET"
    assert seen.query["q"] == ["pineapple"]
    assert seen.query["format"] == ["json"]
    assert seen.query["time_range"] == ["month"]  # SearXNG has no week
    assert end.result["content"][0].text == (
        "[1] Pineapple - Wikipedia (2024-05-01T00:00:00)\n"
        "    https://en.wikipedia.org/wiki/Pineapple\n"
        "    The pineapple is a tropical plant with an edible fruit.\n"
        "[2] Pineapple facts\n"
        "    https://example.org/facts\n"
        "    Spiky."
    )
    assert end.result["details"]["provider"] == "searxng"


def test_searxng_url_from_the_environment(
    omp_harness: Any, stand_in: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in.routes["/search"] = (200, SEARXNG_ANSWER)
    monkeypatch.setenv("SEARXNG_URL", stand_in.url(""))
    monkeypatch.setenv("SEARXNG_TOKEN", "searx-token-0123456789")
    events = search_session(omp_harness, {}, query="pineapple")
    [end] = events.of("tool_execution_end")
    assert "[3] Third" in end.result["content"][0].text
    [seen] = stand_in.seen
    assert "time_range" not in seen.query
    assert seen.headers["authorization"] == "Bearer searx-token-0123456789"


def test_search_keys_are_hidden_from_the_session(
    omp_harness: Any, stand_in: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    leaky = {"results": [{"title": "t", "url": "https://x.example", "content": BRAVE_KEY}]}
    stand_in.routes["/search"] = (200, leaky)
    monkeypatch.setenv("BRAVE_API_KEY", BRAVE_KEY)
    settings = {"webSearch": {"provider": "searxng", "searxngUrl": stand_in.url("")}}
    events = search_session(omp_harness, settings, query="x")
    [end] = events.of("tool_execution_end")
    shown = end.result["content"][0].text
    assert BRAVE_KEY not in shown
    assert "[REDACTED:BRAVE_API_KEY]" in shown


def test_no_backend_names_what_to_set(omp_harness: Any) -> None:
    events = search_session(omp_harness, {}, query="anything")
    [end] = events.of("tool_execution_end")
    assert end.is_error
    message = end.result["content"][0].text
    assert "\n" not in message
    assert message.startswith("web_search: no search backend is configured. Set one of ")
    for name in ("EXA_API_KEY", "TAVILY_API_KEY", "BRAVE_API_KEY", "SEARXNG_URL"):
        assert name in message


def test_disabled_by_setting(omp_harness: Any, stand_in: StandIn) -> None:
    settings = {"webSearch": {"enabled": False, "searxngUrl": stand_in.url("/")}}
    events = search_session(omp_harness, settings, query="pineapple")
    [end] = events.of("tool_execution_end")
    assert end.is_error
    assert end.result["content"][0].text.startswith("Tool 'web_search' not found.")
    assert stand_in.seen == []


def test_not_offered_offline(omp_harness: Any, stand_in: StandIn) -> None:
    settings = {"webSearch": {"searxngUrl": stand_in.url("/")}}
    events = search_session(omp_harness, settings, offline=True, query="pineapple")
    [end] = events.of("tool_execution_end")
    assert end.result["content"][0].text.startswith("Tool 'web_search' not found.")
    assert stand_in.seen == []


# --- the paid backends (their URLs replaced by the stand-in's) ---------------------------


def test_brave_request_and_results(stand_in: StandIn) -> None:
    stand_in.routes["/brave"] = (200, BRAVE_ANSWER)
    tool = WebSearchTool(urls={"brave": stand_in.url("/brave")}, env={"BRAVE_API_KEY": BRAVE_KEY})
    result, ctx = run_tool(tool, query="omp agent", recency="day", limit=1)
    [seen] = stand_in.seen
    assert seen.headers["x-subscription-token"] == BRAVE_KEY
    assert "authorization" not in seen.headers
    assert seen.query["q"] == ["omp agent"]
    assert seen.query["count"] == ["1"]
    assert seen.query["freshness"] == ["pd"]
    assert not result.is_error
    assert text(result) == (
        "[1] Brave one (2025-01-02T03:04:05)\n    https://brave.example/one\n    First hit ."
    )
    assert ctx.api.secrets == [(BRAVE_KEY, "BRAVE_API_KEY")]


def test_brave_failure_is_one_line_without_the_key(stand_in: StandIn) -> None:
    stand_in.routes["/brave"] = (500, f"internal error for token {BRAVE_KEY}\nretry".encode())
    tool = WebSearchTool(urls={"brave": stand_in.url("/brave")}, env={"BRAVE_API_KEY": BRAVE_KEY})
    result, _ = run_tool(tool, query="omp")
    assert result.is_error
    message = text(result)
    assert message.startswith("web_search failed: Brave answered HTTP 500: internal error")
    assert "\n" not in message
    assert BRAVE_KEY not in message


def test_refused_key_says_what_to_check(stand_in: StandIn) -> None:
    stand_in.routes["/brave"] = (401, {"error": "bad key"})
    tool = WebSearchTool(urls={"brave": stand_in.url("/brave")}, env={"BRAVE_API_KEY": BRAVE_KEY})
    result, _ = run_tool(tool, query="omp")
    assert text(result) == (
        "web_search failed: Brave refused the request (HTTP 401): check BRAVE_API_KEY"
    )


def test_unreachable_backend_is_one_line(stand_in: StandIn) -> None:
    closed = "http://127.0.0.1:9/search"  # the discard port: nothing listens
    tool = WebSearchTool(urls={"brave": closed}, env={"BRAVE_API_KEY": BRAVE_KEY})
    result, _ = run_tool(tool, query="omp")
    assert result.is_error
    assert text(result) == "web_search failed: Brave could not be reached (ConnectError)"


def test_tavily_request_answer_and_results(stand_in: StandIn) -> None:
    stand_in.routes["/tavily"] = (
        200,
        {
            "answer": "Pineapples are bromeliads.",
            "results": [
                {
                    "title": "Bromeliads",
                    "url": "https://t.example/b",
                    "content": "A family of plants.",
                    "published_date": "2025-02-03",
                }
            ],
        },
    )
    tool = WebSearchTool(
        urls={"tavily": stand_in.url("/tavily")}, env={"TAVILY_API_KEY": TAVILY_KEY}
    )
    result, _ = run_tool(tool, query="pineapple family", recency="month", limit=3)
    [seen] = stand_in.seen
    assert seen.method == "POST"
    assert seen.headers["authorization"] == f"Bearer {TAVILY_KEY}"
    assert seen.body["query"] == "pineapple family"
    assert seen.body["max_results"] == 3
    assert seen.body["time_range"] == "month"
    assert text(result) == (
        "Pineapples are bromeliads.\n\n## Sources\n"
        "[1] Bromeliads (2025-02-03)\n    https://t.example/b\n    A family of plants."
    )


def test_exa_request_and_results(stand_in: StandIn) -> None:
    stand_in.routes["/exa"] = (
        200,
        {
            "results": [
                {
                    "title": "Exa hit",
                    "url": "https://e.example/1",
                    "highlights": ["first part", "second part"],
                    "publishedDate": "2025-03-04T00:00:00.000Z",
                }
            ]
        },
    )
    tool = WebSearchTool(urls={"exa": stand_in.url("/exa")}, env={"EXA_API_KEY": EXA_KEY})
    result, _ = run_tool(tool, query="exa", recency="year")
    [seen] = stand_in.seen
    assert seen.headers["x-api-key"] == EXA_KEY
    assert seen.body["numResults"] == 10
    assert seen.body["startPublishedDate"].endswith("Z")
    assert "first part … second part" in text(result)


def test_auto_goes_on_to_the_next_backend(stand_in: StandIn) -> None:
    stand_in.routes["/exa"] = (503, b"busy")
    stand_in.routes["/sx/search"] = (200, SEARXNG_ANSWER)
    tool = WebSearchTool(urls={"exa": stand_in.url("/exa")}, env={"EXA_API_KEY": EXA_KEY})
    result, _ = run_tool(tool, {"webSearch.searxngUrl": stand_in.url("/sx")}, query="pineapple")
    assert not result.is_error
    assert result.details["provider"] == "searxng"
    assert [s.path for s in stand_in.seen] == ["/exa", "/sx/search"]


def test_chosen_provider_not_configured(stand_in: StandIn) -> None:
    tool = WebSearchTool(env={"EXA_API_KEY": EXA_KEY})
    result, _ = run_tool(tool, {"webSearch.provider": "brave"}, query="x")
    assert text(result) == (
        "web_search: webSearch.provider is brave but Brave is not configured: set BRAVE_API_KEY."
    )


def test_searxng_without_json_output(stand_in: StandIn) -> None:
    stand_in.routes["/search"] = (200, b"<html>no json here</html>")
    tool = WebSearchTool(env={"SEARXNG_URL": stand_in.url("")})
    result, _ = run_tool(tool, query="x")
    assert text(result) == (
        "web_search failed: SearXNG did not answer with JSON (is its JSON format enabled?)"
    )


def test_abort_cancels_the_request(stand_in: StandIn) -> None:
    import asyncio

    stand_in.routes["/search"] = (200, HOLD)
    tool = WebSearchTool(env={"SEARXNG_URL": stand_in.url("")})
    signal = AbortSignal()
    ctx = SimpleNamespace(settings={}, api=FakeApi(), model=None)

    async def scenario() -> Any:
        call = asyncio.ensure_future(
            tool.execute("c", WebSearchParams(query="slow"), signal, None, ctx)
        )
        await asyncio.to_thread(stand_in.arrived.wait, 10)
        signal.abort()
        return await asyncio.wait_for(call, 10)

    result = asyncio.run(scenario())
    assert result.is_error
    assert text(result) == "web_search was aborted."


def test_slow_backend_times_out(stand_in: StandIn) -> None:
    stand_in.routes["/search"] = (200, HOLD)
    tool = WebSearchTool(env={"SEARXNG_URL": stand_in.url("")})
    result, _ = run_tool(tool, {"webSearch.timeoutSeconds": 1}, query="slow")
    assert text(result) == "web_search failed: SearXNG did not answer within 1 s"


def test_bad_searxng_url_is_one_line() -> None:
    tool = WebSearchTool(env={"SEARXNG_URL": "searx.local"})
    result, _ = run_tool(tool, query="x")
    assert result.is_error
    assert text(result) == (
        "web_search failed: SearXNG's URL is not a full http(s):// URL: 'searx.local/search' "
        "(set SEARXNG_URL (or the setting webSearch.searxngUrl))"
    )


# --- the model's own search (Anthropic's web_search server tool) ------------------------

ANTHROPIC_KEY = "sk-ant-test-0123456789"
SSE = {"content-type": "text/event-stream"}


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def block(index: int, content: dict[str, Any], *deltas: dict[str, Any]) -> list[dict[str, Any]]:
    start = {"type": "content_block_start", "index": index, "content_block": content}
    moves = [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
    return [start, *moves, {"type": "content_block_stop", "index": index}]


def message(stop: str, *blocks: list[dict[str, Any]]) -> bytes:
    """An Anthropic Messages stream, constructed by hand from Anthropic's documented
    streaming event shapes (no recorded web search stream is in tests/fixtures)."""
    head = {"type": "message", "role": "assistant", "usage": {"input_tokens": 10}}
    return sse(
        {"type": "message_start", "message": head},
        *[event for b in blocks for event in b],
        {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 5}},
        {"type": "message_stop"},
    )


def calls_web_search(query: str) -> bytes:
    call = {"type": "tool_use", "id": "toolu_01", "name": "web_search", "input": {}}
    arguments = {"type": "input_json_delta", "partial_json": json.dumps({"query": query})}
    return message("tool_use", block(0, call, arguments))


def says(text: str) -> bytes:
    return message(
        "end_turn", block(0, {"type": "text", "text": ""}, {"type": "text_delta", "text": text})
    )


def searches_natively() -> bytes:
    """Anthropic's answer with the web_search server tool: a preamble, the search call
    and its results, then text citing one of them."""
    results = [
        {
            "type": "web_search_result",
            "title": "Pineapple - Wikipedia",
            "url": "https://en.wikipedia.org/wiki/Pineapple",
            "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1",
            "page_age": "May 1, 2024",
        },
        {
            "type": "web_search_result",
            "title": "Pineapple facts",
            "url": "https://example.org/facts",
            "encrypted_content": "Eo8BCioIAhgBIiQy",
        },
    ]
    citation = {
        "type": "web_search_result_location",
        "url": "https://en.wikipedia.org/wiki/Pineapple",
        "title": "Pineapple - Wikipedia",
        "encrypted_index": "Eo8BCioIAhgB",
        "cited_text": "The pineapple is a tropical plant with an edible fruit.",
    }
    server_call = {
        "type": "server_tool_use",
        "id": "srvtoolu_01",
        "name": "web_search",
        "input": {},
    }
    query = {"type": "input_json_delta", "partial_json": '{"query": "pineapple"}'}
    found = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": results}
    return message(
        "end_turn",
        block(0, {"type": "text", "text": ""}, {"type": "text_delta", "text": "Let me search."}),
        block(1, server_call, query),
        block(2, found),
        block(
            3,
            {"type": "text", "text": "", "citations": []},
            {"type": "citations_delta", "citation": citation},
            {"type": "text_delta", "text": "The pineapple is a tropical plant."},
        ),
    )


def anthropic_session(
    omp_harness: Any,
    replay_server: Any,
    monkeypatch: pytest.MonkeyPatch,
    settings: dict[str, Any],
    api: str = "anthropic-messages",
) -> Any:
    """A session whose model (``api``: anthropic-messages, openai-responses or
    google-generative-ai) is served by ``replay_server``."""
    provider = {
        "baseUrl": replay_server.url + ("/v1" if api == "openai-responses" else ""),
        "api": api,
        "apiKey": "CLAUDE_PROXY_KEY",
        "models": [{"id": "claude-test"}],
    }
    (omp_harness.agent_dir / "models.json").write_text(
        json.dumps({"providers": {"claude": provider}})
    )
    (omp_harness.agent_dir / "settings.json").write_text(
        json.dumps({"retry": {"baseDelayMs": 1}, **settings})
    )
    monkeypatch.setenv("CLAUDE_PROXY_KEY", ANTHROPIC_KEY)
    plugin = {
        "anthropic-messages": "anthropic",
        "openai-responses": "openai_responses",
        "google-generative-ai": "google",
    }[api]
    session = omp_harness.session(builtins=["web_search", plugin], model="claude/claude-test")
    return omp_harness.run(session, "look it up")


def test_native_search_with_an_anthropic_model(
    omp_harness: Any, replay_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    replay_server.add(calls_web_search("pineapple"), headers=SSE)
    replay_server.add(searches_natively(), headers=SSE)
    replay_server.add(says("done"), headers=SSE)
    events = anthropic_session(omp_harness, replay_server, monkeypatch, {})
    [end] = events.of("tool_execution_end")
    assert not end.is_error
    assert end.result["content"][0].text == (
        "The pineapple is a tropical plant.\n"
        "\n## Sources\n"
        "[1] Pineapple - Wikipedia (May 1, 2024)\n"
        "    https://en.wikipedia.org/wiki/Pineapple\n"
        "    The pineapple is a tropical plant with an edible fruit.\n"
        "[2] Pineapple facts\n"
        "    https://example.org/facts"
    )
    assert end.result["details"]["provider"] == "native"
    turn, search, _ = (r.json for r in replay_server.requests)
    assert [t["name"] for t in turn["tools"]] == ["web_search"]
    assert "input_schema" in turn["tools"][0]  # the session's tool, not the server tool
    assert search["model"] == "claude-test"
    assert search["tools"] == [{"type": "web_search_20250305", "name": "web_search"}]
    assert search["messages"][0]["content"][0]["text"] == "pineapple"
    assert replay_server.requests[1].headers["x-api-key"] == ANTHROPIC_KEY


def test_native_failure_goes_on_to_a_backend(
    omp_harness: Any, replay_server: Any, stand_in: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in.routes["/search"] = (200, SEARXNG_ANSWER)
    refusal = {"type": "error", "error": {"type": "invalid_request_error", "message": "no search"}}
    replay_server.add(calls_web_search("pineapple"), headers=SSE)
    replay_server.add(json.dumps(refusal), status=400)
    replay_server.add(says("done"), headers=SSE)
    settings = {"webSearch": {"searxngUrl": stand_in.url("")}}
    events = anthropic_session(omp_harness, replay_server, monkeypatch, settings)
    [end] = events.of("tool_execution_end")
    assert not end.is_error
    assert end.result["details"]["provider"] == "searxng"
    assert end.result["content"][0].text.startswith("[1] Pineapple - Wikipedia")
    assert len(replay_server.requests) == 3


def test_native_only_fails_in_one_line(
    omp_harness: Any, replay_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    refusal = {"type": "error", "error": {"type": "invalid_request_error", "message": "no search"}}
    replay_server.add(calls_web_search("pineapple"), headers=SSE)
    replay_server.add(json.dumps(refusal), status=400)
    replay_server.add(says("done"), headers=SSE)
    settings = {"webSearch": {"provider": "native"}}
    events = anthropic_session(omp_harness, replay_server, monkeypatch, settings)
    [end] = events.of("tool_execution_end")
    assert end.is_error
    shown = end.result["content"][0].text
    assert shown.startswith("web_search failed: Anthropic web search failed: ")
    assert "no search" in shown and "\n" not in shown and ANTHROPIC_KEY not in shown


def test_native_needs_a_model_that_searches(stand_in: StandIn) -> None:
    from omp import Model

    model = Model(provider="proxy", id="coder", api="openai-completions")
    result, _ = run_tool(WebSearchTool(), {"webSearch.provider": "native"}, model, query="x")
    assert text(result) == (
        "web_search: webSearch.provider is native but the current model (proxy/coder) "
        "cannot search the web itself (Anthropic, OpenAI Responses and Gemini models can)."
    )
    # in auto, that model's searches go to a configured backend
    stand_in.routes["/search"] = (200, SEARXNG_ANSWER)
    tool = WebSearchTool(env={"SEARXNG_URL": stand_in.url("")})
    result, _ = run_tool(tool, {}, model, query="pineapple")
    assert result.details["provider"] == "searxng"


def test_native_search_that_stalls_times_out(
    omp_harness: Any, replay_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    replay_server.add(calls_web_search("pineapple"), headers=SSE)
    replay_server.add(split_events(searches_natively()), headers=SSE, stall_after=1)
    replay_server.add(says("done"), headers=SSE)
    settings = {"webSearch": {"timeoutSeconds": 1}}
    events = anthropic_session(omp_harness, replay_server, monkeypatch, settings)
    [end] = events.of("tool_execution_end")
    assert end.is_error
    assert end.result["content"][0].text == (
        "web_search failed: Anthropic web search did not answer within 1 s"
    )


def responses(*items: dict[str, Any]) -> bytes:
    """An OpenAI Responses stream of finished output items, constructed by hand from
    OpenAI's documented streaming shapes (only the events the parser needs)."""
    events = [
        event
        for n, item in enumerate(items)
        for event in (
            {"type": "response.output_item.added", "output_index": n, "item": item},
            {"type": "response.output_item.done", "output_index": n, "item": item},
        )
    ]
    done = {"id": "resp_1", "status": "completed", "usage": {"input_tokens": 5}}
    events.append({"type": "response.completed", "response": done})
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def test_native_search_with_an_openai_responses_model(
    omp_harness: Any, replay_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    call = {
        "id": "fc_1",
        "type": "function_call",
        "call_id": "call_1",
        "name": "web_search",
        "arguments": json.dumps({"query": "pineapple"}),
    }
    sources = [
        {"type": "url", "url": "https://en.wikipedia.org/wiki/Pineapple"},
        {"type": "url", "url": "https://example.org/facts"},
    ]
    action = {"type": "search", "query": "pineapple", "sources": sources}
    text = "The pineapple is a tropical plant."
    note = {
        "type": "url_citation",
        "start_index": 4,
        "end_index": 33,
        "url": "https://en.wikipedia.org/wiki/Pineapple",
        "title": "Pineapple - Wikipedia",
    }
    answer = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": [note]}],
    }
    done = {**answer, "content": [{"type": "output_text", "text": "done", "annotations": []}]}
    replay_server.add(responses(call), headers=SSE)
    search = {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": action}
    replay_server.add(responses(search, answer), headers=SSE)
    replay_server.add(responses(done), headers=SSE)
    events = anthropic_session(omp_harness, replay_server, monkeypatch, {}, "openai-responses")
    [end] = events.of("tool_execution_end")
    assert not end.is_error
    assert end.result["content"][0].text == (
        "The pineapple is a tropical plant.\n"
        "\n## Sources\n"
        "[1] Pineapple - Wikipedia\n"
        "    https://en.wikipedia.org/wiki/Pineapple\n"
        "    pineapple is a tropical plant\n"
        "[2] https://example.org/facts\n"
        "    https://example.org/facts"
    )
    sent = replay_server.requests[1].json
    assert sent["tools"] == [{"type": "web_search"}]
    assert "web_search_call.action.sources" in sent["include"]


def gemini(*parts: dict[str, Any], grounding: dict[str, Any] | None = None) -> bytes:
    """A Gemini streamGenerateContent SSE body of one chunk, constructed by hand from
    Google's documented GenerateContentResponse shape (``groundingMetadata`` with
    ``webSearchQueries``, ``groundingChunks`` and ``groundingSupports``)."""
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": list(parts)},
        "finishReason": "STOP",
    }
    if grounding:
        candidate["groundingMetadata"] = grounding
    chunk = {"candidates": [candidate], "usageMetadata": {"promptTokenCount": 5}}
    return f"data: {json.dumps(chunk)}\r\n\r\n".encode()


def test_native_search_with_a_gemini_model(
    omp_harness: Any, replay_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "The pineapple is a tropical plant."
    wiki = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC1"
    grounding = {
        "webSearchQueries": ["pineapple"],
        "groundingChunks": [
            {"web": {"uri": wiki, "title": "wikipedia.org"}},
            {"web": {"uri": "https://example.org/facts", "title": "example.org"}},
        ],
        "groundingSupports": [
            {
                "segment": {"startIndex": 4, "endIndex": 33, "text": text[4:33]},
                "groundingChunkIndices": [0],
            }
        ],
    }
    call = {"functionCall": {"name": "web_search", "args": {"query": "pineapple"}}}
    replay_server.add(gemini(call), headers=SSE)
    replay_server.add(gemini({"text": text}, grounding=grounding), headers=SSE)
    replay_server.add(gemini({"text": "done"}), headers=SSE)
    events = anthropic_session(omp_harness, replay_server, monkeypatch, {}, "google-generative-ai")
    [end] = events.of("tool_execution_end")
    assert not end.is_error
    assert end.result["content"][0].text == (
        "The pineapple is a tropical plant.\n"
        "\n## Sources\n"
        "[1] wikipedia.org\n"
        f"    {wiki}\n"
        "    pineapple is a tropical plant\n"
        "[2] example.org\n"
        "    https://example.org/facts"
    )
    assert end.result["details"]["provider"] == "native"
    turn, search, _ = (r.json for r in replay_server.requests)
    assert "functionDeclarations" in turn["tools"][0]  # the session's tools
    assert search["tools"] == [{"google_search": {}}]
    assert search["contents"][0]["parts"][0]["text"] == "pineapple"
    assert replay_server.requests[1].headers["x-goog-api-key"] == ANTHROPIC_KEY
