"""Finding the matching lines of one file's text, and the worker process that does it
with Python's ``re`` for patterns RE2 cannot run.

Standard library only: the worker runs this file as a script (``python -I -S scan.py``),
outside the package. Its protocol, pickles over stdin/stdout: first ``(pattern, flags,
alarm_seconds)``, then per file ``(text, mode, limit)`` answered by ``scan``'s result.
Each job arms ``alarm_seconds`` (SIGALRM's default action ends the process), so a worker
whose parent died mid-search does not backtrack forever.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

Search = Callable[[Any, int, int], "tuple[int, int] | None"]
"""``search(text, pos, endpos)``: the span of the leftmost match, or None."""


def scan(
    search: Search, text: Any, nl: Any, mode: str, limit: int
) -> tuple[list[tuple[int, int, int]], int, bool]:
    """The lines of ``text`` (str or bytes, lines split at ``nl``) with a match that lies
    within the line, as ``(hits, count, truncated)``: ``hits`` are (line number, start,
    end) in mode "content" only; ``count`` matching lines (mode "files" stops at one);
    ``truncated`` when mode "content" reached ``limit`` lines and another matched."""
    hits: list[tuple[int, int, int]] = []
    count = 0
    line_no, counted_to, pos, size = 1, 0, 0, len(text)
    while pos <= size:
        span = search(text, pos, size)
        if span is None:
            break
        start = text.rfind(nl, 0, span[0]) + 1
        end = text.find(nl, span[0])
        end = size if end < 0 else end
        if span[1] > end and search(text, start, end) is None:
            pos = end + 1  # the match ran over a line break; not a line match
            continue
        if mode == "content":
            if count >= limit:
                return hits, count, True
            line_no += text.count(nl, counted_to, start)
            counted_to = start
            hits.append((line_no, start, end))
        count += 1
        if mode == "files":
            break
        pos = end + 1
    return hits, count, False


def python_search(regex: Any) -> Search:
    def search(text: str, pos: int, endpos: int) -> tuple[int, int] | None:
        match = regex.search(text, pos, endpos)
        return None if match is None else match.span()

    return search


def serve() -> None:
    import pickle
    import re
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the parent's to handle
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    pattern, flags, alarm_seconds = pickle.load(stdin)
    search = python_search(re.compile(pattern, flags))
    while True:
        try:
            text, mode, limit = pickle.load(stdin)
        except EOFError:
            return
        signal.alarm(alarm_seconds)
        result = scan(search, text, "\n", mode, limit)
        signal.alarm(0)
        pickle.dump(result, stdout, protocol=pickle.HIGHEST_PROTOCOL)
        stdout.flush()


if __name__ == "__main__":
    serve()
