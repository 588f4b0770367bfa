"""POST a provider request straight through the httpcore pools of omp's own client.

Through ``client.stream`` httpx builds a Request, merges cookies and parameters, runs
its auth and redirect machinery and event hooks, and reads the answer through four
nested generators: ~0.4 ms a request against a local server, every turn. For a client
``omp_llm.http.new_client`` made with its own transport (no proxies, and no auth,
cookies, parameters, redirects or event hooks in use) ``open_stream`` sends the same
request - httpx's headers in httpx's order, the same body, the client's timeouts -
through the same connection pools, and reads the answer as httpx would: the content
decoded by httpx's own decoders when the server encoded it, the text by the response's
charset, httpcore's errors raised as the httpx ones httpx makes of them. Any other
client keeps ``client.stream``; so does this one once a server set a cookie (kept in
the client, as httpx keeps it: httpx knows which cookie to send where).

Lines are split as server-sent events are (LF, CRLF or CR), not as ``str.splitlines``
splits them (also at U+2028, U+0085, form feed...: httpx cut a JSON string holding a
raw U+2028 in two).

httpx and httpcore are imported on first use, never with this module.
"""

from __future__ import annotations

import codecs
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from omp_llm.body import BodyPieces
from omp_llm.sse import SseLines

_CLIENTS: dict[int, tuple[weakref.ref[Any], Any]] = {}
_TARGETS: dict[str, Any] = {}
_ERRORS: list[tuple[type, type]] = []
_LOG: Any = None
_httpx: Any = None
_httpcore: Any = None
_STREAM_CLASS: type | None = None


def register(client: Any, transport: Any) -> None:
    """Let ``open_stream`` send ``client``'s requests through ``transport.pool(scheme)``
    (the pools ``client`` itself sends through)."""
    key = id(client)
    _CLIENTS[key] = (weakref.ref(client, lambda _: _CLIENTS.pop(key, None)), transport)


def open_stream(client: Any, url: str, headers: dict[str, str], content: Any) -> Any:
    """``client.stream("POST", url, headers=headers, content=content)``, or what stands
    for it when ``client`` was registered and nothing it is set up with needs httpx."""
    found = _CLIENTS.get(id(client))
    sendable = type(content) is bytes or isinstance(content, BodyPieces)
    if found is not None and sendable and found[0]() is client and _plain(client):
        target = _target(url)
        if target is not None:
            return DirectStream(client, found[1], target, headers, content)
    return client.stream("POST", url, headers=headers, content=content)


def _plain(client: Any) -> bool:
    hooks = client.event_hooks
    return not (
        client.is_closed
        or client.auth is not None
        or client.follow_redirects
        or client.params
        or client.cookies
        or hooks["request"]
        or hooks["response"]
    )


def _target(url: str) -> Any:
    """``url`` as httpx parses it, with its httpcore URL and Host value; None for what
    the fast path leaves to httpx (relative, credentials, another scheme, invalid)."""
    try:
        return _TARGETS[url]
    except KeyError:
        pass
    httpx, httpcore = _modules()
    try:
        parsed = httpx.URL(url)
    except Exception:  # client.stream raises it
        found = None
    else:
        plain = parsed.scheme in ("http", "https") and parsed.host and not parsed.userinfo
        found = None
        if plain:
            core = httpcore.URL(
                scheme=parsed.raw_scheme,
                host=parsed.raw_host,
                port=parsed.port,
                target=parsed.raw_path,
            )
            found = (parsed, core, parsed.netloc)
    if len(_TARGETS) >= 64:
        _TARGETS.clear()
    _TARGETS[url] = found
    return found


def request_headers(
    default: list[tuple[bytes, bytes]], headers: dict[str, str], netloc: bytes, content: Any
) -> list[tuple[bytes, bytes]]:
    """What httpx sends for a request with ``headers`` from a client whose headers are
    ``default`` (raw): the client's, less those ``headers`` name in any case, then
    ``headers``, the body's length (or chunked), and Host in front."""
    given = [(_ascii(name), _ascii(value)) for name, value in headers.items()]
    named = {name.lower() for name, _ in given}
    out = [(name, value) for name, value in default if name.lower() not in named]
    out += given
    named = {name.lower() for name, _ in out}
    if isinstance(content, bytes):
        if content and b"content-length" not in named:
            out.append((b"Content-Length", str(len(content)).encode()))
            named.add(b"content-length")
    elif b"content-length" not in named and b"transfer-encoding" not in named:
        out.append((b"Transfer-Encoding", b"chunked"))
        named.add(b"transfer-encoding")
    auto = [] if b"host" in named else [(b"Host", netloc)]
    if b"content-length" not in named and b"transfer-encoding" not in named:
        auto.append((b"Content-Length", b"0"))
    return auto + out if auto else out


def _ascii(text: str | bytes) -> bytes:
    if isinstance(text, str):
        return text.encode("ascii")
    if isinstance(text, bytes):
        return text
    raise TypeError(f"Header value must be str or bytes, not {type(text)}")  # httpx's words


