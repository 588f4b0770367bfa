"""What a file is, told from its name and first bytes: which reader presents it, and a
short description for the refusal of a binary file ``read`` cannot show."""

from __future__ import annotations

import os
from typing import Any

from omp_tool_read.plugin import FORMAT_SETTINGS

ARCHIVE_SUFFIXES = (".zip", ".jar", ".whl", ".tar", ".tgz", ".tar.gz", ".tar.bz2", ".tar.xz")
SQLITE_MAGIC = b"SQLite format 3\0"
_MAGIC = (
    (b"%PDF-", "PDF document"),
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (SQLITE_MAGIC, "SQLite database"),
    (b"PK\x03\x04", "zip archive data"),
    (b"PK\x05\x06", "zip archive data (empty)"),
    (b"\x1f\x8b", "gzip compressed data"),
    (b"BZh", "bzip2 compressed data"),
    (b"\xfd7zXZ\0", "xz compressed data"),
    (b"7z\xbc\xaf\x27\x1c", "7-zip archive data"),
    (b"\x7fELF", "ELF executable"),
    (b"MZ", "DOS/Windows executable"),
    (b"\xcf\xfa\xed\xfe", "Mach-O executable"),
    (b"\xca\xfe\xba\xbe", "Java class or Mach-O universal binary"),
    (b"\0asm", "WebAssembly module"),
    (b"\x89HDF", "HDF5 data"),
    (b"\x93NUMPY", "NumPy array data"),
)


def is_archive_name(path: str) -> bool:
    return path.lower().endswith(ARCHIVE_SUFFIXES)


def detect(path: str, head: bytes) -> str | None:
    """The format reader for this file ("pdf", "docx", "notebook", "archive", "sqlite"),
    or None: text (or an image, which the caller sniffs first)."""
    lower = path.lower()
    if head.startswith(b"%PDF-"):
        return "pdf"
    if lower.endswith(".docx") and head.startswith(b"PK\x03\x04"):
        return "docx"
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    if lower.endswith(".ipynb"):
        return "notebook"
    if is_archive_name(lower):
        return "archive"
    return None


def describe(head: bytes, path: str = "") -> str:
    """A few words on what a binary file is ("ELF executable"), from its magic bytes."""
    if path.lower().endswith(".docx") and head.startswith(b"PK\x03\x04"):
        return "Word document"
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return what
    return "unknown binary data"


def enabled(ctx: Any, kind: str) -> bool:
    """Whether the setting of ``kind`` (FORMAT_SETTINGS) leaves the format on."""
    settings = getattr(ctx, "settings", None)
    key = FORMAT_SETTINGS[kind]
    return settings is None or settings.get(key, True) is not False


def extension(path: str) -> str:
    return os.path.splitext(path)[1].lower()
