"""The httpx client the HTTP provider plugins share, for plugins that depend on httpx.

The kernel does not depend on httpx: this module imports it only when a plugin asks for
a client. What it saves on every run and request:

- no verifying TLS context (loading the CA bundle, ~20 ms) for a plain ``http://``
  server such as a local model; the first ``https://`` request makes one, and every
  client of the process shares it;
- one client per event loop and key (``per_loop``), so connections are kept alive
  across the requests of a run;
- no import attempted per request: httpcore looks for ``sniffio`` on every lock it
  sets up, and a missing module is searched for on ``sys.path`` each time;
- not httpx's command-line client (``import httpx`` imports it, with click, rich and
  pygments, whenever they are installed: ~35 ms of a one-turn run).
"""

from __future__ import annotations

import ssl
import sys
import threading
from typing import Any

from omp.llm.transport import per_loop

_TLS: ssl.SSLContext | None = None
_PLAIN: ssl.SSLContext | None = None
_LOCK = threading.Lock()
_TRANSPORT_CLASS: type | None = None


def shared_client(key: str) -> Any:
    """The ``httpx.AsyncClient`` of the running event loop for ``key`` (a provider's
    name): made on first use, again after it was closed."""
    return per_loop(key, new_client)


def new_client(**options: Any) -> Any:
    """An ``httpx.AsyncClient`` (``options`` are its own; no timeout unless given: the
    provider transport applies its own) whose TLS context is the process's, made only
    when an https:// URL is first requested. With proxies in the environment httpx's
    own transports are kept, as only they honour them."""
    import urllib.request

    httpx = import_httpx()
    _settle_sniffio()
    options.setdefault("timeout", None)
    if urllib.request.getproxies():
        return httpx.AsyncClient(verify=tls_context(), **options)
    return httpx.AsyncClient(transport=_transport_class()(), **options)


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


def _plain_context() -> ssl.SSLContext:
    """What httpx insists on for a transport that never does TLS: a bare context, no
    certificates loaded (~1 ms once, against ~20 ms for a verifying one)."""
    global _PLAIN
    if _PLAIN is None:
        _PLAIN = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    return _PLAIN


def _transport_class() -> type:
    global _TRANSPORT_CLASS
    if _TRANSPORT_CLASS is None:
        httpx = import_httpx()

        class LazyTlsTransport(httpx.AsyncBaseTransport):
            """Sends http:// requests through a transport without a verifying TLS
            context, and makes the TLS one on the first https:// request."""

            def __init__(self) -> None:
                self._plain: httpx.AsyncHTTPTransport | None = None
                self._tls: httpx.AsyncHTTPTransport | None = None

            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                if request.url.scheme == "http":
                    if self._plain is None:
                        self._plain = httpx.AsyncHTTPTransport(verify=_plain_context())
                    return await self._plain.handle_async_request(request)
                if self._tls is None:
                    self._tls = httpx.AsyncHTTPTransport(verify=tls_context())
                return await self._tls.handle_async_request(request)

            async def aclose(self) -> None:
                for transport in (self._plain, self._tls):
                    if transport is not None:
                        await transport.aclose()

        _TRANSPORT_CLASS = LazyTlsTransport
    return _TRANSPORT_CLASS


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
