"""One timer per stream bounding every wait for its next line.

``asyncio.timeout`` around each wait schedules and cancels a timer per line (a heap
push and a cancelled handle each: about a tenth of the stream's CPU against a local
server). The watchdog keeps one timer: a wait only notes when it began; the timer,
when it goes off, re-arms itself for the current wait's deadline, or - the wait having
lasted its limit - cancels the task, which ``wait`` turns into a TimeoutError exactly
as ``asyncio.timeout`` would (a cancellation from anyone else still propagates).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class Watchdog:
    """Bound each ``wait`` of one task to its ``limit`` seconds, with a single timer.
    ``close()`` when the stream ends."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._handle: asyncio.TimerHandle | None = None
        self._since: float | None = None
        self._limit = 0.0
        self._fired = False

    async def wait(self, step: Awaitable[T], limit: float) -> T:
        """``await step``; TimeoutError when it takes ``limit`` seconds or more."""
        task = self._task
        assert task is not None
        base = task.cancelling()
        now = self._loop.time()
        self._since, self._limit = now, limit
        handle = self._handle
        if handle is None or handle.when() > now + limit:
            if handle is not None:
                handle.cancel()
            self._handle = self._loop.call_at(now + limit, self._check)
        try:
            return await step
        except asyncio.CancelledError:
            if self._fired:
                self._fired = False
                if task.uncancel() <= base:  # ours alone, as asyncio.timeout decides
                    raise TimeoutError from None
            raise
        finally:
            self._since = None

    def _check(self) -> None:
        self._handle = None
        since = self._since
        if since is None:  # between waits: the next one arms a timer
            return
        deadline = since + self._limit
        if self._loop.time() < deadline:
            self._handle = self._loop.call_at(deadline, self._check)
            return
        self._fired = True
        assert self._task is not None
        self._task.cancel()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
