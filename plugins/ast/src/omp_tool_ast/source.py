"""Reading a source file as text for the engine, and writing a rewritten one back with
its BOM kept (through ``omp.write_file``: atomic, owner and mode kept)."""

from __future__ import annotations

import os

from omp import write_file

MAX_BYTES = 4 * 1024 * 1024
"""Larger files are skipped, as the search backend skips them for grep."""
BOM = "\ufeff"


def read_source(path: str) -> str | None:
    """The file's text without a BOM, or None: unreadable, binary, too large or not UTF-8."""
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return None
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text.removeprefix(BOM)


def write_source(path: str, text: str) -> None:
    """Write ``text`` over ``path`` atomically, putting back a BOM the file had."""
    with open(path, "rb") as handle:
        bom = handle.read(3) == BOM.encode()
    write_file(os.path.realpath(path), ((BOM if bom else "") + text).encode("utf-8"))
