"""The spill file of a long output, capped in size: the head as it comes, the latest
bytes in a ring at the end of the file, and at close the tail laid out in order behind
a marker saying how much of the middle was left out. Memory stays at one chunk."""

from __future__ import annotations

import os

from omp import replacing

SETTING = "bash.artifactMaxBytes"
MARKER_RESERVE = 256
"""Bytes of the cap kept free for the marker line."""
COPY_CHUNK = 256 * 1024
ALIGN_WINDOW = 4096
"""How far from a cut a newline is looked for, so the head ends and the tail starts
on a line boundary."""


class CappedFile:
    """Writes a stream to ``path`` keeping at most ``cap`` bytes of it."""

    def __init__(self, path: str, cap: int) -> None:
        self.path = path
        self.cap = cap
        self.total = 0
        self.omitted = 0
        """Bytes left out of the middle (known once closed)."""
        budget = max(cap - MARKER_RESERVE, 2)
        self._head_max = budget // 2
        self._ring_max = budget - self._head_max
        self._head = 0
        self._ring_pos = 0
        self._ring_fill = 0
        self._fd: int | None = os.open(path, os.O_RDWR | os.O_TRUNC)

    @property
    def overflowed(self) -> bool:
        return self.total > self._head_max + self._ring_max

    def write(self, data: bytes) -> None:
        """Raises OSError when the file cannot be written."""
        assert self._fd is not None
        self.total += len(data)
        if self._head < self._head_max:
            taken = data[: self._head_max - self._head]
            os.pwrite(self._fd, taken, self._head)
            self._head += len(taken)
            data = data[len(taken) :]
        if not data:
            return
        if len(data) > self._ring_max:
            data = data[-self._ring_max :]
        first = data[: self._ring_max - self._ring_pos]
        os.pwrite(self._fd, first, self._head_max + self._ring_pos)
        if len(first) < len(data):
            os.pwrite(self._fd, data[len(first) :], self._head_max)
        self._ring_pos = (self._ring_pos + len(data)) % self._ring_max
        self._ring_fill = min(self._ring_max, self._ring_fill + len(data))

    def close(self) -> None:
        """Lays out head, marker and tail when the output overflowed. Raises OSError
        when that fails (the file is then removed: it would be out of order)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if self.overflowed:
                self._finish(fd)
        except OSError:
            os.close(fd)
            _unlink(self.path)
            raise
        os.close(fd)

    def _finish(self, fd: int) -> None:
        window = min(ALIGN_WINDOW, self._head)
        head_len = self._head - window + _head_cut(os.pread(fd, window, self._head - window))
        ring = (self._ring_pos, self._ring_max)  # the oldest byte, the ring's size
        begin = _read_ring(fd, self._head_max, *ring, 0, min(ALIGN_WINDOW, self._ring_max))
        start = _tail_start(begin)
        tail_len = self._ring_max - start
        self.omitted = self.total - head_len - tail_len
        marker = (
            f"\n[... {self.omitted} bytes omitted: the output passed {SETTING} "
            f"({self.cap} bytes); the head and the tail are kept ...]\n"
        ).encode()
        with replacing(self.path, mode=0o600, durable=False) as out:
            for offset in range(0, head_len, COPY_CHUNK):
                out.write(os.pread(fd, min(COPY_CHUNK, head_len - offset), offset))
            out.write(marker)
            for offset in range(start, self._ring_max, COPY_CHUNK):
                size = min(COPY_CHUNK, self._ring_max - offset)
                out.write(_read_ring(fd, self._head_max, *ring, offset, size))


def _read_ring(fd: int, base: int, oldest: int, size: int, offset: int, count: int) -> bytes:
    """``count`` bytes from position ``offset`` of the ring in order (0 = oldest)."""
    first = (oldest + offset) % size
    data = os.pread(fd, min(count, size - first), base + first)
    if len(data) < count:
        data += os.pread(fd, count - len(data), base)
    return data


def _head_cut(end: bytes) -> int:
    """Where the head should end within its last bytes ``end``: after the last newline,
    else before a character the cut split."""
    newline = end.rfind(b"\n")
    if newline != -1:
        return newline + 1
    for back in range(1, min(4, len(end)) + 1):
        byte = end[-back]
        if byte & 0xC0 == 0x80:
            continue
        needed = 1 if byte < 0x80 else 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
        return len(end) if back >= needed else len(end) - back
    return len(end)


def _tail_start(begin: bytes) -> int:
    """Where the tail should start within its first bytes ``begin``: after the first
    newline, else at the first character boundary."""
    newline = begin.find(b"\n")
    if newline != -1 and newline + 1 < len(begin):
        return newline + 1
    skip = 0
    while skip < min(3, len(begin)) and begin[skip] & 0xC0 == 0x80:
        skip += 1
    return skip


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
