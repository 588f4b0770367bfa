"""The ``read`` tool: a text file as numbered lines, paged with ``offset``/``limit``;
images, directories and ``artifact://`` references are handed to their own modules."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path
from typing import Any

from omp import ARTIFACT_SCHEME, FileAccess, OmpError, Tool, ToolResult, resolve_path, tool_cwd
from pydantic import BaseModel, Field

from omp_tool_read.images import SNIFF_BYTES, extension_mime, read_image, sniff_image
from omp_tool_read.listing import list_directory

DEFAULT_LIMIT = 2000
"""Lines shown when the call gives no ``limit`` (also the most one call shows)."""
MAX_BYTES = 50 * 1024
"""Byte budget (UTF-8) for the whole output, paging note included."""
MAX_LINE_CHARS = 2000
"""A longer line is cut and marked."""
BINARY_SNIFF_BYTES = 8 * 1024
"""A NUL byte within this many leading bytes marks the file as binary."""
LEDGER_MAX_BYTES = 64 * 1024 * 1024
"""Text files up to this size are read whole, so the read can be remembered for edit
(path, mtime, content hash); larger ones are streamed and not remembered."""
ABORT_CHECK_LINES = 4096
COUNT_CHUNK_BYTES = 1 << 20
_NOTE_RESERVE = 256
"""Bytes of the budget kept free for the paging note."""
SCHEMES_STATE = "omp-tool-read.schemes"
"""Session state key (``ctx.state``) of other plugins' readers by URI scheme."""
INLINE_BYTES = 256 * 1024
"""Files up to this size are read on the event loop (``ReadTool.runs_inline``)."""
_DISK_ONLY = (FileAccess, type(None))
"""``ctx.files`` kinds that answer from the disk, never by waiting on the loop."""


class ReadParams(BaseModel):
    path: str = Field(
        description=(
            "Path to the file to read, relative to the working directory or absolute, "
            "or artifact://ID."
        )
    )
    offset: int | None = Field(
        default=None, ge=1, description="1-indexed number of the first line to show (default: 1)."
    )
    limit: int | None = Field(
        default=None,
        ge=1,
        description=f"Maximum number of lines to show (default and cap: {DEFAULT_LIMIT}).",
    )


