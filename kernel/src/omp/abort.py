"""AbortSignal: how tools and providers learn that their work should stop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable


class AbortSignal:
    """Set once; a child signal is also set when its parent is.

    Safe to read from worker threads (``aborted``), awaitable from the event loop
    (``wait()``), and able to call back (``add_listener``) so a tool can kill a
    process the moment the run is aborted.
    """

    def __init__(self, parent: AbortSignal | None = None) -> None:
        self._flag = threading.Event()
        self._listeners: list[Callable[[], None]] = []
        self._waiters: list[asyncio.Future[None]] = []
        self.reason: str | None = None
        if parent is not None:
            parent.add_listener(lambda: self.abort(parent.reason))

    @property
    def aborted(self) -> bool:
        return self._flag.is_set()

    def abort(self, reason: str | None = "aborted") -> None:
        if self._flag.is_set():
            return
        self.reason = reason
        self._flag.set()
        for waiter in self._waiters:
            if not waiter.done():
                waiter.get_loop().call_soon_threadsafe(_resolve, waiter)
        for listener in list(self._listeners):
            listener()

    def add_listener(self, listener: Callable[[], None]) -> None:
        if self.aborted:
            listener()
        else:
            self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[], None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    async def wait(self) -> None:
        if self.aborted:
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            self._waiters.remove(waiter)


def _resolve(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
