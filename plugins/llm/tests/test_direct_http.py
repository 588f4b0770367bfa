"""Provider requests of omp's own client skip httpx's request machinery (issue 10).

``stream_lines`` sends them through the client's httpcore pools (omp_llm.direct): the
server gets the very request httpx would send, the caller the same status, headers,
lines and errors - except that lines are split as server-sent events are, so a raw
U+2028 inside a JSON payload no longer cuts its line in two. Clients omp did not make,
or made with proxies from the environment, keep ``client.stream``.
"""

from __future__ import annotations

import asyncio
import gzip
import socket
import socketserver
import threading
from contextlib import aclosing
from types import SimpleNamespace
from typing import Any

import pytest
from omp_llm.body import BodyPieces, PreparedBody, dumps, request_pieces
from omp_llm.direct import DirectStream, open_stream
from omp_llm.errors import ProviderError
from omp_llm.http import new_client
from omp_llm.sse import SseLines
from omp_llm.transport import stream_lines

SSE = {"content-type": "text/event-stream"}
ANSWER = b'data: {"a":1}\n\ndata: [DONE]\n\n'


class ViaHttpx:
    """The same client seen as any httpx-like client: requests go through
    ``client.stream``."""

    def __init__(self, client: Any) -> None:
        self.stream = client.stream


