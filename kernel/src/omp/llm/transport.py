"""POST a JSON body and stream the response's lines through any httpx-like client.

The kernel never imports httpx: a provider plugin passes its ``httpx.AsyncClient`` (or
anything with the same ``stream()`` / ``status_code`` / ``aread()`` / ``aiter_lines()``
surface). A non-2xx answer becomes a ProviderError carrying the server's explanation.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Callable
from typing import Any

from omp.llm.errors import ProviderError, http_error, redact_headers, transport_error


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
) -> AsyncIterator[str]:
    """The response's lines. ``first_timeout`` bounds the wait for the first line (the
    request, connecting included), ``idle_timeout`` every wait after it; either one
    ends the stream with a ProviderError saying which. Iterate it inside
    ``contextlib.aclosing`` (or from an attempt the driver closes) so the response is
    released in the task that opened it. ``options`` (the request's StreamOptions)
    may change the body (``on_payload``) and hear the response (``on_response``)."""
    waited, limit = "first-event", first_timeout
    if options is not None and options.on_payload is not None:
        body = await options.on_payload(body)
    try:
        async with asyncio.timeout(first_timeout):
            context = client.stream("POST", url, headers=headers, json=body)
            response = await context.__aenter__()
        try:
            if options is not None and options.on_response is not None:
                await options.on_response(
                    response.status_code, redact_headers(response.headers, secrets or [])
                )
            if response.status_code >= 400:
                async with asyncio.timeout(idle_timeout):
                    raw = await response.aread()
                raise http_error(response.status_code, raw, response.headers, secrets)
            lines = response.aiter_lines().__aiter__()
            while True:
                try:
                    async with asyncio.timeout(limit):
                        line = await lines.__anext__()
                except StopAsyncIteration:
                    return
                waited, limit = "idle", idle_timeout
                yield line
        finally:
            await context.__aexit__(None, None, None)
    except ProviderError:
        raise
    except TimeoutError:
        what = "no response" if waited == "first-event" else "no data"
        raise ProviderError(
            f"{what} from the provider for {limit:g} s ({waited} timeout)",
            retryable=True,
            kind="timeout",
        ) from None
    except Exception as exc:
        error = transport_error(exc, secrets)
        if waited == "idle":  # lines were delivered: the answer was cut off
            error = ProviderError(
                f"the stream ended early: {error.message}", retryable=True, kind="incomplete"
            )
        raise error from None


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
