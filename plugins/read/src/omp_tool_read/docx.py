"""Word documents (``.docx``) for ``read``: paragraphs and tables in document order as
Markdown (python-docx, the ``formats`` extra); ``offset`` and ``limit`` count blocks — a
non-empty paragraph or a whole table — as they count a PDF's pages."""

from __future__ import annotations

import re
import zipfile
from typing import Any

from omp import ToolResult

from omp_tool_read.pdf import INSTALL_HINT, MAX_BYTES

_LEVEL = re.compile(r"(\d+)\s*$")


def read_docx(
    abs_path: str, shown_path: str, offset: int | None, limit: int | None, signal: Any
) -> ToolResult:
    details: dict[str, Any] = {"path": abs_path, "kind": "docx"}
    try:
        import docx
        from docx.opc.exceptions import PackageNotFoundError
        from lxml.etree import LxmlError
    except ImportError:
        return ToolResult.error(
            f"Cannot read {shown_path}: it is a Word document and reading .docx files needs "
            f"python-docx ({INSTALL_HINT}).",
            details,
        )
    try:
        blocks = _blocks(docx.Document(abs_path))
    except (PackageNotFoundError, LxmlError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        return ToolResult.error(
            f"Cannot read {shown_path}: not a readable Word document ({exc}).", details
        )
    total = len(blocks)
    details["totalParagraphs"] = total
    if total == 0:
        return ToolResult.text(f"{shown_path} is a Word document with no text.", details)
    first = offset or 1
    if first > total:
        return ToolResult.error(
            f"Offset {first} is beyond the end of the document ({total} paragraphs).", details
        )
    last = min(total, first + limit - 1) if limit else total
    body = ""
    shown_last = first - 1
    for number in range(first, last + 1):
        if signal is not None and getattr(signal, "aborted", False):
            return ToolResult.error("Read aborted.", details)
        text, is_item = blocks[number - 1]
        previous_item = number > first and blocks[number - 2][1]
        joined = body + ("" if not body else "\n" if is_item and previous_item else "\n\n") + text
        if body and len(joined.encode("utf-8")) > MAX_BYTES - 256:
            break
        body = joined
        shown_last = number
    if shown_last < total:
        body += (
            f"\n\n[Showing paragraphs {first}-{shown_last} of {total}. "
            f"Use offset={shown_last + 1} to continue.]"
        )
    details.update(offset=first, paragraphs=shown_last - first + 1, truncated=shown_last < total)
    return ToolResult.text(body, details)


def _blocks(document: Any) -> list[tuple[str, bool]]:
    """Each non-empty paragraph and each table as Markdown, and whether it is a list item
    (consecutive items are not separated by a blank line)."""
    from docx.table import Table

    blocks: list[tuple[str, bool]] = []
    for item in document.iter_inner_content():
        if isinstance(item, Table):
            table = _table(item)
            if table:
                blocks.append((table, False))
            continue
        text = item.text.strip()
        if text:
            blocks.append(_paragraph(text, item))
    return blocks


def _paragraph(text: str, paragraph: Any) -> tuple[str, bool]:
    style = (paragraph.style.name if paragraph.style is not None else "") or ""
    match = _LEVEL.search(style)
    level = int(match.group(1)) if match else 1
    if style == "Title":
        return f"# {text}", False
    if style.startswith("Heading") and match:
        return f"{'#' * min(level, 6)} {text}", False
    numbered = paragraph._p.pPr is not None and paragraph._p.pPr.numPr is not None
    if style.startswith("List") or numbered:
        return f"{'  ' * (level - 1)}- {text}", True
    return text, False


def _table(table: Any) -> str:
    """A Markdown table, the first row as its header; a merged cell repeats its text."""
    rows = [[_cell(cell.text) for cell in row.cells] for row in table.rows]
    rows = [row for row in rows if row]
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    lines = [f"| {' | '.join(row + [''] * (width - len(row)))} |" for row in rows]
    lines.insert(1, "|" + " --- |" * width)
    return "\n".join(lines)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")
