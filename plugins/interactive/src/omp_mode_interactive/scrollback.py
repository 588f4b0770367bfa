"""Finished transcript output printed into the terminal's own scrollback, above the
application: batched, and written while the application is erased (prompt_toolkit's
run_in_terminal), so it never interleaves with the editor. While the application runs,
what anything else in the process prints (a plugin's print(), a library's warning on
stderr, from any thread) goes the same way, a line at a time."""

from __future__ import annotations

import asyncio
import io
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO


class Scrollback:
    def __init__(self, out: TextIO | None = None) -> None:
        self.application: Any = None
        self._out = out or sys.stdout
        self._pending: list[str] = []
        self._scheduled = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def write(self, text: str) -> None:
        if not text:
            return
        if not text.endswith("\n"):
            text += "\n"
        app = self.application
        if app is None or not app.is_running:
            self._pending.append(text)
            self.write_pending()
            return
        loop = self._loop
        if loop is not None and not _on_loop(loop):
            try:
                loop.call_soon_threadsafe(self.write, text)
                return
            except RuntimeError:  # the loop closed meanwhile: straight out
                self._pending.append(text)
                self.write_pending()
                return
        self._pending.append(text)
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        from prompt_toolkit.application import run_in_terminal

        self._scheduled = False
        if self._pending and self.application.is_running:
            run_in_terminal(self.write_pending)

    def write_pending(self) -> None:
        with self._lock:
            if not self._pending:
                return
            chunk = "".join(self._pending)
            self._pending.clear()
        self._out.write(chunk)
        self._out.flush()

    @contextmanager
    def capturing(self) -> Iterator[None]:
        """While the application runs: ``sys.stdout`` and ``sys.stderr`` print here."""
        self._loop = asyncio.get_running_loop()
        saved = sys.stdout, sys.stderr
        streams = [_Lines(self, saved[0]), _Lines(self, saved[1])]
        sys.stdout, sys.stderr = streams  # type: ignore[assignment]
        try:
            yield
        finally:
            sys.stdout, sys.stderr = saved
            for stream in streams:
                stream.finish()
            self._loop = None


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


class _Lines(io.TextIOBase):
    """A text stream that hands whole lines to the scrollback (a partial line waits
    for its end, or for the application to end)."""

    def __init__(self, scrollback: Scrollback, original: TextIO) -> None:
        super().__init__()
        self._scrollback = scrollback
        self._original = original
        self._partial = ""
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        with self._lock:
            self._partial += text
            if "\n" not in self._partial:
                return len(text)
            done, _, self._partial = self._partial.rpartition("\n")
        self._scrollback.write(done + "\n")
        return len(text)

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._original.isatty()

    def fileno(self) -> int:
        return self._original.fileno()

    @property
    def buffer(self) -> Any:
        """The terminal's own byte stream (bytes written there are not lined up)."""
        return self._original.buffer

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._original, "encoding", None) or "utf-8"

    def finish(self) -> None:
        """Hand over a partial line (the stream stays usable: a handler that kept it
        writes straight to the terminal once the application has ended)."""
        with self._lock:
            rest, self._partial = self._partial, ""
        if rest:
            self._scrollback.write(rest)
