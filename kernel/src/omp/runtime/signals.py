"""How a run ends when omp gets a signal.

* SIGINT (Ctrl+C): the run is cancelled, as asyncio itself would do it, and tools clean
  up (a bash command's process group is killed). A second Ctrl+C, or one that arrives
  while a plugin's plain ``def`` handler blocks the event loop, ends the run at once.
* SIGTERM and SIGHUP: every tracked tool process group is killed straight away, then
  the run is cancelled the same way; omp exits with 128 + the signal's number.

Session entries are written with one ``write`` each as they happen, so nothing already
recorded is lost however the run ends. The handlers are Python signal handlers (not
``loop.add_signal_handler``), because those run even while the event loop is blocked.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from types import FrameType
from typing import Any

from omp.base.errors import OmpError
from omp.base.hooktime import Interrupted, in_sync_handler
from omp.base.processes import kill_groups

HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Stopped(OmpError):
    """The run ended on a signal; exits with the conventional status."""

    def __init__(self, signum: int) -> None:
        name = signal.Signals(signum).name
        super().__init__("interrupted" if signum == signal.SIGINT else f"terminated by {name}")
        self.exit_code = 128 + signum


class RunSignals:
    """Signal handlers for the duration of one run (main thread only; elsewhere a no-op)."""

    def __init__(self) -> None:
        self.received: int | None = None
        self._task: asyncio.Task[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> RunSignals:
        if threading.current_thread() is threading.main_thread():
            for signum in HANDLED:
                self._previous[signum] = signal.signal(signum, self._on_signal)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    def attach(self) -> None:
        """Call from the run's main task: it is what a signal cancels."""
        self._task = asyncio.current_task()
        self._loop = asyncio.get_running_loop()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        first = self.received is None
        if first or signum != signal.SIGINT:
            self.received = self.received or signum
        if signum != signal.SIGINT:
            kill_groups()
        if not first or in_sync_handler() or self._task is None or self._loop is None:
            raise Interrupted()
        self._loop.call_soon_threadsafe(self._task.cancel)
