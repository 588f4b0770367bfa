"""The ``read`` tool: a text file as numbered lines, paged with ``offset``/``limit``;
images, PDFs, notebooks, archives, SQLite databases, directories and ``artifact://``
references are handed to their own modules."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path
from typing import Any

from omp import ARTIFACT_SCHEME, FileAccess, OmpError, Tool, ToolResult, resolve_path, tool_cwd
from pydantic import BaseModel, Field

from omp_tool_read import kinds
from omp_tool_read.formats import read_format, read_inside
from omp_tool_read.images import SNIFF_BYTES, extension_mime, read_image, sniff_image
from omp_tool_read.listing import list_directory
from omp_tool_read.text import (
    BINARY_SNIFF_BYTES,
    DEFAULT_LIMIT,
    MAX_BYTES,
    MAX_LINE_CHARS,
    read_text,
    refuse_binary,
)

__all__ = ["DEFAULT_LIMIT", "MAX_BYTES", "MAX_LINE_CHARS", "ReadParams", "ReadTool"]

LEDGER_MAX_BYTES = 64 * 1024 * 1024
"""Text files up to this size are read whole, so the read can be remembered for edit
(path, mtime, content hash); larger ones are streamed and not remembered."""
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
            "or artifact://ID. A member of a zip/tar archive: archive.zip:path/inside. "
            "A SQLite table's rows: db.sqlite:table; a read-only query: "
            "db.sqlite?q=SELECT ..."
        )
    )
    offset: int | None = Field(
        default=None,
        ge=1,
        description=(
            "1-indexed number of the first line to show (default: 1); "
            "the first page of a PDF, paragraph of a .docx, cell of a notebook, row of a "
            "SQLite table."
        ),
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
        "Images (png, jpg, gif, webp) are shown as images; PDFs as text per page "
        "(offset/limit count pages); Word .docx files as Markdown (offset/limit count "
        "paragraphs); Jupyter notebooks as cells with their outputs; zip/tar "
        "archives as a member listing (read a member as archive.zip:path/inside); SQLite "
        "databases as their schema (db.sqlite:table for rows, db.sqlite?q=SELECT ... for a "
        "read-only query); a directory gives a listing; `artifact://ID` reads a saved full "
        "output."
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
            inner = read_inside(params, ctx, signal)
            if inner is not None:
                return inner
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
                    if kinds.enabled(ctx, "image"):
                        return read_image(fh, mime, st.st_size, shown_path, base_details)
                    return refuse_binary(shown_path, abs_path, head, st.st_size, "image")
                kind = kinds.detect(abs_path, head)
                if kind is not None and kinds.enabled(ctx, kind):
                    return read_format(kind, fh, abs_path, params, signal)
                if kind is not None and kind != "notebook":
                    return refuse_binary(shown_path, abs_path, head, st.st_size, kind)
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
                result = read_text(source, shown_path, abs_path, params, signal, st.st_size)
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
            result = read_text(fh, reference, str(path), params, signal)
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
    return read_text(io.BytesIO(data), params.path, params.path, params, signal)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)
