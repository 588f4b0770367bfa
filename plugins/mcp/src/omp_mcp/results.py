"""MCP tool results as omp tool results: text, images, embedded resources and
structured content; a result over the size limit is cut, its whole text kept as an
artifact the model can page through with ``read``."""

from __future__ import annotations

import base64
import json
from typing import Any

from omp import ImageContent, TextContent, ToolResult

IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}


def convert_result(result: Any, *, max_bytes: int, artifacts: Any = None) -> ToolResult:
    """A ``CallToolResult`` as a ToolResult (``details`` keeps the structured content)."""
    blocks: list[TextContent | ImageContent] = []
    for item in result.content or []:
        blocks.extend(convert_block(item))
    structured = getattr(result, "structured_content", None)
    if structured is not None and not any(isinstance(b, TextContent) for b in blocks):
        blocks.append(TextContent(text=json.dumps(structured, ensure_ascii=False, indent=2)))
    if not blocks:
        blocks.append(TextContent(text="(no output)"))
    details: dict[str, Any] = {}
    if structured is not None:
        details["structuredContent"] = structured
    blocks = _truncate(blocks, max_bytes, artifacts, details)
    return ToolResult(blocks, details or None, bool(getattr(result, "is_error", False)))


def convert_block(item: Any) -> list[TextContent | ImageContent]:
    kind = getattr(item, "type", None)
    if kind == "text":
        return [TextContent(text=item.text)]
    if kind == "image":
        if item.mime_type in IMAGE_TYPES:
            return [ImageContent(data=item.data, mime_type=item.mime_type)]
        return [TextContent(text=f"[image of type {item.mime_type}, not shown]")]
    if kind == "audio":
        size = len(item.data) * 3 // 4
        return [TextContent(text=f"[audio of type {item.mime_type}, {size} bytes, not shown]")]
    if kind == "resource":
        return resource_contents([item.resource])
    if kind == "resource_link":
        about = f": {item.description}" if getattr(item, "description", None) else ""
        return [TextContent(text=f"[resource {item.uri} ({item.name}){about}]")]
    return [TextContent(text=f"[unsupported MCP content of type {kind}]")]


def resource_contents(contents: list[Any]) -> list[TextContent | ImageContent]:
    """The contents of a resource (a read, or one embedded in a tool result)."""
    blocks: list[TextContent | ImageContent] = []
    for part in contents:
        mime = getattr(part, "mime_type", None) or ""
        text = getattr(part, "text", None)
        if text is not None:
            blocks.append(TextContent(text=text))
        elif mime in IMAGE_TYPES:
            blocks.append(ImageContent(data=part.blob, mime_type=mime))
        else:
            size = len(base64.b64decode(part.blob or "")) if getattr(part, "blob", None) else 0
            blocks.append(TextContent(text=f"[binary resource {part.uri} ({mime}, {size} bytes)]"))
    return blocks


def _truncate(
    blocks: list[TextContent | ImageContent], max_bytes: int, artifacts: Any, details: dict
) -> list[TextContent | ImageContent]:
    texts = [b.text for b in blocks if isinstance(b, TextContent)]
    whole = "\n".join(texts)
    size = len(whole.encode("utf-8"))
    if size <= max_bytes:
        return blocks
    head = whole.encode("utf-8")[:max_bytes].decode("utf-8", "ignore")
    note = f"\n\n[result cut at {max_bytes} of {size} bytes"
    if artifacts is not None:
        reference = "artifact://" + artifacts.save(whole)
        details["artifact"] = reference
        note += f"; the whole result is {reference}: page through it with read"
    details["truncated"] = {"shownBytes": max_bytes, "totalBytes": size}
    images = [b for b in blocks if isinstance(b, ImageContent)]
    return [TextContent(text=head + note + "]"), *images]
