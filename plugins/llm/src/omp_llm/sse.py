"""Stream framing: Server-Sent Events and newline-delimited JSON.

The decoders take one line at a time (without its newline), so a provider can feed
them from an HTTP response or, for the benchmark, from bytes in memory; ``SseLines``
cuts a response's text into those lines. An event whose final blank line never came
(some servers end that way) is still delivered at the end.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any, NamedTuple

_BREAK = re.compile("\r\n|\r|\n")


class SseEvent(NamedTuple):
    event: str
    data: str


class SseDecoder:
    def __init__(self) -> None:
        self._event: str | None = None
        self._data: list[str] = []

    def feed(self, line: str) -> SseEvent | None:
        """One line in; the event it completes, if any."""
        if line.startswith("data: "):  # the common cases first
            self._data.append(line[6:].removesuffix("\r"))
            return None
        if not line or line == "\r":
            return self._dispatch()
        if line.startswith("event: "):
            self._event = line[7:].removesuffix("\r")
            return None
        if line.endswith("\r"):
            line = line[:-1]
        if not line:
            return self._dispatch()
        if line[0] == ":":
            return None
        field, _, value = line.partition(":")
        if value[:1] == " ":
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        return None

    def finish(self) -> SseEvent | None:
        return self._dispatch()

    def _dispatch(self) -> SseEvent | None:
        if not self._data:
            self._event = None
            return None
        data = self._data[0] if len(self._data) == 1 else "\n".join(self._data)
        event = SseEvent(self._event or "message", data)
        self._event, self._data = None, []
        return event


async def iter_sse(lines: AsyncIterator[str]) -> AsyncIterator[SseEvent]:
    decoder = SseDecoder()
    async for line in lines:
        event = decoder.feed(line)
        if event is not None:
            yield event
    last = decoder.finish()
    if last is not None:
        yield last


def iter_sse_sync(lines: Iterable[str]) -> Iterator[SseEvent]:
    decoder = SseDecoder()
    feed = decoder.feed
    for line in lines:
        event = feed(line)
        if event is not None:
            yield event
    last = decoder.finish()
    if last is not None:
        yield last


def json_loads(text: str | bytes) -> Any:
    """Parse one event's JSON, with pydantic-core's parser (about 3x the speed of the
    standard library's on stream events); raises ValueError like json.loads."""
    from pydantic_core import from_json

    return from_json(text)


def split_lines(data: bytes | str) -> list[str]:
    """Lines of a recorded body as an HTTP client would yield them (\\n, \\r\\n or \\r)."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


class SseLines:
    """Text fed in any pieces, split into lines at LF, CRLF or CR: a line ending in CR
    is given at once, and an LF opening the next piece belongs to it."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._after_cr = False

    def feed(self, text: str) -> list[str]:
        if self._after_cr and text:
            self._after_cr = False
            if text[0] == "\n":
                text = text[1:]
        if "\r" in text:
            self._after_cr = text[-1] == "\r"
            lines = _BREAK.split(text)
        elif "\n" in text:
            lines = text.split("\n")
        else:
            if text:
                self._parts.append(text)
            return []
        if self._parts:
            self._parts.append(lines[0])
            lines[0] = "".join(self._parts)
            self._parts.clear()
        last = lines.pop()
        if last:
            self._parts.append(last)
        return lines

    def close(self) -> list[str]:
        """The last line, when the text did not end with a line break."""
        rest = "".join(self._parts)
        self._parts.clear()
        return [rest] if rest else []
