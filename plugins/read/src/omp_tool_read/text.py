"""Text for ``read``: numbered lines like ``cat -n``, paged with ``offset``/``limit``
within a byte budget; a file with a NUL byte near its start is refused as binary."""

from __future__ import annotations

from typing import Any

from omp import ToolResult

from omp_tool_read import kinds
from omp_tool_read.images import human_size

DEFAULT_LIMIT = 2000
"""Lines shown when the call gives no ``limit`` (also the most one call shows)."""
MAX_BYTES = 50 * 1024
"""Byte budget (UTF-8) for the whole output, paging note included."""
MAX_LINE_CHARS = 2000
"""A longer line is cut and marked."""
BINARY_SNIFF_BYTES = 8 * 1024
"""A NUL byte within this many leading bytes marks the file as binary."""
ABORT_CHECK_LINES = 4096
COUNT_CHUNK_BYTES = 1 << 20
_NOTE_RESERVE = 256
"""Bytes of the budget kept free for the paging note."""


def aborted(signal: Any) -> bool:
    return signal is not None and bool(getattr(signal, "aborted", False))


def _format_line(number: int, raw: bytes) -> tuple[str, bool]:
    """One output line and whether it was cut."""
    if raw.endswith(b"\n"):
        raw = raw[:-1]
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    line = raw.decode("utf-8", errors="replace")
    cut = False
    if len(line) > MAX_LINE_CHARS:
        more = len(line) - MAX_LINE_CHARS
        line = f"{line[:MAX_LINE_CHARS]}... [line truncated, {more} more characters]"
        cut = True
    return f"{number:>6}\t{line}", cut


def refuse_binary(
    shown_path: str, abs_path: str, head: bytes, size: int | None, off: str | None = None
) -> ToolResult:
    """A binary file ``read`` cannot present: what it is and how large, not its bytes."""
    what = kinds.describe(head, abs_path)
    shape = f"{what}, {human_size(size)}" if size is not None else what
    why = (
        f" Reading this format is turned off (setting {kinds.FORMAT_SETTINGS[off]})." if off else ""
    )
    return ToolResult.error(
        f"Cannot read {shown_path}: it is a binary file ({shape}); its contents are not "
        f"shown.{why}",
        {"path": abs_path, "kind": "binary", "detectedType": what, "bytes": size},
    )


def read_text(
    fh: Any,
    shown_path: str,
    abs_path: str,
    params: Any,
    signal: Any,
    size: int | None = None,
) -> ToolResult:
    head = fh.read(BINARY_SNIFF_BYTES)
    if b"\0" in head:
        return refuse_binary(shown_path, abs_path, head, size)
    if not head:
        return ToolResult.text(
            f"{shown_path} is empty (0 lines).",
            {"path": abs_path, "offset": 1, "lines": 0, "totalLines": 0, "truncated": False},
        )
    fh.seek(0)

    first = params.offset or 1
    limit = min(params.limit or DEFAULT_LIMIT, DEFAULT_LIMIT)
    budget = MAX_BYTES - _NOTE_RESERVE

    out: list[str] = []
    used = 0
    any_cut = False
    byte_stop = False  # the byte budget ended the window early
    consumed = 0  # lines read so far (each but the file's last ends with a newline)
    window_done = False

    for raw in fh:
        consumed += 1
        if consumed % ABORT_CHECK_LINES == 0 and aborted(signal):
            return ToolResult.error("Read aborted.", {"path": abs_path})
        if consumed < first:
            continue
        text, cut = _format_line(consumed, raw)
        size = len(text.encode("utf-8")) + 1
        if out and used + size > budget:
            byte_stop = True
            consumed -= 1  # this line is not shown; it is counted below
            window_done = True
            break
        out.append(text)
        used += size
        any_cut = any_cut or cut
        if len(out) >= limit:
            window_done = True
            break

    total = consumed
    if window_done:
        # Count what remains without decoding it: newlines plus an unterminated last line.
        if byte_stop:
            rest_nl, last = raw.count(b"\n"), raw[-1:]
        else:
            rest_nl, last = 0, b""
        while True:
            if aborted(signal):
                return ToolResult.error("Read aborted.", {"path": abs_path})
            chunk = fh.read(COUNT_CHUNK_BYTES)
            if not chunk:
                break
            rest_nl += chunk.count(b"\n")
            last = chunk[-1:]
        total += rest_nl + (1 if last and last != b"\n" else 0)

    if first > total:
        return ToolResult.error(
            f"Offset {first} is beyond the end of the file ({total} lines).",
            {
                "path": abs_path,
                "offset": first,
                "lines": 0,
                "totalLines": total,
                "truncated": False,
            },
        )

    last_shown = first + len(out) - 1
    reaches_end = last_shown >= total
    body = "\n".join(out)
    if not reaches_end:
        why = f" ({MAX_BYTES // 1024} KiB output limit reached)" if byte_stop else ""
        body += (
            f"\n\n[Showing lines {first}-{last_shown} of {total}{why}. "
            f"Use offset={last_shown + 1} to continue.]"
        )
    details = {
        "path": abs_path,
        "offset": first,
        "lines": len(out),
        "totalLines": total,
        "truncated": (not reaches_end) or any_cut,
    }
    return ToolResult.text(body, details)
