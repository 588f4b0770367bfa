"""Images for ``read``: recognised by their magic bytes, returned as image content."""

from __future__ import annotations

import base64
import io
import os
import struct
from typing import Any

from omp import ImageContent, TextContent, ToolResult

MAX_IMAGE_BYTES = 20 * 1024 * 1024
"""Larger images are refused (providers reject them anyway)."""
IMAGE_EXTENSIONS = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
SNIFF_BYTES = 32
MAX_INLINE_BYTES = 3_750_000
"""Images sent to the model stay at or under this many bytes (5 MB once base64-encoded,
the strictest provider limit); larger ones are downscaled first."""
MAX_EDGE = 2000
"""Longest side, in pixels, of an image sent to the model (providers refuse or shrink
larger ones); larger ones are downscaled first."""


def sniff_image(head: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, GIF or WebP file from its first bytes, else None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def extension_mime(path: str) -> str | None:
    return IMAGE_EXTENSIONS.get(os.path.splitext(path)[1].lower())


def dimensions(data: bytes, mime: str) -> tuple[int, int] | None:
    """Width and height read from the image header, or None when it cannot be told."""
    try:
        if mime == "image/png" and data[12:16] == b"IHDR":
            return struct.unpack(">II", data[16:24])
        if mime == "image/gif":
            return struct.unpack("<HH", data[6:10])
        if mime == "image/webp":
            return _webp_size(data)
        if mime == "image/jpeg":
            return _jpeg_size(data)
    except struct.error:
        return None
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X":
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and data[20:21] == b"\x2f":
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length field
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return width, height
        i += 2 + length
    return None


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def downscale(data: bytes) -> tuple[bytes, str, tuple[int, int]] | None:
    """The image shrunk to ``MAX_EDGE`` and ``MAX_INLINE_BYTES`` (PNG, or JPEG when PNG
    stays too large), or None without Pillow or when the bytes do not decode."""
    try:
        from PIL import Image
    except ImportError:
        return None
    try:
        with Image.open(io.BytesIO(data)) as img:
            img.thumbnail((MAX_EDGE, MAX_EDGE))
            for fmt, mime in (("PNG", "image/png"), ("JPEG", "image/jpeg")):
                out = io.BytesIO()
                frame = img.convert("RGB") if fmt == "JPEG" else img
                frame.save(out, format=fmt, **({"quality": 80} if fmt == "JPEG" else {}))
                if out.tell() <= MAX_INLINE_BYTES:
                    return out.getvalue(), mime, img.size
    except (OSError, ValueError, Image.DecompressionBombError):
        return None
    return None


def read_image(
    fh: Any, mime: str, size: int, shown_path: str, details: dict[str, Any]
) -> ToolResult:
    """The image as base64 image content plus one line saying what it is."""
    details = {**details, "kind": "image", "mimeType": mime, "bytes": size}
    if size > MAX_IMAGE_BYTES:
        return ToolResult.error(
            f"Cannot read {shown_path}: the image is {human_size(size)}, over the "
            f"{MAX_IMAGE_BYTES // (1024 * 1024)} MB limit for images. Make a smaller copy "
            "(resize or recompress it with a shell command) and read that instead.",
            details,
        )
    data = fh.read(MAX_IMAGE_BYTES + 1)
    size = len(data)
    details["bytes"] = size
    dims = dimensions(data, mime)
    shape = f", {dims[0]}x{dims[1]}" if dims else ""
    if dims:
        details["width"], details["height"] = dims
    note = ""
    if size > MAX_INLINE_BYTES or (dims is not None and max(dims) > MAX_EDGE):
        fitted = downscale(data)
        if fitted is None and size > MAX_INLINE_BYTES:
            return ToolResult.error(
                f"Cannot read {shown_path}: the image is {human_size(size)}, too large to "
                "send, and it could not be downscaled (Pillow missing or the image not "
                "decodable: pip install 'omp-tool-read[formats]'). Make a smaller copy and "
                "read that instead.",
                details,
            )
        if fitted is not None:
            data, mime, (width, height) = fitted
            note = f", sent downscaled to {width}x{height} {mime} {human_size(len(data))}"
            details.update(sentMimeType=mime, sentWidth=width, sentHeight=height)
    line = f"Read image {shown_path} [{mime}{shape}, {human_size(size)}{note}]"
    image = ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime)
    return ToolResult([TextContent(text=line), image], details)
