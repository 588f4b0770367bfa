"""Jupyter notebooks for ``read``: each cell's source and outputs as text, image
outputs as image content; ``offset`` and ``limit`` count cells."""

from __future__ import annotations

import json
import re
from typing import Any

from omp import ImageContent, TextContent, ToolResult

MAX_BYTES = 50 * 1024
MAX_IMAGES = 8
"""Image outputs sent per call; later ones are named, not sent."""
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _joined(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _output(out: dict[str, Any], images: list[ImageContent]) -> list[str]:
    """The text lines of one output; its image (if any) goes to ``images``."""
    kind = out.get("output_type")
    if kind == "stream":
        return [_joined(out.get("text")).rstrip("\n")]
    if kind == "error":
        trace = "\n".join(_ANSI.sub("", line) for line in out.get("traceback") or [])
        return [trace or f"{out.get('ename')}: {out.get('evalue')}"]
    data = out.get("data") or {}
    for mime in IMAGE_TYPES:
        if mime in data:
            if len(images) >= MAX_IMAGES:
                return [f"[{mime} output not sent: more than {MAX_IMAGES} images in this read]"]
            payload = re.sub(r"\s+", "", _joined(data[mime]))
            images.append(ImageContent(data=payload, mime_type=mime))
            return [f"[{mime} output: image {len(images)} below]"]
    for mime in ("text/markdown", "text/plain"):
        if mime in data:
            return [_joined(data[mime]).rstrip("\n")]
    return [f"[output of type {', '.join(data) or kind}]"]


def _cell(number: int, cell: dict[str, Any], images: list[ImageContent]) -> str:
    kind = cell.get("cell_type", "code")
    lines = [f"# %% [{kind}] cell:{number}", _joined(cell.get("source")).rstrip("\n")]
    outputs = cell.get("outputs") or []
    if outputs:
        lines.append("# >>> output")
        for out in outputs:
            if isinstance(out, dict):
                lines.extend(_output(out, images))
    return "\n".join(lines)


def read_notebook(
    data: bytes, abs_path: str, shown_path: str, offset: int | None, limit: int | None
) -> ToolResult:
    details: dict[str, Any] = {"path": abs_path, "kind": "notebook"}
    try:
        notebook = json.loads(data)
        cells = notebook["cells"]
        if not isinstance(cells, list):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        return ToolResult.error(
            f"Cannot read {shown_path}: not a Jupyter notebook (nbformat 4 JSON with cells).",
            details,
        )
    total = len(cells)
    details["totalCells"] = total
    if total == 0:
        return ToolResult.text(f"{shown_path} is a notebook with no cells.", details)
    first = offset or 1
    if first > total:
        return ToolResult.error(
            f"Offset {first} is beyond the end of the notebook ({total} cells).", details
        )
    last = min(total, first + limit - 1) if limit else total
    parts: list[str] = []
    images: list[ImageContent] = []
    used = 0
    shown_last = first - 1
    for number in range(first, last + 1):
        cell = cells[number - 1]
        kept = len(images)
        part = _cell(number, cell if isinstance(cell, dict) else {}, images)
        size = len(part.encode("utf-8")) + 2
        if parts and used + size > MAX_BYTES:
            del images[kept:]
            break
        parts.append(part)
        used += size
        shown_last = number
    body = "\n\n".join(parts)
    if shown_last < total:
        body += (
            f"\n\n[Showing cells {first}-{shown_last} of {total}. "
            f"Use offset={shown_last + 1} to continue.]"
        )
    details.update(offset=first, cells=shown_last - first + 1, images=len(images))
    details["truncated"] = shown_last < total
    return ToolResult([TextContent(text=body), *images], details)
