"""The busy indicator of print mode: a spinner with the elapsed time on stderr while the
agent works, as pi and omp show one. Only on a terminal (never in a pipe or a log, never
on stdout); it erases itself before any other line is written and when the run ends."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from typing import Any, TextIO

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ERASE = "\r\x1b[K"


def wanted(stream: TextIO) -> bool:
    """A terminal that can move the cursor back (not ``TERM=dumb``)."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        return False
    return tty and os.environ.get("TERM") != "dumb"


class _Guarded:
    """``sys.stderr`` while the spinner shows: anything written (a notice, a warning, a
    plugin's print) first erases the spinner, which redraws on its next tick."""

    def __init__(self, real: TextIO, indicator: BusyIndicator) -> None:
        self._real = real
        self._indicator = indicator

    def write(self, text: str) -> int:
        self._indicator._erase()
        return self._real.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


class BusyIndicator:
    """``start()`` on the running loop, ``stop()`` at the end; in between ``sys.stderr``
    erases the spinner before each write. ``label`` is what the agent is doing."""

    def __init__(self, stream: TextIO, interval: float = 0.08, delay: float = 0.15) -> None:
        self.stream = stream
        self.interval = interval
        self.delay = delay
        self.label = "working"
        self._drawn = False
        self._started = time.monotonic()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._started = time.monotonic()
        sys.stderr = _Guarded(self.stream, self)  # type: ignore[assignment]
        self._task = asyncio.get_running_loop().create_task(self._spin())

    def on_event(self, event: Any) -> None:
        kind = event.type
        if kind == "tool_execution_start":
            self.label = f"running {event.tool_name}"
        elif kind in ("tool_execution_end", "turn_start", "message_start"):
            self.label = "working"
        elif kind == "auto_compaction_start":
            self.label = "compacting the context"
        elif kind == "auto_retry_start":
            self.label = "waiting to retry"

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if isinstance(sys.stderr, _Guarded):
            sys.stderr = self.stream
        self._erase()

    async def _spin(self) -> None:
        await asyncio.sleep(self.delay)
        frame = 0
        while True:
            elapsed = int(time.monotonic() - self._started)
            text = f"{FRAMES[frame % len(FRAMES)]} {self.label}… {elapsed}s"
            self.stream.write(f"\r{text}\x1b[K")
            self.stream.flush()
            self._drawn = True
            frame += 1
            await asyncio.sleep(self.interval)

    def _erase(self) -> None:
        if self._drawn:
            self.stream.write(ERASE)
            self.stream.flush()
            self._drawn = False
