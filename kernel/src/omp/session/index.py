"""The listing's index of one sessions directory: what a scan of each file found, with
the file's size and mtime, so that listing again reads nothing of an unchanged file and
only the appended bytes of a grown one (sessions only ever grow by appending).

It lives beside the sessions as ``.listing-index.json``, is written atomically, and is
only a cache: a missing, damaged or unwritable index costs a full read, never a wrong
listing (an appended file is checked to still hold the bytes it was scanned to).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from omp.config.atomic_write import replacing

INDEX_NAME = ".listing-index.json"
VERSION = 1


def load(directory: Path) -> dict[str, dict[str, Any]]:
    """File name -> record; empty when there is no usable index."""
    try:
        data = json.loads((directory / INDEX_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != VERSION:
        return {}
    files = data.get("files")
    return files if isinstance(files, dict) else {}


def save(directory: Path, files: dict[str, dict[str, Any]]) -> None:
    """Replace the index atomically; a directory that cannot be written is left alone."""
    # one dumps call: json.dump to a file encodes in pure Python, 5x slower
    text = json.dumps({"version": VERSION, "files": files}, separators=(",", ":"))
    try:
        with replacing(directory / INDEX_NAME, mode=0o600, durable=False) as out:
            out.write(text.encode("utf-8"))
    except OSError:
        pass


def unchanged(record: dict[str, Any] | None, stat: os.stat_result) -> bool:
    return (
        record is not None
        and record.get("size") == stat.st_size
        and record.get("mtime_ns") == stat.st_mtime_ns
    )


def appended(record: dict[str, Any] | None, stat: os.stat_result) -> bool:
    """Whether the file may have grown by appending since the record was made."""
    return (
        record is not None
        and record.get("resumable") is True
        and isinstance(record.get("offset"), int)
        and stat.st_size > record.get("size", -1) >= record["offset"]
    )
