"""Choosing a backend and asking it: ``webSearch.provider`` picks one, ``auto`` walks the
configured ones in order and goes on to the next when one fails."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from omp_tool_web_search.backends import BACKENDS, Access, Answer, Backend, Settings

MAX_RESPONSE_BYTES = 2 * 1024 * 1024
ERROR_EXCERPT_CHARS = 200


class SearchError(Exception):
    """A one-line reason a search failed, fit for the model and the user (no secrets)."""


def configured(
    settings: Settings, env: Mapping[str, str], urls: Mapping[str, str]
) -> list[tuple[Backend, Access]]:
    """The backends to try, in order, each with where it is reached. ``urls`` replaces a
    backend's API URL (a proxy, a test's stand-in). SearchError when none can be used."""
    choice = str(settings.get("webSearch.provider") or "auto")
    names = list(BACKENDS) if choice == "auto" else [choice]
    found: list[tuple[Backend, Access]] = []
    for name in names:
        backend = BACKENDS.get(name)
        if backend is None:
            raise SearchError(
                f"web_search: unknown webSearch.provider {choice!r} "
                f"(choose auto, {', '.join(BACKENDS)})."
            )
        access = backend.locate(settings, env)
        if access is not None:
            if name in urls:
                access = dataclasses.replace(access, url=urls[name])
            found.append((backend, access))
    if found:
        return found
    if choice != "auto":
        backend = BACKENDS[choice]
        raise SearchError(
            f"web_search: webSearch.provider is {choice} but {backend.label} is not "
            f"configured: set {backend.needs}."
        )
    needs = ", ".join(b.needs for b in BACKENDS.values())
    raise SearchError(f"web_search: no search backend is configured. Set one of {needs}.")


async def ask(
    backend: Backend, access: Access, query: str, recency: str | None, limit: int, timeout: float
) -> Answer:
    """One backend's answer to ``query``; SearchError with a one-line reason otherwise."""
    import httpx

    request = backend.build(access, query, recency, limit)
    if not _is_web_url(request.url):
        raise SearchError(
            f"{backend.label}'s URL is not a full http(s):// URL: {_safe_url(request.url)} "
            f"(set {backend.needs})"
        )
    try:
        async with (
            httpx.AsyncClient(timeout=httpx.Timeout(timeout), follow_redirects=False) as client,
            client.stream(
                request.method,
                request.url,
                params=request.params,
                headers={"User-Agent": "omp-web-search/0.1", **request.headers},
                json=request.json,
            ) as response,
        ):
            body = await _read(response, backend.label)
    except httpx.TimeoutException:
        raise SearchError(f"{backend.label} did not answer within {timeout:g} s") from None
    except httpx.HTTPError as exc:
        raise SearchError(f"{backend.label} could not be reached ({_reason(exc)})") from None
    except (httpx.InvalidURL, ValueError):
        raise SearchError(f"{backend.label}'s URL is not valid: {_safe_url(request.url)}") from None
    if response.status_code in (401, 403):
        raise SearchError(
            f"{backend.label} refused the request (HTTP {response.status_code}): "
            f"check {backend.needs}"
        )
    if response.status_code >= 300:
        excerpt = _excerpt(body)
        raise SearchError(
            f"{backend.label} answered HTTP {response.status_code}"
            + (f": {excerpt}" if excerpt else "")
        )
    try:
        import json

        data = json.loads(body)
    except ValueError:
        hint = " (is its JSON format enabled?)" if backend.name == "searxng" else ""
        raise SearchError(f"{backend.label} did not answer with JSON{hint}") from None
    return backend.parse(data)


def hide(text: str, access: Access) -> str:
    """``text`` without the backend's key, should a server have echoed it."""
    return text.replace(access.key, "[REDACTED]") if access.key else text


async def _read(response: Any, label: str) -> bytes:
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > MAX_RESPONSE_BYTES:
            raise SearchError(
                f"{label}'s answer is larger than {MAX_RESPONSE_BYTES // (1024 * 1024)} MB"
            )
    return bytes(body)


def _excerpt(body: bytes) -> str:
    text = " ".join(body.decode("utf-8", "replace").split())
    return text if len(text) <= ERROR_EXCERPT_CHARS else text[:ERROR_EXCERPT_CHARS] + "…"


def _is_web_url(url: str) -> bool:
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        return parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        return False


def _safe_url(url: str) -> str:
    """``url`` without its query and credentials, for an error line."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return "(unparsable)"
    host = parts.hostname or ""
    return f"{parts.scheme}://{host}{parts.path}" if parts.scheme else repr(url[:60])


def _reason(exc: BaseException) -> str:
    """The transport error without the request URL (it can hold a query or a token)."""
    return type(exc).__name__
