"""Directories for ``read``: a sorted listing (folders end in ``/``), capped."""

from __future__ import annotations

import os
from typing import Any

from omp import ToolResult

MAX_DIR_ENTRIES = 200


def _name(entry: os.DirEntry[str]) -> str:
    try:
        return entry.name + "/" if entry.is_dir(follow_symlinks=True) else entry.name
    except OSError:
        return entry.name


def list_directory(shown_path: str, abs_path: str, details: dict[str, Any]) -> ToolResult:
    details = {**details, "kind": "directory"}
    try:
        with os.scandir(abs_path) as it:
            entries = sorted(_name(e) for e in it)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return ToolResult.error(f"Cannot list directory {shown_path}: {reason}", details)
    details.update(entries=len(entries), truncated=len(entries) > MAX_DIR_ENTRIES)
    if not entries:
        return ToolResult.text(f"Directory {shown_path} is empty.", details)
    listing = "\n".join(entries[:MAX_DIR_ENTRIES])
    more = len(entries) - MAX_DIR_ENTRIES
    if more > 0:
        listing += f"\n... and {more} more entries"
    count = f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
    return ToolResult.text(f"Directory {shown_path} ({count}):\n{listing}", details)
