"""Worker threads that can never hold the process.

Blocking plugin code (a tool's plain ``def execute``, a plugin's ``asyncio.to_thread``)
runs on threads. The standard ones are joined: ``asyncio.run`` waits for its default
executor's threads, and ``concurrent.futures`` joins every worker at interpreter exit,
so one call stuck in a plugin kept omp alive after Ctrl+C or the end of input.

``DaemonThreads`` runs calls on daemon threads that nothing joins. A call whose awaiter
is cancelled while it runs is abandoned: its thread no longer counts toward the limit
(so a stuck call cannot starve the others) and exits when the call returns, if ever.
The process's own cleanup (session lines, process groups) runs on the event loop and
is not waiting for these threads.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

_Item = tuple["_Call", Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class _Call(Future):
    """A submitted call; cancelling it once it runs abandons its thread."""

    def __init__(self, pool: DaemonThreads) -> None:
        super().__init__()
        self._pool = pool
        self.abandoned = False

    def cancel(self) -> bool:
        if super().cancel():
            return True
        if not self.done():
            self._pool._abandon(self)
        return False


class DaemonThreads(ThreadPoolExecutor):
    """A thread pool whose workers are daemon threads nobody joins (a
    ``ThreadPoolExecutor`` only so that it can be an event loop's default executor).

    At most ``max_workers`` threads run calls that someone still waits for; idle
    workers are reused. ``shutdown`` never waits for a running call.
    """

    def __init__(self, max_workers: int | None = None, thread_name_prefix: str = "omp-worker"):
        limit = max_workers or min(32, (os.cpu_count() or 1) + 4)
        super().__init__(limit, thread_name_prefix)
        self._calls: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._lock = threading.RLock()
        self._idle = threading.Semaphore(0)
        self._counted = 0
        """Workers counted toward the limit: alive and not running an abandoned call."""
        self._started = 0
        self._closed = False

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot schedule new calls after shutdown")
            call = _Call(self)
            self._calls.put((call, fn, args, kwargs))
            if not self._idle.acquire(blocking=False) and self._counted < self._max_workers:
                self._start_worker()
        return call

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop taking calls; idle workers end. Never waits for a running call."""
        with self._lock:
            self._closed = True
            if cancel_futures:
                while True:
                    try:
                        item = self._calls.get_nowait()
                    except queue.Empty:
                        break
                    if item is not None:
                        item[0].cancel()
            for _ in range(self._counted):
                self._calls.put(None)

    def _start_worker(self) -> None:
        self._counted += 1
        self._started += 1
        name = f"{self._thread_name_prefix}-{self._started}"
        threading.Thread(target=self._work, name=name, daemon=True).start()

    def _abandon(self, call: _Call) -> None:
        with self._lock:
            if call.abandoned or call.done():
                return
            call.abandoned = True
            self._counted -= 1
            if not self._closed and not self._calls.empty():
                self._start_worker()

    def _work(self) -> None:
        while (item := self._calls.get()) is not None:
            call = _run(*item)
            del item  # an idle worker keeps nothing of its last call alive
            with self._lock:
                if call.abandoned:  # its place went to another worker
                    return
            del call
            self._idle.release()


def _run(
    call: _Call, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> _Call:
    if call.set_running_or_notify_cancel():
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:
            call.set_exception(exc)
        else:
            call.set_result(result)
    return call


@functools.cache
def shared_pool() -> DaemonThreads:
    """The process's pool for blocking plugin code (made on first use)."""
    return DaemonThreads()


def detach_default_executor() -> None:
    """Give the running loop a ``DaemonThreads`` default executor, so that neither
    ``asyncio.run`` nor the interpreter's exit waits for a plugin's stuck
    ``asyncio.to_thread`` call."""
    asyncio.get_running_loop().set_default_executor(DaemonThreads())


async def run_blocking(fn: Callable[..., T], /, *args: Any) -> T:
    """``asyncio.to_thread`` on a daemon worker: the calling context goes with the call,
    and cancelling the awaiter abandons a call that already runs instead of waiting."""
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    call = functools.partial(context.run, fn, *args)
    return await loop.run_in_executor(shared_pool(), call)
