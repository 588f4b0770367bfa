"""One provider request with omp's robustness: retries with exponential backoff and
jitter (Retry-After honoured) while nothing has been streamed, within a time budget,
retry events, cost on the final message, and every failure turned into an error event
with a clear message.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from omp import AssistantStream, Model, StreamOptions, apply_cost

from omp_llm.errors import ProviderError, transport_error

Attempt = Callable[[AssistantStream], AsyncIterator[dict[str, Any]]]

STALL_BUDGET = 2
"""Attempts of one request that may stall after their first event (a role-only chunk,
then silence) before the request gives up, whatever retries are left: a server that
stalls twice mid-answer will not do better on the eleventh try."""


@dataclass
class RetryPolicy:
    """Settings ``retry.enabled``, ``retry.maxRetries`` (10), ``retry.baseDelayMs`` (500),
    ``retry.maxDelayMs`` (300000: a longer Retry-After fails at once) and
    ``retry.maxTotalMs`` (120000: the time one request may spend retrying, from its
    first failure; no retry starts, or is waited for, past it)."""

    enabled: bool = True
    max_retries: int = 10
    base_delay_ms: int = 500
    step_cap_ms: int = 8000
    max_delay_ms: int = 300_000
    max_total_ms: int = 120_000

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> RetryPolicy:
        retry = settings.get("retry") or {}
        return cls(
            enabled=bool(retry.get("enabled", True)),
            max_retries=int(retry.get("maxRetries", 10)),
            base_delay_ms=int(retry.get("baseDelayMs", 500)),
            max_delay_ms=int(retry.get("maxDelayMs", 300_000)),
            max_total_ms=int(retry.get("maxTotalMs", 120_000)),
        )

    def delay(self, attempt: int, retry_after: float | None) -> float | None:
        """Seconds to wait before retry number ``attempt`` (1-based), or None to stop."""
        if not self.enabled or attempt > self.max_retries:
            return None
        if retry_after is not None:
            return None if retry_after * 1000 > self.max_delay_ms else retry_after
        step = min(self.base_delay_ms * 2 ** (attempt - 1), self.step_cap_ms)
        return step * random.uniform(0.75, 1.0) / 1000


def timeouts(settings: dict[str, Any]) -> tuple[float, float]:
    """(first-event, idle) timeouts in seconds from ``stream.firstEventTimeoutMs`` (90000)
    and ``stream.idleTimeoutMs`` (180000)."""
    stream = settings.get("stream") or {}
    return (
        int(stream.get("firstEventTimeoutMs", 90_000)) / 1000,
        int(stream.get("idleTimeoutMs", 180_000)) / 1000,
    )


def _content_event(event: dict[str, Any]) -> bool:
    return event["type"] not in ("start", "done", "error")


async def run_stream(
    model: Model, options: StreamOptions, attempt: Attempt, secrets: list[str | None] | None = None
) -> AsyncIterator[dict[str, Any]]:
    """Drive ``attempt`` (which yields content events and a final done/error built with
    the AssistantStream it is given, and raises ProviderError on failure) to a result."""
    policy = RetryPolicy.from_settings(options.settings)
    out = AssistantStream(model)
    yield out.start()
    retries = stalls = 0
    first_failure: float | None = None
    while True:
        streamed = False
        try:
            async with contextlib.aclosing(attempt(out)) as events:
                async for event in events:
                    if event["type"] == "done":
                        apply_cost(out.message.usage, model)
                        if retries:
                            yield {"type": "auto_retry_end", "success": True, "attempt": retries}
                        yield event
                        return
                    if event["type"] == "error":
                        yield event
                        return
                    streamed = streamed or _content_event(event)
                    yield event
            raise ProviderError(
                "the stream ended before the response was complete",
                retryable=True,
                kind="incomplete",
            )
        except ProviderError as exc:
            error = exc
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            error = transport_error(exc, secrets)
        if first_failure is None:
            first_failure = time.monotonic()
        limit = policy.max_retries
        if error.retry_limit is not None:
            limit = min(limit, error.retry_limit)
        if error.kind == "stall":
            stalls += 1
            limit = min(limit, retries + STALL_BUDGET - stalls)
            if stalls >= STALL_BUDGET and not streamed:
                error.message += f"; gave up after {stalls} stalls on this request"
        delay = (
            None
            if streamed or not error.retryable or retries >= limit
            else policy.delay(retries + 1, error.retry_after)
        )
        spent = time.monotonic() - first_failure
        if delay is not None and (spent + delay) * 1000 > policy.max_total_ms:
            delay = None
            error.message += _over_budget(retries + 1, spent, policy.max_total_ms)
        if delay is None:
            if retries:
                yield {
                    "type": "auto_retry_end",
                    "success": False,
                    "attempt": retries,
                    "finalError": error.message,
                }
            yield failure(out, error)
            return
        retries += 1
        yield {
            "type": "auto_retry_start",
            "attempt": retries,
            "maxAttempts": limit,
            "delayMs": int(delay * 1000),
            "errorMessage": error.message,
        }
        await asyncio.sleep(delay)


def _over_budget(attempts: int, spent: float, budget_ms: int) -> str:
    tried = "1 attempt" if attempts == 1 else f"{attempts} attempts"
    return (
        f" (gave up after {tried} in {spent:.0f} s: retrying one request may take "
        f"{budget_ms / 1000:g} s at most, retry.maxTotalMs)"
    )


def failure(out: AssistantStream, error: ProviderError) -> dict[str, Any]:
    message = error.message
    if error.context_overflow:
        message = (
            f"context overflow: the conversation no longer fits the model's context "
            f"window ({message})"
        )
    event = out.error(message)
    out.message.error_kind = "context_overflow" if error.context_overflow else error.kind
    out.message.error_status = error.status
    return event
