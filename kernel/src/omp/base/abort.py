"""AbortSignal: how tools and providers learn that their work should stop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable


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
        self._parent = parent
        self._follow: Callable[[], None] | None = None
        if parent is not None:
            self._follow = lambda: self.abort(parent.reason)
            parent.add_listener(self._follow)

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

    def detach(self) -> None:
        """Stop following the parent: a finished child's listener would otherwise stay
        on a long-lived parent (one per turn on the run's signal)."""
        if self._parent is not None and self._follow is not None:
            self._parent.remove_listener(self._follow)
            self._follow = None

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


async def run_abortable(work: Awaitable[object], signal: AbortSignal) -> str | None:
    """Run ``work`` as a task until it ends or ``signal`` aborts (which cancels it).

    Returns None when the work finished, "aborted" when the signal stopped it, or the
    message of the exception it raised (a provider's stream, a summary request).
    """
    task = asyncio.ensure_future(work)
    loop = asyncio.get_running_loop()

    def cancel() -> None:
        loop.call_soon_threadsafe(task.cancel)

    signal.add_listener(cancel)
    try:
        await task
    except asyncio.CancelledError:
        if not signal.aborted:
            raise
        return "aborted"
    except Exception as exc:
        text = str(exc).strip()
        return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    finally:
        signal.remove_listener(cancel)
    return None