def refuse_httpx(client: Any) -> Any:
    """``client``, failing any request that goes through ``client.stream``."""

    def stream(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the request went through client.stream")

    client.stream = stream
    return client


async def lines_of(client: Any, url: str, **kwargs: Any) -> list[str]:
    kwargs.setdefault("headers", {"authorization": "Bearer k"})
    kwargs.setdefault("body", {"model": "m"})
    async with aclosing(stream_lines(client, url, **kwargs)) as lines:
        return [line async for line in lines]


def both_paths(call: Any) -> tuple[Any, Any]:
    """``call(client)`` through the fast path, then through ``client.stream``."""

    async def run() -> tuple[Any, Any]:
        client = new_client()
        fast = await call(refuse_httpx(new_client()))
        slow = await call(ViaHttpx(client))
        return fast, slow

    return asyncio.run(run())


class RawServer(socketserver.ThreadingTCPServer):
    """Records each request's head (request line and headers, byte for byte, in order)
    and body, and answers ``ANSWER``, keeping the connection open."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        self.requests: list[tuple[bytes, bytes]] = []
        self.connections = 0
        super().__init__(("127.0.0.1", 0), _RawHandler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1/x?alt=sse"


class _RawHandler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        self.server.connections += 1  # type: ignore[attr-defined]
        while True:
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                line = self.rfile.readline()
                if not line:
                    return
                head += line
            length = next(
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            )
            body = self.rfile.read(length)
            self.server.requests.append((head, body))  # type: ignore[attr-defined]
            self.wfile.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"content-length: %d\r\n\r\n" % len(ANSWER) + ANSWER
            )
            self.wfile.flush()


@pytest.fixture
def raw_server():
    server = RawServer()
    yield server
    server.shutdown()
    server.server_close()


def long_body(monkeypatch) -> PreparedBody:
    """A body ``request_pieces`` sends as BodyPieces (its cached run is one piece)."""
    import omp_llm.body

    monkeypatch.setattr(omp_llm.body, "PIECE_BYTES", 10)
    items = [{"role": "user", "content": f"message {i} ✓"} for i in range(6)]
    encoded = [dumps(item) + b"," for item in items]
    return PreparedBody(
        {"model": "m", "messages": items, "stream": True},
        "messages",
        encoded,
        [],
        [(4, b"".join(encoded[:4]))],
    )


@pytest.mark.parametrize("body", ["bytes", "pieces"])
def test_the_server_gets_the_request_httpx_sends(raw_server, body, monkeypatch):
    payload = {"model": "m", "messages": [{"role": "user", "content": "héllo"}]}
    if body == "pieces":
        payload = long_body(monkeypatch)
        assert isinstance(asyncio.run(request_pieces(payload)), BodyPieces)
    headers = {"Authorization": "Bearer k", "accept": "text/event-stream", "X-Extra": "1"}

    async def call(client):
        return await lines_of(client, raw_server.url, headers=headers, body=payload)

    fast, slow = both_paths(call)
    assert fast == slow == ['data: {"a":1}', "", "data: [DONE]", ""]
    (fast_head, fast_body), (slow_head, slow_body) = raw_server.requests
    assert fast_head == slow_head
    assert fast_body == slow_body
    assert fast_head.startswith(b"POST /v1/x?alt=sse HTTP/1.1\r\nHost: 127.0.0.1:")
    assert b"\r\naccept: text/event-stream\r\n" in fast_head  # the caller's, in its case
    assert b"Accept: */*" not in fast_head


def test_the_clients_own_headers_are_sent(raw_server):
    async def call(client):
        return await lines_of(client, raw_server.url)

    async def run():
        fast = new_client(headers={"User-Agent": "omp-test", "X-Client": "1"})
        await call(refuse_httpx(fast))
        await call(ViaHttpx(new_client(headers={"User-Agent": "omp-test", "X-Client": "1"})))

    asyncio.run(run())
    (fast_head, _), (slow_head, _) = raw_server.requests
    assert fast_head == slow_head
    assert b"\r\nUser-Agent: omp-test\r\nX-Client: 1\r\n" in fast_head


def test_sequential_requests_share_one_connection(raw_server):
    """Each reader stops at [DONE], as the providers' parsers do: what is left of the
    answer is read (``settled``) and the connection goes back to the pool."""

    async def until_done(client):
        done = False
        lines = stream_lines(
            client, raw_server.url, headers={}, body={"model": "m"}, settled=lambda: done
        )
        async with aclosing(lines):
            async for line in lines:
                if line == "data: [DONE]":
                    done = True
                    break

    async def run():
        client = refuse_httpx(new_client())
        for _ in range(5):
            await until_done(client)

    asyncio.run(run())
    assert len(raw_server.requests) == 5
    assert raw_server.connections == 1


def test_both_paths_share_the_clients_pools(raw_server):
    """A request ``stream_lines`` sends itself and one through ``client.stream`` use
    the same connections."""

    async def run():
        client = new_client()
        via_httpx = ViaHttpx(client)
        assert isinstance(open_stream(client, raw_server.url, {}, b"{}"), DirectStream)
        for index in range(4):
            await lines_of(client if index % 2 else via_httpx, raw_server.url)

    asyncio.run(run())
    assert len(raw_server.requests) == 4
    assert raw_server.connections == 1


def test_https_goes_through_the_shared_tls_context(verifying_contexts):
    url = "https://127.0.0.1:9/v1/x"  # nothing listens there

    async def call(client):
        with pytest.raises(ProviderError) as caught:
            await lines_of(client, url)
        return caught.value.message, caught.value.kind

    fast, slow = both_paths(call)
    assert fast == slow
    assert fast[0].startswith("connection refused by https://127.0.0.1:9/v1/x")
    assert len(verifying_contexts) == 1


def test_a_gzip_answer_is_decoded(replay_server):
    body = b'data: {"text":"hi"}\n\n' * 50 + b"data: [DONE]\n\n"
    for _ in range(2):
        replay_server.add(gzip.compress(body), headers={**SSE, "content-encoding": "gzip"})

    async def call(client):
        return await lines_of(client, replay_server.url + "/v1/x")

    fast, slow = both_paths(call)
    assert fast == slow == body.decode().split("\n")[:-1]
    assert "gzip" in replay_server.requests[0].headers["accept-encoding"]


def test_a_gzip_error_body_is_explained(replay_server):
    error = b'{"error": {"message": "model not found", "type": "invalid_request_error"}}'
    for _ in range(2):
        replay_server.add(gzip.compress(error), status=404, headers={"content-encoding": "gzip"})

    async def call(client):
        with pytest.raises(ProviderError) as caught:
            await lines_of(client, replay_server.url + "/v1/x")
        return caught.value.message, caught.value.status

    fast, slow = both_paths(call)
    assert fast == slow == ("HTTP 404 invalid_request_error: model not found", 404)


def test_a_raw_line_separator_inside_json_keeps_its_line_whole(replay_server):
    """U+2028 (and U+0085, form feed...) end a line for ``str.splitlines``, which
    httpx's ``aiter_lines`` uses, but not for server-sent events: JSON may hold them
    raw, and the line was cut in two."""
    text = 'data: {"text":"one\u2028two\u0085three\x0cfour\x1cfive"}'
    replay_server.add((text + "\n\n").encode(), headers=SSE)

    async def call():
        return await lines_of(refuse_httpx(new_client()), replay_server.url + "/v1/x")

    assert asyncio.run(call()) == [text, ""]


@pytest.mark.parametrize("ending", ["\r\n", "\r", "\n"])
def test_a_line_break_split_across_chunks_ends_one_line(replay_server, ending):
    first, second = ending[:1], ending[1:]
    chunks = [
        f"data: a{first}".encode(),
        f"{second}data: ✓".encode()[:-1],  # the check mark's UTF-8 cut in two as well
        "data: ✓".encode()[-1:] + f"{ending}{ending}".encode(),
    ]
    replay_server.add(chunks, headers=SSE, pause=0.02)

    async def call():
        return await lines_of(refuse_httpx(new_client()), replay_server.url + "/v1/x")

    assert asyncio.run(call()) == ["data: a", "data: ✓", ""]


def test_lines_split_as_server_sent_events_whatever_the_pieces():
    text = "a\r\nb\rc\n\nd\r\re\u2028f\r\n\r\ng"
    expected = ["a", "b", "c", "", "d", "", "e\u2028f", "", "g"]
    for cut in range(len(text) + 1):
        for second in range(cut, len(text) + 1):
            lines = SseLines()
            pieces = [text[:cut], text[cut:second], text[second:]]
            found = [line for piece in pieces for line in lines.feed(piece)] + lines.close()
            assert found == expected, (cut, second)


def test_a_refused_connection_is_the_same_error(replay_server):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1/x"

    async def call(client):
        with pytest.raises(ProviderError) as caught:
            await lines_of(client, url)
        return caught.value.message, caught.value.kind, caught.value.retry_limit

    fast, slow = both_paths(call)
    assert fast == slow
    assert (
        fast[0]
        == f"connection refused by {url} (nothing is listening there: is the server running?)"
    )


def test_an_answer_cut_off_is_the_same_error(replay_server):
    for _ in range(2):
        replay_server.add([b'data: {"a":1}\n\n', b"data: more"], headers=SSE, cut_after=1)

    async def call(client):
        seen = []
        with pytest.raises(ProviderError) as caught:
            async with aclosing(
                stream_lines(client, replay_server.url + "/v1/x", headers={}, body={})
            ) as lines:
                async for line in lines:
                    seen.append(line)
        return seen, caught.value.message, caught.value.kind

    fast, slow = both_paths(call)
    assert fast == slow
    assert fast[1].startswith("the stream ended early: connection failed (RemoteProtocolError)")


def test_the_response_status_and_headers_are_heard(replay_server):
    for _ in range(2):
        replay_server.add(ANSWER, headers={**SSE, "x-request-id": "r1", "Set-Cookie": "a=b"})

    async def call(client):
        heard = []

        async def on_response(status, headers):
            heard.append((status, {k: v for k, v in headers.items() if k != "date"}))

        options = SimpleNamespace(on_response=on_response, on_payload=None)
        await lines_of(client, replay_server.url + "/v1/x", options=options)
        return heard

    fast, slow = both_paths(call)
    assert fast == slow
    assert fast[0][1]["x-request-id"] == "r1"
    assert fast[0][1]["set-cookie"] == "[redacted]"


def test_a_cookie_the_server_sets_is_kept_and_sent_back(replay_server):
    """As httpx does: the client keeps it, and later requests (through httpx, which
    knows which cookie goes where) carry it."""
    replay_server.add(ANSWER, headers={**SSE, "set-cookie": "session=s1; Path=/"})
    replay_server.add(ANSWER, headers=SSE)

    async def run():
        client = new_client()
        url = replay_server.url + "/v1/x"
        await lines_of(refuse_httpx(client), url)
        del client.stream  # the class's stream again
        assert dict(client.cookies) == {"session": "s1"}
        assert not isinstance(open_stream(client, url, {}, b"{}"), DirectStream)
        await lines_of(client, url)

    asyncio.run(run())
    assert "cookie" not in replay_server.requests[0].headers
    assert replay_server.requests[1].headers["cookie"] == "session=s1"


def test_other_clients_keep_client_stream(monkeypatch):
    import httpx

    url = "http://127.0.0.1:9/v1/x"

    async def run():
        ours = new_client()
        assert isinstance(open_stream(ours, url, {}, b"{}"), DirectStream)
        others = [
            httpx.AsyncClient(),
            new_client(follow_redirects=True),
            new_client(auth=("user", "password")),
            ViaHttpx(ours),
        ]
        hooked = new_client()
        hooked.event_hooks["request"].append(lambda request: None)
        others.append(hooked)
        assert not isinstance(open_stream(ours, "http://u:p@127.0.0.1:9/", {}, b"{}"), DirectStream)
        for client in others:
            assert not isinstance(open_stream(client, url, {}, b"{}"), DirectStream)
        monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
        assert not isinstance(open_stream(new_client(), url, {}, b"{}"), DirectStream)

    asyncio.run(run())


def test_proxies_from_the_environment_keep_httpx(replay_server, monkeypatch):
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", replay_server.url)
    replay_server.add(ANSWER, headers=SSE)
    url = "http://model.example.invalid/v1/x"

    async def run():
        client = new_client()
        assert not isinstance(open_stream(client, url, {}, b"{}"), DirectStream)
        return await lines_of(client, url)

    assert asyncio.run(run()) == ['data: {"a":1}', "", "data: [DONE]", ""]
    assert replay_server.requests[0].path == url
