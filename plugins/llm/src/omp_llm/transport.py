"""POST a JSON body and stream the response's lines through any httpx-like client.

The kernel never imports httpx: a provider plugin passes its ``httpx.AsyncClient`` (or
anything with the same ``stream()`` / ``status_code`` / ``aread()`` / ``aiter_lines()``
surface). A non-2xx answer becomes a ProviderError carrying the server's explanation.
The client ``omp_llm.http`` makes is spared httpx's request machinery
(``omp_llm.direct``).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from omp import redact_keys

from omp_llm.body import BodyPieces, request_pieces
from omp_llm.direct import open_stream
from omp_llm.errors import ProviderError, http_error, redact_headers, transport_error
from omp_llm.watchdog import Watchdog

SETTLE_GRACE = 5.0
"""Seconds to wait for what may follow a finished answer (usage, the end marker)."""

DRAIN_GRACE = 0.05
"""Seconds to wait for the rest of a finished answer's body once its reader stopped
(after ``[DONE]``, say), so the connection goes back to the pool instead of being
closed and opened again for the next request."""


async def stream_lines(
    client: Any,
    url: str,
    *,
    headers: dict[str, str],
    body: Any,
    secrets: list[str | None] | None = None,
    first_timeout: float = 90.0,
    idle_timeout: float = 180.0,
    options: Any = None,
    settled: Callable[[], bool] | None = None,
) -> AsyncIterator[str]:
    """The response's lines. ``first_timeout`` bounds the wait for the first line (the
    request, connecting included), ``idle_timeout`` every wait after it (one timer per
    stream: ``omp_llm.watchdog``); either one ends the stream with a ProviderError
    saying which. Iterate it inside
    ``contextlib.aclosing`` (or from an attempt the driver closes) so the response is
    released in the task that opened it. ``body`` is a payload dict or an
    ``omp_llm.body.PreparedBody`` (encoded reusing its cached parts); it is sent as
    bytes. ``options`` (the request's StreamOptions) may change the body
    (``on_payload``) and hear the response (``on_response``).

    ``settled`` says when the answer is finished but for trailing metadata (usage, an
    end marker): from then on each wait is at most ``SETTLE_GRACE`` seconds, and a
    timeout or a dropped connection ends the lines quietly - the parser completes the
    message - instead of failing a finished answer."""
    waited, limit = "first-event", first_timeout
    content = await request_pieces(body, options)
    if not any(name.lower() == "content-type" for name in headers):
        headers = {**headers, "content-type": "application/json"}
    if isinstance(content, BodyPieces):  # sent in pieces, not chunked
        headers = {**headers, "content-length": str(content.length)}
    watchdog = Watchdog()
    try:
        context = open_stream(client, url, headers, content)
        response = await watchdog.wait(context.__aenter__(), first_timeout)
        try:
            if options is not None and options.on_response is not None:
                await options.on_response(
                    response.status_code, redact_headers(response.headers, secrets or [])
                )
            if response.status_code >= 400:
                raw = await watchdog.wait(response.aread(), idle_timeout)
                raise http_error(response.status_code, raw, response.headers, secrets)
            lines = response.aiter_lines().__aiter__()
            while True:
                finished = settled is not None and settled()
                try:
                    line = await watchdog.wait(
                        lines.__anext__(), min(limit, SETTLE_GRACE) if finished else limit
                    )
                except StopAsyncIteration:
                    return
                except Exception:
                    if finished:
                        return
                    raise
                waited, limit = "idle", idle_timeout
                yield line
        except GeneratorExit:  # the reader has what it needs
            if settled is not None and settled():
                await _drain(lines, watchdog)
            raise
        finally:
            await context.__aexit__(None, None, None)
    except ProviderError:
        raise
    except TimeoutError:
        if waited == "idle":  # the answer began, then nothing: counts toward the stall budget
            raise ProviderError(
                f"the stream stalled: no data from {shown_url(url, secrets)} for {limit:g} s "
                "after it started (idle timeout)",
                retryable=True,
                kind="stall",
            ) from None
        raise ProviderError(
            f"no response from the provider for {limit:g} s (first-event timeout)",
            retryable=True,
            kind="timeout",
        ) from None
    except Exception as exc:
        if _refused(exc):
            raise connection_refused(url, secrets) from None
        error = transport_error(exc, secrets)
        if waited == "idle":  # lines were delivered: the answer was cut off
            error = ProviderError(
                f"the stream ended early: {error.message}", retryable=True, kind="incomplete"
            )
        raise error from None
    finally:
        watchdog.close()


async def _drain(lines: AsyncIterator[str], watchdog: Watchdog) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DRAIN_GRACE
    try:
        while True:
            await watchdog.wait(lines.__anext__(), max(deadline - loop.time(), 0.0))
    except Exception:  # the end, or a slow or broken one: then the connection is closed
        return


def connection_refused(url: str, secrets: list[str | None] | None = None) -> ProviderError:
    """Nothing listens at ``url``. A local server gets one quick retry (it may be
    starting); the message names the URL, without credentials or query."""
    local = is_loopback(url)
    hint = " (nothing is listening there: is the server running?)" if local else ""
    return ProviderError(
        f"connection refused by {shown_url(url, secrets)}{hint}",
        retryable=True,
        kind="connection_refused",
        retry_limit=1 if local else None,
    )


def is_loopback(url: str) -> bool:
    """Whether ``url``'s host is this machine: localhost, 127.0.0.0/8 or ::1."""
    import ipaddress

    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def shown_url(url: str, secrets: list[str | None] | None = None) -> str:
    """``url`` fit for a message: no user:password, query or fragment, secrets hidden."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return redact_keys(urlunsplit((parts.scheme, netloc, parts.path, "", "")), secrets or [])


def _refused(exc: BaseException) -> bool:
    """Whether a connection was refused somewhere in ``exc``'s chain (httpx wraps the
    ConnectionRefusedError in ConnectError("All connection attempts failed"))."""
    seen: set[int] = set()
    found: BaseException | None = exc
    while found is not None and id(found) not in seen:
        if isinstance(found, ConnectionRefusedError):
            return True
        seen.add(id(found))
        found = found.__cause__ or found.__context__
    return False


_PER_LOOP: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Any]] = (
    weakref.WeakKeyDictionary()
)


def per_loop(key: str, factory: Callable[[], Any]) -> Any:
    """One object per running event loop and ``key`` - an HTTP client, which cannot
    cross loops - made by ``factory`` on first use, and again once it was closed."""
    objects = _PER_LOOP.setdefault(asyncio.get_running_loop(), {})
    found = objects.get(key)
    if found is None or getattr(found, "is_closed", False):
        found = objects[key] = factory()
    return found
