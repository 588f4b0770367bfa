"""An ACP prompt (content blocks) as omp's prompt text and images."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlparse


def _path_of(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def prompt_input(blocks: list[Any]) -> tuple[str, list[dict[str, Any]] | None]:
    """Text blocks joined; embedded resources (the editor's context: a file, a
    selection) attached as tagged text; resource links named by path; images kept as
    images. Audio is not supported and is named in the text instead."""
    parts: list[str] = []
    images: list[dict[str, Any]] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "image":
            images.append({"type": "image", "data": block.data, "mimeType": block.mime_type})
        elif kind == "resource_link":
            parts.append(f"@{_path_of(block.uri)}")
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            where = _path_of(resource.uri)
            if text is None:
                parts.append(f"@{where} (binary content not included)")
            else:
                parts.append(f'<context ref="{where}">\n{text}\n</context>')
        elif kind == "audio":
            parts.append("[audio attachment omitted: audio input is not supported]")
    return "\n\n".join(p for p in parts if p), images or None
