"""The httpx client the HTTP provider plugins share, for plugins that depend on httpx.

The kernel does not depend on httpx: this module imports it only when a plugin asks for
a client. What it saves on every run and request:

- no TLS context at all (a verifying one loads the CA bundle, ~20 ms) for a plain
  ``http://`` server such as a local model; the first ``https://`` request makes one,
  and every client of the process shares it;
- one client per event loop and key (``per_loop``), so connections are kept alive
  across the requests of a run;
- no import attempted per request: httpcore looks for ``sniffio`` on every lock it
  sets up, and a missing module is searched for on ``sys.path`` each time;
- not httpx's request machinery for a provider request (``omp_llm.direct``: ~0.4 ms
  a request), nor anyio's per-read and per-write machinery (``omp_llm.netio``);
- not httpx's command-line client (``import httpx`` imports it, with click, rich and
  pygments, whenever they are installed: ~35 ms of a one-turn run).
"""

from __future__ import annotations

import ssl
import sys
import threading
from typing import Any

from omp_llm import direct
from omp_llm.transport import per_loop

_TLS: ssl.SSLContext | None = None
_LOCK = threading.Lock()
_TRANSPORT_CLASS: type | None = None
_DIRECT_OPTIONS = frozenset({"timeout", "headers"})
"""The options of a client whose provider requests ``direct.open_stream`` may send."""


def shared_client(key: str) -> Any:
    """The ``httpx.AsyncClient`` of the running event loop for ``key`` (a provider's
    name): made on first use, again after it was closed."""
    return per_loop(key, new_client)


def new_client(**options: Any) -> Any:
    """An ``httpx.AsyncClient`` (``options`` are its own; no timeout unless given: the
    provider transport applies its own) whose TLS context is the process's, made only
    when an https:// URL is first requested. With proxies in the environment httpx's
    own transports are kept, as only they honour them. ``stream_lines`` sends through
    the client's pools directly (``omp_llm.direct``) unless ``options`` go beyond a
    timeout and headers."""
    import urllib.request

    httpx = import_httpx()
    _settle_sniffio()
    options.setdefault("timeout", None)
    if urllib.request.getproxies():
        return httpx.AsyncClient(verify=tls_context(), **options)
    transport = _transport_class()()
    client = httpx.AsyncClient(transport=transport, **options)
    if options.keys() <= _DIRECT_OPTIONS:
        direct.register(client, transport)
    return client


def import_httpx() -> Any:
    """``httpx``, imported without ``httpx._main`` (its ``httpx`` command: httpx falls
    back to a stub ``main`` when that import fails, as it does without click)."""
    if "httpx" not in sys.modules:
        sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    import httpx

    return httpx


def tls_context() -> ssl.SSLContext:
    """The process's verifying TLS context (certifi's bundle, or SSL_CERT_FILE /
    SSL_CERT_DIR as httpx reads them), made once."""
    global _TLS
    with _LOCK:
        if _TLS is None:
            _TLS = import_httpx().create_ssl_context()
        return _TLS


def _transport_class() -> type:
    global _TRANSPORT_CLASS
    if _TRANSPORT_CLASS is None:
        httpx = import_httpx()

        class LazyTlsTransport(httpx.AsyncBaseTransport):
            """What ``httpx.AsyncHTTPTransport`` does, through two httpcore pools:
            http:// requests through one without a TLS context, https:// ones through
            one with the process's, made on the first such request. ``open_stream``
            sends provider requests through the same pools."""

            def __init__(self) -> None:
                self._plain: Any = None
                self._tls: Any = None

            def pool(self, scheme: str) -> Any:
                if scheme == "http":
                    if self._plain is None:
                        self._plain = _new_pool(None)
                    return self._plain
                if self._tls is None:
                    self._tls = _new_pool(tls_context())
                return self._tls

            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                return await _send(self.pool(request.url.scheme), request)

            async def aclose(self) -> None:
                for pool in (self._plain, self._tls):
                    if pool is not None:
                        await pool.aclose()

        _TRANSPORT_CLASS = LazyTlsTransport
    return _TRANSPORT_CLASS


def _new_pool(ssl_context: Any) -> Any:
    """An httpcore connection pool as ``httpx.AsyncHTTPTransport`` makes one (httpx's
    default limits), with ``ssl_context`` (None: none is made for plain http://), on
    plain asyncio streams (``omp_llm.netio``) rather than anyio's."""
    from omp_llm.netio import AsyncioBackend

    httpcore = _httpcore()
    return httpcore.AsyncConnectionPool(
        ssl_context=ssl_context,
        network_backend=AsyncioBackend(),
        max_connections=100,
        max_keepalive_connections=20,
        keepalive_expiry=5.0,
        http1=True,
        http2=False,
        retries=0,
    )


async def _send(pool: Any, request: Any) -> Any:
    """``httpx.AsyncHTTPTransport.handle_async_request`` of ``request`` (an
    ``httpx.Request``) through ``pool``."""
    httpx, httpcore = import_httpx(), _httpcore()
    url = request.url
    sent = httpcore.Request(
        method=request.method,
        url=httpcore.URL(
            scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path
        ),
        headers=request.headers.raw,
        content=request.stream,
        extensions=request.extensions,
    )
    with direct.httpx_errors():
        answer = await pool.handle_async_request(sent)
    return httpx.Response(
        status_code=answer.status,
        headers=answer.headers,
        stream=direct.response_stream(answer.stream),
        extensions=answer.extensions,
    )


def _httpcore() -> Any:
    import httpcore

    return httpcore


def _settle_sniffio() -> None:
    """Make httpcore's ``import sniffio`` (several per request) a dictionary look-up:
    found once when installed; when it is not, recorded as absent so the import fails
    at once instead of searching ``sys.path`` again (httpcore then assumes asyncio,
    which is what omp runs on)."""
    if "sniffio" in sys.modules:
        return
    try:
        import sniffio  # noqa: F401
    except ImportError:
        sys.modules["sniffio"] = None  # type: ignore[assignment]