class ReadTool(Tool):
    name = "read"
    label = "Read"
    description = (
        "Read a file and show its lines numbered like `cat -n` "
        f"(at most {DEFAULT_LIMIT} lines or 50 KiB per call). "
        "For longer files, page with `offset` (1-indexed first line) and `limit` (line count). "
        "Images (png, jpg, gif, webp) are shown as images; a directory gives a listing; "
        "`artifact://ID` reads a saved full output."
    )
    parameters = ReadParams

    def runs_inline(self, params: Any, ctx: Any) -> bool:
        """A local file of at most ``INLINE_BYTES`` is read on the event loop (a worker
        thread's hand-off would cost more than the read); directories, schemes and
        files an editor holds (``ctx.files``) go to a worker thread."""
        if "://" in params.path or type(getattr(ctx, "files", None)) not in _DISK_ONLY:
            return False
        try:
            st = os.stat(resolve_path(params.path, tool_cwd(ctx)))
        except OSError:
            return True  # the error message is all there is to do
        return stat.S_ISREG(st.st_mode) and st.st_size <= INLINE_BYTES

    def execute(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        if params.path.startswith(ARTIFACT_SCHEME):
            return _read_artifact(params, signal, ctx)
        reader = _scheme_reader(params.path, ctx)
        if reader is not None:
            return _read_scheme(reader, params, signal)
        shown_path = params.path
        abs_path = resolve_path(params.path, tool_cwd(ctx))
        base_details: dict[str, Any] = {"path": abs_path}

        try:
            st = os.stat(abs_path)
        except (FileNotFoundError, NotADirectoryError):
            return ToolResult.error(f"File not found: {shown_path}", base_details)
        except OSError as exc:
            return ToolResult.error(f"Cannot read {shown_path}: {_reason(exc)}", base_details)

        if stat.S_ISDIR(st.st_mode):
            return list_directory(shown_path, abs_path, base_details)
        if not stat.S_ISREG(st.st_mode):
            return ToolResult.error(
                f"Cannot read {shown_path}: it is not a regular file.", base_details
            )

        try:
            with open(abs_path, "rb") as fh:
                head = fh.read(max(SNIFF_BYTES, BINARY_SNIFF_BYTES))
                fh.seek(0)
                mime = sniff_image(head)
                if mime is not None:
                    return read_image(fh, mime, st.st_size, shown_path, base_details)
                if b"\0" in head and extension_mime(abs_path):
                    return ToolResult.error(
                        f"Cannot read {shown_path}: it has an image extension but is not a "
                        "valid PNG, JPEG, GIF or WebP file; its contents are not shown.",
                        base_details,
                    )
                data = _editor_text(ctx, abs_path)
                if data is None:
                    data = fh.read() if st.st_size <= LEDGER_MAX_BYTES else None
                source = io.BytesIO(data) if data is not None else fh
                result = _read_file(source, shown_path, abs_path, params, signal)
        except OSError as exc:
            return ToolResult.error(f"Cannot read {shown_path}: {_reason(exc)}", base_details)
        ledger = getattr(ctx, "file_reads", None)
        if not result.is_error and data is not None and ledger is not None:
            ledger.record(Path(abs_path), data)
        return result


def _editor_text(ctx: Any, abs_path: str) -> bytes | None:
    """The file as the user's editor holds it (``ctx.files``), unsaved edits included;
    None: read the disk."""
    files = getattr(ctx, "files", None)
    text = files.read_text(abs_path) if files is not None else None
    return text.encode("utf-8", "surrogateescape") if text is not None else None


def _read_artifact(params: ReadParams, signal: Any, ctx: Any) -> ToolResult:
    """``artifact://ID``: a full output an earlier tool call saved, paged like a file."""
    reference = params.path
    store = getattr(ctx, "artifacts", None)
    details: dict[str, Any] = {"path": reference, "artifact": reference}
    if store is None:
        return ToolResult.error(f"Cannot read {reference}: this session has no artifacts.", details)
    try:
        path = store.path(reference)
    except OmpError as exc:
        return ToolResult.error(
            f"Cannot read {reference}: {exc}. Use the exact artifact://ID from an earlier "
            "tool result of this session.",
            details,
        )
    try:
        with open(path, "rb") as fh:
            result = _read_file(fh, reference, str(path), params, signal)
    except OSError as exc:
        return ToolResult.error(f"Cannot read {reference}: {_reason(exc)}", details)
    if isinstance(result.details, dict):
        result.details["artifact"] = reference
    return result


def _scheme_reader(path: str, ctx: Any) -> Any:
    """The reader a plugin put in the session's ``omp-tool-read.schemes`` for this
    path's scheme (the MCP plugin's ``mcp://``), or None."""
    scheme, sep, _ = path.partition("://")
    state = getattr(ctx, "state", None) if sep else None
    readers = state.get(SCHEMES_STATE) if isinstance(state, dict) else None
    return readers.get(scheme) if isinstance(readers, dict) else None


def _read_scheme(reader: Any, params: ReadParams, signal: Any) -> ToolResult:
    """``reader(path)`` gives text (paged here like a file) or a whole ToolResult."""
    try:
        answer = reader(params.path)
    except Exception as exc:
        return ToolResult.error(f"Cannot read {params.path}: {exc}", {"path": params.path})
    if isinstance(answer, ToolResult):
        return answer
    data = answer.encode("utf-8") if isinstance(answer, str) else bytes(answer)
    return _read_file(io.BytesIO(data), params.path, params.path, params, signal)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _aborted(signal: Any) -> bool:
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


def _read_file(
    fh: Any, shown_path: str, abs_path: str, params: ReadParams, signal: Any
) -> ToolResult:
    head = fh.read(BINARY_SNIFF_BYTES)
    if b"\0" in head:
        return ToolResult.error(
            f"Cannot read {shown_path}: it is a binary file; its contents are not shown.",
            {"path": abs_path},
        )
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
        if consumed % ABORT_CHECK_LINES == 0 and _aborted(signal):
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
            if _aborted(signal):
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
