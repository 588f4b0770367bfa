"""What ``read`` offers other plugins through the session's ``omp-tool-read.present``
(``ctx.state``): bytes from elsewhere — the fetch tool's downloads — shown as ``read``
shows a file of that kind, under ``read``'s settings. Cheap to import."""

from __future__ import annotations

import io
from typing import Any

from omp import ToolResult

from omp_tool_read import kinds
from omp_tool_read.images import SNIFF_BYTES, read_image, sniff_image

PRESENT_STATE = "omp-tool-read.present"
_MORE = "Download the PDF with a shell command and read it with offset={next} for the rest."


def present_bytes(data: bytes, name: str, ctx: Any) -> ToolResult | None:
    """An image or a PDF as ``read`` would show it; None when the bytes are neither or
    that format is turned off."""
    mime = sniff_image(data[:SNIFF_BYTES])
    if mime is not None and kinds.enabled(ctx, "image"):
        return read_image(io.BytesIO(data), mime, len(data), name, {"path": name})
    if data.startswith(b"%PDF-") and kinds.enabled(ctx, "pdf"):
        from omp_tool_read.pdf import read_pdf

        signal = getattr(ctx, "signal", None)
        return read_pdf(io.BytesIO(data), name, None, None, signal, more=_MORE)
    return None
