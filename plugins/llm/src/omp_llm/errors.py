"""Provider errors: what went wrong, whether a retry can help, whether the context
overflowed. Messages are what the user reads; they never contain an API key."""

from __future__ import annotations

import json
import re
from typing import Any

from omp import is_context_overflow, redact_keys

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}

_RETRYABLE_TYPES = {
    "overloaded_error",
    "rate_limit_error",
    "api_error",
    "server_error",
    "timeout",
    "service_unavailable",
    "rate_limit_exceeded",
    "RESOURCE_EXHAUSTED",
    "UNAVAILABLE",
    "INTERNAL",
    "DEADLINE_EXCEEDED",
}
_FINAL_KINDS = {
    "insufficient_quota",
    "billing_hard_limit_reached",
    "invalid_api_key",
    "authentication_error",
    "permission_error",
    "permission_denied",
}
"""Kinds no retry can fix, even when they come with a 429 (an exhausted quota)."""
_TRANSPORT_ERRORS = (
    "ConnectError",
    "ConnectTimeout",
    "ReadError",
    "WriteError",
    "RemoteProtocolError",
    "PoolTimeout",
    "ReadTimeout",
    "WriteTimeout",
    "ConnectionResetError",
    "ConnectionRefusedError",
    "BrokenPipeError",
    "IncompleteRead",
    "TimeoutError",
)


class ProviderError(Exception):
    """A failed provider request. ``retryable`` says whether trying again may help;
    ``retry_limit`` caps the retries below ``retry.maxRetries`` (a dead local server
    gets one quick retry, not a minute of them)."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        kind: str | None = None,
        retry_limit: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after
        self.kind = kind
        self.retry_limit = retry_limit
        self.context_overflow = is_context_overflow(message)


_SECRET_HEADER = re.compile(
    r"cookie|authori[sz]ation|authenticate|api[-_]?key|secret|password|token$", re.IGNORECASE
)
"""Response headers whose values are credentials (``...-tokens`` rate limits are not)."""


def redact_headers(headers: Any, secrets: list[str | None]) -> dict[str, str]:
    """Response headers with lower-case names, credentials replaced by ``[redacted]``."""
    items = headers.items() if hasattr(headers, "items") else headers
    redacted = {}
    for name, value in items:
        secret = _SECRET_HEADER.search(str(name))
        redacted[str(name).lower()] = "[redacted]" if secret else redact_keys(str(value), secrets)
    return redacted


def parse_retry_after(headers: Any) -> float | None:
    """Seconds from Retry-After (seconds or an HTTP date) or retry-after-ms."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        from datetime import UTC, datetime
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, (when - datetime.now(UTC)).total_seconds())


def explain_body(body: bytes | str) -> tuple[str, str | None]:
    """The message and error type a provider put in an error body (JSON or text)."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        data = json.loads(text)
    except ValueError:
        return " ".join(text.split())[:500], None
    return _explain_json(data)


def _explain_json(data: Any) -> tuple[str, str | None]:
    if isinstance(data, list) and data:
        return _explain_json(data[0])
    if not isinstance(data, dict):
        return str(data)[:500], None
    error = data.get("error", data)
    if isinstance(error, str):
        return error, data.get("type")
    if isinstance(error, dict):
        message = error.get("message") or error.get("msg") or json.dumps(error)[:500]
        named = [error.get(k) for k in ("type", "status", "code")]
        kind = next((k for k in named if isinstance(k, str) and k), None)
        if kind is None:
            kind = next((str(k) for k in named if k is not None), None)
        return str(message), kind
    return json.dumps(data)[:500], None


def http_error(
    status: int, body: bytes | str, headers: Any = None, secrets: list[str | None] | None = None
) -> ProviderError:
    message, kind = explain_body(body)
    message = redact_keys(message, secrets or [])
    label = f"HTTP {status}" + (f" {kind}" if kind else "")
    retryable = (
        status in RETRYABLE_STATUS or kind in _RETRYABLE_TYPES
    ) and kind not in _FINAL_KINDS
    return ProviderError(
        f"{label}: {message}" if message else label,
        status=status,
        retryable=retryable,
        retry_after=parse_retry_after(headers),
        kind=kind,
    )


def stream_error(
    message: str, kind: str | None = None, secrets: list[str | None] | None = None
) -> ProviderError:
    """An error event inside a 200 stream (Anthropic's overloaded_error, for example)."""
    text = redact_keys(message, secrets or [])
    label = f"{kind}: {text}" if kind else text
    return ProviderError(
        label,
        retryable=kind in _RETRYABLE_TYPES,
        kind=kind,
        status=529 if kind == "overloaded_error" else None,
    )


def transport_error(exc: BaseException, secrets: list[str | None] | None = None) -> ProviderError:
    """A connection-level failure (reset, refused, protocol error, timeout)."""
    name = type(exc).__name__
    text = redact_keys(" ".join(str(exc).split()) or name, secrets or [])
    retryable = name in _TRANSPORT_ERRORS or isinstance(exc, ConnectionError | TimeoutError)
    return ProviderError(
        f"connection failed ({name}): {text}", retryable=retryable, kind="transport"
    )
