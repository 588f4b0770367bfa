"""``@path`` words of a prompt: a text file's contents go along with the prompt, an
image is attached where the model accepts images. A pasted or dragged image path
becomes such a word (``@"a path"`` when it holds spaces)."""

from __future__ import annotations

import base64
import re
import shlex
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

MAX_TEXT_BYTES = 512 * 1024
IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
_AT_PATH = re.compile(r'(?:^|(?<=\s))@(?:"([^"]+)"|(\S+))')


def dropped_image(pasted: str, cwd: str) -> str | None:
    """The ``@path`` word for a paste that is one image file's path, as terminals
    paste a dragged file (quoted, with escaped spaces, or as a file:// URL); else None."""
    text = pasted.strip()
    if not text or "\n" in text:
        return None
    if text.startswith("file://"):
        text = unquote(urlparse(text).path)
    elif not _is_image(text, cwd):
        try:
            words = shlex.split(text)
        except ValueError:
            return None
        if len(words) != 1:
            return None
        text = words[0]
    if not _is_image(text, cwd):
        return None
    return f'@"{text}"' if any(c.isspace() for c in text) else f"@{text}"


def _is_image(text: str, cwd: str) -> bool:
    path = Path(cwd) / Path(text).expanduser()
    return path.suffix.lower() in IMAGE_TYPES and path.is_file()


def attach(
    text: str, cwd: str, accepts_images: bool
) -> tuple[str, list[dict[str, Any]], list[str]]:
    """(prompt with file blocks appended, images, problems) for the ``@path`` words of
    ``text`` that name files; other ``@words`` stay as they are."""
    blocks: list[str] = []
    images: list[dict[str, Any]] = []
    problems: list[str] = []
    seen: set[Path] = set()
    for match in _AT_PATH.finditer(text):
        raw = match.group(1) or match.group(2).rstrip(".,;:!?)")
        path = (Path(cwd) / Path(raw).expanduser()).resolve()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        mime = IMAGE_TYPES.get(path.suffix.lower())
        if mime is not None:
            if not accepts_images:
                problems.append(f"{raw}: the model does not accept images; not attached")
                continue
            data = base64.b64encode(path.read_bytes()).decode("ascii")
            images.append({"type": "image", "data": data, "mime_type": mime})
            continue
        try:
            data = path.read_bytes()
        except OSError as exc:
            problems.append(f"{raw}: {exc.strerror or exc}")
            continue
        if len(data) > MAX_TEXT_BYTES or b"\0" in data[:8192]:
            problems.append(f"{raw}: binary or larger than 512 KiB; not attached")
            continue
        content = data.decode("utf-8", "replace")
        blocks.append(f'<file name="{raw}">\n{content.rstrip()}\n</file>')
    if blocks:
        text = text + "\n\n" + "\n\n".join(blocks)
    return text, images, problems
