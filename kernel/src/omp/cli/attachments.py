"""``@path`` arguments: files attached to the first prompt, as pi and omp do.

A text file's contents go into the prompt inside ``<file name="...">`` tags, ahead of the
first message; an image becomes an image attachment of that prompt. Everything is read
before anything loads or is sent, so a bad path is one line and a non-zero exit.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omp.base.errors import UsageError

IMAGE_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


@dataclass
class Attachments:
    text: str = ""
    """The ``<file>`` blocks to put ahead of the first prompt."""
    images: list[dict[str, Any]] = field(default_factory=list)
    """Image content blocks (``{"type": "image", "data", "mimeType"}``) for the first prompt."""
    image_paths: list[str] = field(default_factory=list)


def split_file_arguments(messages: list[str]) -> tuple[list[str], list[str]]:
    """The ``@path`` arguments (quotes stripped) and the other messages, in order."""
    paths, rest = [], []
    for message in messages:
        if message.startswith("@") and len(message) > 1:
            paths.append(_unquote(message[1:]))
        else:
            rest.append(message)
    return paths, rest


def _unquote(raw: str) -> str:
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[1:-1]
    return raw


def image_type(head: bytes) -> str | None:
    """The MIME type of an image format models accept, from the file's first bytes."""
    for signature, mime in IMAGE_SIGNATURES:
        if head.startswith(signature):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def read_attachments(paths: list[str], cwd: Path) -> Attachments:
    out = Attachments()
    for raw in paths:
        path = Path(raw).expanduser()
        path = (path if path.is_absolute() else cwd / path).resolve()
        if not path.exists():
            raise UsageError(f"@{raw}: no such file")
        if path.is_dir():
            raise UsageError(f"@{raw} is a directory; attach files one by one")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise UsageError(f"@{raw} cannot be read: {exc.strerror or exc}") from None
        mime = image_type(data[:16])
        if mime is not None:
            encoded = base64.b64encode(data).decode("ascii")
            out.images.append({"type": "image", "data": encoded, "mimeType": mime})
            out.image_paths.append(raw)
            out.text += f'<file name="{path}"></file>\n'
            continue
        if b"\x00" in data[:8192]:
            raise UsageError(f"@{raw} is a binary file, not text or a PNG/JPEG/GIF/WebP image")
        text = data.decode("utf-8", "replace")
        out.text += f'<file name="{path}">\n{text.rstrip(chr(10))}\n</file>\n'
    return out


def first_prompt(attachments: Attachments, prompts: list[str]) -> list[str]:
    """The prompts with the attached files ahead of the first (or as the only one)."""
    if not attachments.text:
        return prompts
    if not prompts:
        return [attachments.text]
    return [attachments.text + prompts[0], *prompts[1:]]


def check_images(attachments: Attachments, model: Any) -> None:
    """A model that does not accept images would never see the attached ones."""
    if attachments.images and "image" not in getattr(model, "input", ("text",)):
        names = ", ".join(f"@{p}" for p in attachments.image_paths)
        raise UsageError(
            f"{names}: model {model.key} does not accept images; choose one that does "
            "with --model (omp models lists them)"
        )
