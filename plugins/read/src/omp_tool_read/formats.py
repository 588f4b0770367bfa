"""The formats ``read`` presents beyond text and images: PDFs, Word documents,
notebooks, archives (listing, or a member by ``archive.zip:path/inside``) and SQLite
databases (``db.sqlite``, ``db.sqlite:table``, ``db.sqlite?q=...``); each reader in its
module."""

from __future__ import annotations

import io
import os
from typing import Any

from omp import ToolResult, resolve_path, tool_cwd

from omp_tool_read import kinds
from omp_tool_read.images import read_image, sniff_image
from omp_tool_read.text import BINARY_SNIFF_BYTES, read_text


def read_format(kind: str, fh: Any, abs_path: str, params: Any, signal: Any) -> ToolResult:
    """A PDF, Word document, notebook, archive listing or SQLite schema (``kinds.detect``)."""
    shown = params.path
    if kind == "pdf":
        from omp_tool_read.pdf import read_pdf

        return read_pdf(abs_path, shown, params.offset, params.limit, signal)
    if kind == "docx":
        from omp_tool_read.docx import read_docx

        return read_docx(abs_path, shown, params.offset, params.limit, signal)
    if kind == "notebook":
        from omp_tool_read.notebook import read_notebook

        return read_notebook(fh.read(), abs_path, shown, params.offset, params.limit)
    if kind == "archive":
        from omp_tool_read.archive import list_archive

        return list_archive(abs_path, shown)
    from omp_tool_read.sqlite import read_sqlite

    return read_sqlite(abs_path, shown, "", "", params.offset, params.limit)


def read_inside(params: Any, ctx: Any, signal: Any) -> ToolResult | None:
    """``archive.zip:member`` or ``db.sqlite:table`` / ``db.sqlite?q=...`` when the path
    itself names no file; None: not such a path."""
    from omp_tool_read.archive import ArchiveError, read_member, split_member
    from omp_tool_read.sqlite import read_sqlite, split_selector

    cwd = tool_cwd(ctx)
    selector = split_selector(params.path)
    if selector is not None and kinds.enabled(ctx, "sqlite"):
        db, table, query = selector
        abs_db = resolve_path(db, cwd)
        if os.path.isfile(abs_db):
            return read_sqlite(abs_db, db, table, query, params.offset, params.limit)
    member = split_member(params.path)
    if member is None or not kinds.enabled(ctx, "archive"):
        return None
    archive, inner = member
    abs_archive = resolve_path(archive, cwd)
    if not os.path.isfile(abs_archive):
        return None
    details: dict[str, Any] = {"path": abs_archive, "kind": "archive", "member": inner}
    try:
        data = read_member(abs_archive, inner)
    except ArchiveError as exc:
        return ToolResult.error(f"Cannot read {params.path}: {exc}.", details)
    head = data[:BINARY_SNIFF_BYTES]
    mime = sniff_image(head)
    if mime is not None and kinds.enabled(ctx, "image"):
        return read_image(io.BytesIO(data), mime, len(data), params.path, details)
    if inner.lower().endswith(".ipynb") and kinds.enabled(ctx, "notebook"):
        from omp_tool_read.notebook import read_notebook

        return read_notebook(data, abs_archive, params.path, params.offset, params.limit)
    result = read_text(io.BytesIO(data), params.path, abs_archive, params, signal, len(data))
    if isinstance(result.details, dict):
        result.details["member"] = inner
    return result
