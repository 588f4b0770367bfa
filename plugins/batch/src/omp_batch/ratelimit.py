"""A rate limit per provider shared by every worker of a batch, so fifty sessions
together stay under the provider's requests and tokens per minute instead of each
tripping 429s (which the kernel's retries would then back off from, one by one).

Two token buckets per provider (requests, tokens), refilled continuously to their
per-minute limit. A request waits until both hold enough; its input tokens are
estimated from the request body (four characters a token) and the answer's output
tokens are debited when it ends, which may leave the bucket below zero so the next
request waits. The buckets live where every worker can reach them: a file under
DIR/.ratelimit with an flock for the local engine (``FileLimiter``), an actor for Ray.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import omp

REQUESTS_SETTING = "batch.requestsPerMinute"
TOKENS_SETTING = "batch.tokensPerMinute"
ANY_PROVIDER = "*"


@dataclass
class Limit:
    requests: int | None = None
    tokens: int | None = None


def limits_from_settings(settings: Any) -> dict[str, Limit]:
    """``batch.requestsPerMinute`` and ``batch.tokensPerMinute``: provider name (or
    ``*`` for every other provider) to a per-minute limit."""
    limits: dict[str, Limit] = {}
    for key, attr in ((REQUESTS_SETTING, "requests"), (TOKENS_SETTING, "tokens")):
        for provider, value in (settings.get(key) or {}).items():
            setattr(limits.setdefault(str(provider), Limit()), attr, int(value))
    return limits


def limit_for(limits: dict[str, Limit], provider: str) -> Limit | None:
    """The provider's own limits, each falling back to the ``*`` one."""
    own, anyone = limits.get(provider), limits.get(ANY_PROVIDER)
    if own is None or anyone is None:
        return own or anyone
    return Limit(own.requests or anyone.requests, own.tokens or anyone.tokens)


def reserve(state: dict[str, float], limit: Limit, requests: int, tokens: int, now: float) -> float:
    """Take ``requests`` and ``tokens`` from the buckets in ``state`` (changed in
    place) and return 0, or return how many seconds to wait before asking again."""
    waits = []
    levels = {}
    for name, per_minute, amount in (
        ("requests", limit.requests, requests),
        ("tokens", limit.tokens, tokens),
    ):
        if not per_minute:
            continue
        rate = per_minute / 60
        elapsed = max(0.0, now - state.get("at", now))
        level = min(float(per_minute), state.get(name, float(per_minute)) + elapsed * rate)
        levels[name] = level
        need = min(amount, per_minute)  # a request larger than the bucket waits for a full one
        if need > 0 and level < need:
            waits.append((need - level) / rate)
    for name, level in levels.items():
        state[name] = level
    state["at"] = now
    if waits:
        return max(waits)
    for name, amount in (("requests", requests), ("tokens", tokens)):
        if name in levels:
            state[name] = levels[name] - amount
    return 0.0


def spend(state: dict[str, float], limit: Limit, tokens: int, now: float) -> None:
    """Take tokens already used (an answer's output) without waiting, even below zero."""
    if limit.tokens:
        reserve(state, Limit(tokens=limit.tokens), 0, 0, now)
        state["tokens"] = state.get("tokens", float(limit.tokens)) - tokens


def estimate_tokens(payload: Any) -> int:
    try:
        return len(json.dumps(payload, ensure_ascii=False)) // 4
    except (TypeError, ValueError):
        return 0


@dataclass
class FileLimiter:
    """Buckets in ``folder/<provider>.json``, read and written under an flock, so the
    worker processes of one machine share them. Picklable (it is only a path)."""

    folder: str
    limits: dict[str, Limit] = field(default_factory=dict)

    def _update(self, provider: str, change: Any) -> float:
        import fcntl

        limit = limit_for(self.limits, provider)
        if limit is None:
            return 0.0
        folder = Path(self.folder)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / (provider.replace("/", "_") + ".json")
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            raw = os.read(fd, 4096)
            try:
                state = json.loads(raw) if raw else {}
            except ValueError:
                state = {}
            wait = change(state, limit, time.time()) or 0.0
            os.lseek(fd, 0, os.SEEK_SET)
            os.ftruncate(fd, 0)
            os.write(fd, json.dumps(state).encode())
            return wait
        finally:
            os.close(fd)

    def take(self, provider: str, tokens: int) -> float:
        """One request of ``tokens``: 0 when granted, else seconds to wait."""
        return self._update(provider, lambda s, lim, now: reserve(s, lim, 1, tokens, now))

    async def acquire(self, provider: str, tokens: int) -> None:
        while (wait := self.take(provider, tokens)) > 0:
            await asyncio.sleep(min(wait, 5.0))

    async def debit(self, provider: str, tokens: int) -> None:
        self._update(provider, lambda s, lim, now: spend(s, lim, tokens, now))


class RateLimitPlugin:
    """Registered into every task's runtime: each HTTP request (every retry too) waits
    for the shared limiter; each answer's output tokens are spent afterwards."""

    def __init__(self, limiter: Any) -> None:
        self.limiter = limiter

    @omp.hookimpl
    async def omp_before_provider_request(self, event: Any) -> None:
        provider = getattr(event.model, "provider", None)
        if provider:
            await self.limiter.acquire(provider, estimate_tokens(event.payload))

    @omp.hookimpl
    async def omp_message_end(self, event: Any) -> None:
        message = event.message
        if getattr(message, "role", "") != "assistant" or not message.provider:
            return
        if message.usage.output > 0:
            await self.limiter.debit(message.provider, message.usage.output)
