"""File paths <-> ``file://`` URIs, and UTF-16 columns (LSP's default position encoding)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, unquote, urlparse


def path_to_uri(path: str | Path) -> str:
    """The ``file://`` URI of an absolute (or resolvable) path."""
    return "file://" + quote(str(Path(path).absolute()).replace("\\", "/"), safe="/:")


def uri_to_path(uri: str) -> Path:
    """The path a ``file://`` URI names."""
    return Path(unquote(urlparse(uri).path))


def utf16_col(line: str, index: int) -> int:
    """The UTF-16 offset of Python str index ``index`` within ``line``."""
    return len(line[:index].encode("utf-16-le")) // 2


def col_from_utf16(line: str, offset: int) -> int:
    """The Python str index of UTF-16 offset ``offset`` within ``line`` (clamped)."""
    units = 0
    for index, char in enumerate(line):
        if units >= offset:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line)
