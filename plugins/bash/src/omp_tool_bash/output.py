"""Collect a command's output with bounded memory: the whole output while it is small,
then a rolling tail in memory and the output in a spill file (the artifact), capped to
its head and tail. Output past a hard limit is not taken: the command is stopped."""

from __future__ import annotations

import codecs
from collections.abc import Callable
from dataclasses import dataclass

from omp_tool_bash.artifact import CappedFile
from omp_tool_bash.limits import ARTIFACT_MAX_BYTES, HARD_LIMIT_BYTES

MAX_BYTES = 50 * 1024
"""The result shows at most this much output (UTF-8 bytes, notes included)."""
MAX_LINES = 2000
"""... and at most this many lines."""
NOTE_RESERVE = 512
"""Bytes of MAX_BYTES kept free for the truncation header and the status notice."""
KEEP_BYTES = 2 * MAX_BYTES
"""Tail kept in memory once the output has spilled (more than the result needs, so
the result can still start at a line boundary)."""
TRIM_AT = 4 * MAX_BYTES
"""The in-memory tail is cut back to KEEP_BYTES when it grows past this."""
UPDATE_CHARS = 16 * 1024
"""Characters of the latest output sent with each streaming update."""

Opener = Callable[[], tuple[str, str]]
"""Creates an empty spill file; returns its path and how the result refers to it
(``artifact://ID`` or the path)."""


@dataclass
class Rendered:
    text: str
    truncated: bool
    reference: str | None
    shown_lines: int
    shown_bytes: int


class OutputSink:
    """Receives raw output chunks in order; renders the result text at the end."""

    def __init__(
        self,
        open_spill: Opener,
        artifact_max_bytes: int = ARTIFACT_MAX_BYTES,
        hard_limit_bytes: int = HARD_LIMIT_BYTES,
    ) -> None:
        self._open_spill = open_spill
        self._artifact_max = artifact_max_bytes
        self.hard_limit = hard_limit_bytes
        self.limit_reached = False
        """The output passed ``hard_limit``: nothing more is taken, the command is stopped."""
        self._buf = bytearray()
        self._trimmed = False
        self._spill: CappedFile | None = None
        self.artifact_omitted = 0
        """Bytes the artifact left out of the middle of the output."""
        self._spill_failed = False
        self.reference: str | None = None
        self.total_bytes = 0
        self._newlines = 0
        self._last = b""
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._live: list[str] = []
        self._live_chars = 0
        self.version = 0
        """Bumped on every chunk: lets the caller tell whether an update is due."""

    @property
    def total_lines(self) -> int:
        return self._newlines + (1 if self._last not in (b"", b"\n") else 0)

    def feed(self, chunk: bytes) -> None:
        if not chunk or self.limit_reached:
            return
        room = self.hard_limit - self.total_bytes
        if len(chunk) >= room:
            chunk = chunk[:room]
            self.limit_reached = True
        self.total_bytes += len(chunk)
        self._newlines += chunk.count(b"\n")
        self._last = chunk[-1:]
        self._buf += chunk
        if self._spill is not None:
            self._write(chunk)
        elif not self._spill_failed and (
            self.total_bytes > MAX_BYTES or self.total_lines > MAX_LINES
        ):
            self._start_spill(bytes(self._buf))
        if len(self._buf) > TRIM_AT:
            del self._buf[:-KEEP_BYTES]
            self._trimmed = True
        self._add_live(self._decoder.decode(chunk))
        self.version += 1

    def live_text(self) -> str:
        """The latest output as text (for streaming updates)."""
        return "".join(self._live)

    def close(self) -> None:
        self._add_live(self._decoder.decode(b"", final=True))
        if self._spill is not None:
            try:
                self._spill.close()
                self.artifact_omitted = self._spill.omitted
            except OSError:
                self._spill_failed = True
                self.reference = None
            self._spill = None

    def render(self) -> Rendered:
        """The text the model sees: all of it, or the tail behind a truncation header."""
        data = bytes(self._buf)
        if self._trimmed:  # the buffer may start inside a character
            skip = 0
            while skip < min(3, len(data)) and data[skip] & 0xC0 == 0x80:
                skip += 1
            data = data[skip:]
        encoded = data.decode("utf-8", "replace").encode("utf-8")
        body = encoded[:-1] if encoded.endswith(b"\n") else encoded
        spilled = self.reference is not None or self._spill_failed
        if not spilled and len(body) <= MAX_BYTES and self.total_lines <= MAX_LINES:
            return Rendered(body.decode("utf-8"), False, None, self.total_lines, len(body))
        if not spilled:  # small raw output that only grows past the limit once decoded
            self._start_spill(bytes(self._buf))
            self.close()
        window, partial = tail_window(body, MAX_BYTES - NOTE_RESERVE, MAX_LINES)
        shown = window.count(b"\n") + 1 if window else 0
        if self.reference is None:
            where = "The full output could not be saved."
        elif self.artifact_omitted:
            where = (
                f"Head and tail of the output ({self.artifact_omitted} bytes omitted in "
                f"the middle): {self.reference} — read it with the read tool"
            )
        else:
            where = f"Full output: {self.reference} — read it with the read tool"
        if partial:
            header = (
                f"[Output truncated: the last line is too long; showing its final "
                f"{human_size(len(window))} of {human_size(self.total_bytes)} of output. {where}]"
            )
        else:
            header = (
                f"[Output truncated: showing the last {shown} of {self.total_lines} lines "
                f"({human_size(len(window))} of {human_size(self.total_bytes)}). {where}]"
            )
        text = header + "\n" + window.decode("utf-8")
        return Rendered(text, True, self.reference, shown, len(window))

    # -- internals ------------------------------------------------------------------

    def _start_spill(self, initial: bytes) -> None:
        try:
            path, reference = self._open_spill()
            self._spill = CappedFile(path, self._artifact_max)
        except Exception:
            self._spill_failed = True
            return
        self.reference = reference
        self._write(initial)

    def _write(self, chunk: bytes) -> None:
        assert self._spill is not None
        try:
            self._spill.write(chunk)
        except OSError:
            self._spill_failed = True
            self.reference = None
            try:
                self._spill.close()
            except OSError:
                pass
            self._spill = None

    def _add_live(self, text: str) -> None:
        if not text:
            return
        self._live.append(text)
        self._live_chars += len(text)
        if self._live_chars > 2 * UPDATE_CHARS:
            joined = "".join(self._live)[-UPDATE_CHARS:]
            self._live = [joined]
            self._live_chars = len(joined)


def tail_window(body: bytes, max_bytes: int, max_lines: int) -> tuple[bytes, bool]:
    """The end of ``body`` (valid UTF-8, no final newline) within both limits, starting
    at a line boundary; ``partial`` is True when even the last line alone is too long
    (then its final bytes are kept, starting at a character boundary)."""
    partial = False
    if len(body) > max_bytes:
        start = len(body) - max_bytes
        if body[start - 1 : start] != b"\n":
            newline = body.find(b"\n", start)
            if newline == -1:
                partial = True
                while start < len(body) and body[start] & 0xC0 == 0x80:
                    start += 1
            else:
                start = newline + 1
        body = body[start:]
    if body.count(b"\n") + 1 > max_lines:
        pos = len(body)
        for _ in range(max_lines):
            pos = body.rfind(b"\n", 0, pos)
        body = body[pos + 1 :]
    return body, partial


def human_size(count: int) -> str:
    if count < 1024:
        return f"{count} B"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KB"
    if count < 1024 * 1024 * 1024:
        return f"{count / (1024 * 1024):.1f} MB"
    return f"{count / (1024 * 1024 * 1024):.1f} GB"
