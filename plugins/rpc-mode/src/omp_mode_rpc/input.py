"""Reading stdin: one command a line, each line at most ``MAX_INPUT_LINE_BYTES``.

A longer line is read to its end and dropped, never held whole: a client sending a
runaway line (or a file by mistake) gets a parse error, not a process that grows with it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from omp_mode_rpc.frames import MAX_REASSEMBLED_BYTES

MAX_INPUT_LINE_BYTES = MAX_REASSEMBLED_BYTES
"""The most a client may send in one line: what the server may send in one frame."""
SKIP_BYTES = 1 << 20


class OversizedLine:
    """Stands for a line over the limit; its text is the parse error's reason."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __str__(self) -> str:
        limit = MAX_INPUT_LINE_BYTES >> 20
        return f"the line is over {limit} MiB (at least {self.size >> 20} MiB); it was skipped"


def input_lines(stream: BinaryIO) -> Iterator[bytes | OversizedLine]:
    """Each line of ``stream`` (with its newline), or an ``OversizedLine`` in its place."""
    while line := stream.readline(MAX_INPUT_LINE_BYTES + 1):
        if len(line) <= MAX_INPUT_LINE_BYTES or line.endswith(b"\n"):
            yield line
            continue
        size = len(line)
        del line
        while rest := stream.readline(SKIP_BYTES):
            size += len(rest)
            if rest.endswith(b"\n"):
                break
        yield OversizedLine(size)
