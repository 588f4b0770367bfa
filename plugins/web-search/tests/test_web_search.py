"""The ``web_search`` tool (plugins/web-search) against loopback stand-ins of SearXNG's,
Brave's, Tavily's and Exa's JSON APIs."""

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
    tool: WebSearchTool, settings: dict[str, Any] | None = None, **params: Any
) -> tuple[Any, Any]:
    import asyncio

    ctx = SimpleNamespace(settings=dict(settings or {}), api=FakeApi())
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
        builtins=["web-search"],
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
    ctx = SimpleNamespace(settings={}, api=FakeApi())

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
