"""PDFs for ``read``: the text of each page (pypdf, the ``formats`` extra); ``offset``
and ``limit`` count pages."""

from __future__ import annotations

from typing import IO, Any

from omp import ToolResult

MAX_BYTES = 50 * 1024
"""Byte budget of one call's text, as for text files."""
INSTALL_HINT = "pip install 'omp-tool-read[formats]'"


def read_pdf(
    source: str | IO[bytes],
    shown_path: str,
    offset: int | None,
    limit: int | None,
    signal: Any,
    more: str = "Use offset={next} to continue.",
) -> ToolResult:
    """``source``: the file's path or its bytes; ``more`` (formatted with ``next``, the
    first page not shown) ends the note of a partial read."""
    details: dict[str, Any] = {"path": source if isinstance(source, str) else shown_path}
    details["kind"] = "pdf"
    try:
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError
    except ImportError:
        return ToolResult.error(
            f"Cannot read {shown_path}: it is a PDF document and reading PDFs needs pypdf "
            f"({INSTALL_HINT}).",
            details,
        )
    try:
        reader = PdfReader(source)
        if reader.is_encrypted and not reader.decrypt(""):
            return ToolResult.error(
                f"Cannot read {shown_path}: the PDF is encrypted with a password.", details
            )
        total = len(reader.pages)
        details["totalPages"] = total
        if total == 0:
            return ToolResult.text(f"{shown_path} is a PDF with no pages.", details)
        first = offset or 1
        if first > total:
            return ToolResult.error(
                f"Offset {first} is beyond the end of the PDF ({total} pages).", details
            )
        last = min(total, first + limit - 1) if limit else total
        parts: list[str] = []
        used = 0
        shown_last = first - 1
        for number in range(first, last + 1):
            if signal is not None and getattr(signal, "aborted", False):
                return ToolResult.error("Read aborted.", details)
            text = (reader.pages[number - 1].extract_text() or "").strip()
            part = f"--- Page {number} of {total} ---\n{text or '(no text on this page)'}"
            part = _cut(part)
            size = len(part.encode("utf-8")) + 2
            if parts and used + size > MAX_BYTES:
                break
            parts.append(part)
            used += size
            shown_last = number
    except (PyPdfError, ValueError, KeyError, OSError) as exc:
        return ToolResult.error(f"Cannot read {shown_path}: not a readable PDF ({exc}).", details)
    body = "\n\n".join(parts)
    if shown_last < total:
        body += (
            f"\n\n[Showing pages {first}-{shown_last} of {total}. "
            + more.format(next=shown_last + 1)
            + "]"
        )
    details.update(offset=first, pages=shown_last - first + 1, truncated=shown_last < total)
    return ToolResult.text(body, details)


def _cut(text: str) -> str:
    """One page's text within the whole budget (a page alone may exceed it)."""
    data = text.encode("utf-8")
    if len(data) <= MAX_BYTES - 256:
        return text
    kept = data[: MAX_BYTES - 256].decode("utf-8", errors="ignore")
    return f"{kept}\n[page text cut at {MAX_BYTES // 1024} KiB]"
