"""MCP errors as one readable line, and what kind of failure they are."""

from __future__ import annotations

import asyncio
from typing import Any


def describe_error(exc: BaseException) -> str:
    """One readable line for an error, exception groups unwrapped."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError | asyncio.TimeoutError):
        return "timed out"
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def error_code(exc: BaseException) -> Any:
    return getattr(getattr(exc, "error", None), "code", getattr(exc, "code", None))


def is_timeout(exc: BaseException) -> bool:
    from mcp_types import REQUEST_TIMEOUT

    return error_code(exc) == REQUEST_TIMEOUT or isinstance(exc, TimeoutError)


def is_closed(exc: BaseException) -> bool:
    from mcp_types import CONNECTION_CLOSED

    return error_code(exc) == CONNECTION_CLOSED


def first_line(text: str | None) -> str:
    return (text or "unknown error").splitlines()[0]
