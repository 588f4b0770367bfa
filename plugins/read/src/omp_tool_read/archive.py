"""Zip and tar archives for ``read``: a listing of the members, or one member's bytes
(``archive.zip:path/inside``), which the tool then presents like a file."""

from __future__ import annotations

import tarfile
import zipfile
from typing import Any

from omp import ToolResult

from omp_tool_read.images import human_size
from omp_tool_read.kinds import ARCHIVE_SUFFIXES

MAX_LISTED = 500
MAX_MEMBER_BYTES = 64 * 1024 * 1024


class ArchiveError(Exception):
    """A one-line reason the archive or member cannot be read."""


def split_member(path: str) -> tuple[str, str] | None:
    """``x.zip:inner/path`` -> (``x.zip``, ``inner/path``); None for other paths."""
    lower = path.lower()
    for suffix in ARCHIVE_SUFFIXES:
        at = lower.find(suffix + ":")
        if at > 0:
            end = at + len(suffix)
            inner = path[end + 1 :].lstrip("/")
            return (path[:end], inner) if inner else None
    return None


def _entries(abs_path: str) -> list[tuple[str, int, bool]]:
    """(name, size, is_dir) of every member."""
    try:
        if zipfile.is_zipfile(abs_path):
            with zipfile.ZipFile(abs_path) as zf:
                return [(i.filename, i.file_size, i.is_dir()) for i in zf.infolist()]
        with tarfile.open(abs_path) as tf:
            return [(m.name + ("/" if m.isdir() else ""), m.size, m.isdir()) for m in tf]
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as exc:
        raise ArchiveError(f"not a readable zip or tar archive ({exc})") from None


def list_archive(abs_path: str, shown_path: str) -> ToolResult:
    details: dict[str, Any] = {"path": abs_path, "kind": "archive"}
    try:
        entries = _entries(abs_path)
    except ArchiveError as exc:
        return ToolResult.error(f"Cannot read {shown_path}: {exc}.", details)
    files = [e for e in entries if not e[2]]
    details.update(entries=len(entries), truncated=len(entries) > MAX_LISTED)
    lines = [
        f"{name}" if is_dir else f"{name}  ({human_size(size)})"
        for name, size, is_dir in entries[:MAX_LISTED]
    ]
    if len(entries) > MAX_LISTED:
        lines.append(f"... and {len(entries) - MAX_LISTED} more entries")
    head = (
        f"Archive {shown_path} ({len(files)} files, "
        f"{human_size(sum(e[1] for e in files))} uncompressed):"
    )
    hint = f"\n\n[Read a member with path={shown_path}:<member path>.]" if files else ""
    return ToolResult.text(head + "\n" + "\n".join(lines) + hint, details)


def read_member(abs_path: str, inner: str) -> bytes:
    """The bytes of member ``inner``; ArchiveError when it is missing or too large."""
    try:
        if zipfile.is_zipfile(abs_path):
            with zipfile.ZipFile(abs_path) as zf:
                try:
                    info = zf.getinfo(inner)
                except KeyError:
                    raise ArchiveError(f"no member {inner!r} in the archive") from None
                _check_size(inner, info.file_size)
                return zf.read(info)
        with tarfile.open(abs_path) as tf:
            try:
                member = tf.getmember(inner)
            except KeyError:
                raise ArchiveError(f"no member {inner!r} in the archive") from None
            if not member.isfile():
                raise ArchiveError(f"member {inner!r} is not a regular file")
            _check_size(inner, member.size)
            fh = tf.extractfile(member)
            return fh.read() if fh is not None else b""
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as exc:
        raise ArchiveError(f"not a readable zip or tar archive ({exc})") from None


def _check_size(inner: str, size: int) -> None:
    if size > MAX_MEMBER_BYTES:
        raise ArchiveError(
            f"member {inner!r} is {human_size(size)}, over the "
            f"{MAX_MEMBER_BYTES // (1024 * 1024)} MB limit for archive members"
        )