class DirectStream:
    """The ``client.stream(...)`` context: sends on enter, releases the connection to
    the pool (or closes it, when the answer was not read to its end) on exit."""

    def __init__(
        self, client: Any, transport: Any, target: Any, headers: dict[str, str], content: Any
    ) -> None:
        self.client, self.transport, self.target = client, transport, target
        self.headers, self.content = headers, content
        self.response: DirectResponse | None = None

    async def __aenter__(self) -> DirectResponse:
        httpx, httpcore = _modules()
        client, (url, core_url, netloc) = self.client, self.target
        content = self.content
        headers = request_headers(client.headers.raw, self.headers, netloc, content)
        request = httpcore.Request(
            "POST",
            core_url,
            headers=headers,
            content=content,
            extensions={"timeout": client.timeout.as_dict()},
        )
        pool = self.transport.pool(url.scheme)
        with httpx_errors():
            answer = await pool.handle_async_request(request)
        self.response = response = DirectResponse(answer.status, answer.headers, answer.stream)
        if response.sets_cookies:
            sent = httpx.Request("POST", url, headers=headers)
            client.cookies.extract_cookies(
                httpx.Response(answer.status, headers=answer.headers, request=sent)
            )
        if _LOG.isEnabledFor(20):  # logging.INFO, as httpx logs every request
            shown = httpx.Response(answer.status, extensions=answer.extensions)
            _LOG.info(
                'HTTP Request: %s %s "%s %d %s"',
                "POST",
                url,
                shown.http_version,
                answer.status,
                shown.reason_phrase,
            )
        return response

    async def __aexit__(self, *exc_info: Any) -> None:
        if self.response is not None:
            await self.response.aclose()


class DirectResponse:
    """The surface of an ``httpx.Response`` that ``stream_lines`` reads: status_code,
    headers, aread(), aiter_lines()."""

    def __init__(self, status: int, raw: list[tuple[bytes, bytes]], stream: Any) -> None:
        self.status_code = status
        self.raw_headers = raw
        self.stream = stream
        self.sets_cookies = self.encoded = False
        self._content_type: bytes | None = None
        self._headers: Any = None
        self._decoded: Any = None
        self._lines: Any = None
        for name, value in raw:
            name = name.lower()
            if name == b"content-type":
                self._content_type = value
            elif name == b"content-encoding":
                self.encoded = True
            elif name == b"set-cookie":
                self.sets_cookies = True

    @property
    def headers(self) -> Any:
        if self._headers is None:
            self._headers = _modules()[0].Headers(self.raw_headers)
        return self._headers

    def encoding(self) -> str:
        """The response's charset as httpx reads it (utf-8 unless it names another)."""
        content_type = self._content_type
        if content_type is None or b"charset" not in content_type.lower():
            return "utf-8"
        if content_type.lower().replace(b" ", b"").endswith(b"charset=utf-8"):
            return "utf-8"
        return _modules()[0].Response(200, headers=self.raw_headers).encoding or "utf-8"

    def _chunks(self) -> Any:
        """The body's bytes, decoded by httpx when the server encoded them."""
        if not self.encoded:
            return self.stream.__aiter__()
        httpx = _modules()[0]
        self._decoded = httpx.Response(
            self.status_code, headers=self.raw_headers, stream=response_stream(self.stream)
        )
        return self._decoded.aiter_bytes().__aiter__()

    async def aread(self) -> bytes:
        with httpx_errors():
            return b"".join([part async for part in self._chunks()])

    def aiter_lines(self) -> Any:
        self._lines = self._iter_lines()
        return self._lines

    async def _iter_lines(self) -> Any:
        decode = codecs.getincrementaldecoder(self.encoding())(errors="replace").decode
        chunks = self._chunks()
        lines = SseLines()
        try:
            with httpx_errors():
                async for chunk in chunks:
                    for line in lines.feed(decode(chunk)):
                        yield line
        finally:  # now, not when the garbage collector finds it
            await chunks.aclose()
        for line in lines.feed(decode(b"", True)) + lines.close():
            yield line

    async def aclose(self) -> None:
        if self._lines is not None:
            await self._lines.aclose()
        if self._decoded is not None:
            await self._decoded.aclose()
        await self.stream.aclose()


def response_stream(stream: Any) -> Any:
    """httpcore's response ``stream`` as an ``httpx.AsyncByteStream`` raising httpx's
    errors."""
    global _STREAM_CLASS
    if _STREAM_CLASS is None:
        httpx = _modules()[0]

        class ResponseStream(httpx.AsyncByteStream):
            def __init__(self, stream: Any) -> None:
                self._stream = stream

            async def __aiter__(self) -> Any:
                with httpx_errors():
                    async for part in self._stream:
                        yield part

            async def aclose(self) -> None:
                await self._stream.aclose()

        _STREAM_CLASS = ResponseStream
    return _STREAM_CLASS(stream)


@contextmanager
def httpx_errors() -> Iterator[None]:
    """Raise httpcore's errors as the httpx ones httpx makes of them (``httpx_error``),
    chained to the original; anything else passes unchanged."""
    try:
        yield
    except Exception as exc:
        error = httpx_error(exc)
        if error is None:
            raise
        raise error from exc


def httpx_error(exc: Exception) -> Exception | None:
    """The httpx error httpx raises for httpcore's ``exc`` (the most specific class
    that fits, with the same message), or None when ``exc`` is not httpcore's."""
    if not _ERRORS:
        httpx, httpcore = _modules()
        for name in (
            "TimeoutException",
            "ConnectTimeout",
            "ReadTimeout",
            "WriteTimeout",
            "PoolTimeout",
            "NetworkError",
            "ConnectError",
            "ReadError",
            "WriteError",
            "ProxyError",
            "UnsupportedProtocol",
            "ProtocolError",
            "LocalProtocolError",
            "RemoteProtocolError",
        ):
            _ERRORS.append((getattr(httpcore, name), getattr(httpx, name)))
    mapped = None
    for source, target in _ERRORS:
        if isinstance(exc, source) and (mapped is None or issubclass(target, mapped)):
            mapped = target
    return None if mapped is None else mapped(str(exc))


def _modules() -> tuple[Any, Any]:
    global _httpx, _httpcore, _LOG
    if _httpcore is None:
        import logging

        from omp_llm.http import import_httpx

        _httpx = import_httpx()
        import httpcore

        _httpcore = httpcore
        _LOG = logging.getLogger("httpx")
    return _httpx, _httpcore
