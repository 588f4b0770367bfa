"""Listing session files for ``/resume``, ``--resume``, ``omp sessions`` and RPC.

Each file is read as bytes and only the lines that matter are parsed: the header (and
omp's title slot) at the start, the first user message, the latest ``session_info``
(pi) or ``title_change`` (omp) name, and message lines are counted, not parsed. A
session whose file fits in a small prefix and suffix is read in one call; a longer one
is streamed through at memory speed, without decoding a single message.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

_WINDOW = 36 * 1024
"""A 4 KiB prefix and a 32 KiB suffix, as omp reads them: files this small are read whole."""
_CHUNK = 1 << 20
_PREVIEW_CHARS = 120
_MESSAGE = (b'\n{"type":"message"', b'\n{"type": "message"')
_NAMES = tuple(
    b'\n{"type":%s"%s"' % (space, kind)
    for kind in (b"session_info", b"title_change")
    for space in (b"", b" ")
)


@dataclass
class SessionInfo:
    """One session file as a listing shows it."""

    path: Path
    id: str
    cwd: str
    modified: datetime
    first_message: str | None
    created: str = ""
    message_count: int = 0
    name: str | None = None
    parent_session: str | None = None

    @property
    def title(self) -> str:
        """The session's name if it was given one, else its first prompt."""
        return self.name or self.first_message or "(no messages)"

    def matches(self, search: str) -> bool:
        """Whether every word of ``search`` occurs (case-insensitive) in the id, title or cwd."""
        haystack = " ".join(
            (self.id, self.path.name, self.title, self.first_message or "", self.cwd)
        ).lower()
        return all(word in haystack for word in search.lower().split())


def _json_line(raw: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def preview(message: Any) -> str | None:
    """A user message's text on one line, cut to a listing's width; None for others."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return None
    content = message.get("content")
    if isinstance(content, list):
        content = " ".join(
            block.get("text", "")
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )
    if not isinstance(content, str):
        return None
    text = " ".join(content.split())
    return text if len(text) <= _PREVIEW_CHARS else text[: _PREVIEW_CHARS - 1] + "…"


class _Scan:
    """What one pass over a file's complete lines finds."""

    def __init__(self) -> None:
        self.header: dict[str, Any] | None = None
        self.title_slot: str | None = None
        self.first: str | None = None
        self.count = 0
        self.name_line: bytes | None = None
        self._lines_seen = 0

    def feed(self, block: bytes) -> None:
        """``block`` holds complete lines, starting at a line start."""
        if self._lines_seen < 2:
            self._read_head(block)
        framed = b"\n" + block
        self.count += sum(framed.count(marker) for marker in _MESSAGE)
        if self.first is None and self.header is not None:
            self._find_first_prompt(framed)
        last = max(framed.rfind(marker) for marker in _NAMES)
        if last >= 0:
            end = framed.find(b"\n", last + 1)
            self.name_line = framed[last + 1 : end if end >= 0 else None]

    def _read_head(self, block: bytes) -> None:
        for raw in block.split(b"\n", 2)[:2]:
            self._lines_seen += 1
            record = _json_line(raw)
            if record is None:
                continue
            if record.get("type") == "title" and self.header is None:
                title = record.get("title")
                self.title_slot = title if isinstance(title, str) and title else None
            elif record.get("type") == "session" and self.header is None:
                self.header = record
                return

    def _find_first_prompt(self, framed: bytes) -> None:
        start = 0
        while True:
            found = [i for m in _MESSAGE if (i := framed.find(m, start)) >= 0]
            if not found:
                return
            at = min(found)
            end = framed.find(b"\n", at + 1)
            line = framed[at + 1 : end if end >= 0 else None]
            if b'"user"' in line:
                record = _json_line(line)
                text = preview(record.get("message")) if record else None
                if text is not None:
                    self.first = text
                    return
            start = at + 1

    def name(self) -> str | None:
        record = _json_line(self.name_line) if self.name_line else None
        if record is not None:
            value = record.get("name") if record.get("type") == "session_info" else None
            value = value if value is not None else record.get("title")
            if isinstance(value, str) and value.strip():
                return value.strip()
            return None
        header_title = (self.header or {}).get("title")
        return header_title or self.title_slot


def _scan(path: Path, size: int) -> _Scan:
    scan = _Scan()
    with open(path, "rb") as f:
        if size <= _WINDOW:
            data = f.read()
            cut = data.rfind(b"\n") + 1
            # a last line without its newline still counts when it is complete JSON
            if cut < len(data) and _json_line(data[cut:]) is not None:
                cut = len(data)
            scan.feed(data[:cut])
            return scan
        carry = b""
        while chunk := f.read(_CHUNK):
            data = carry + chunk
            cut = data.rfind(b"\n") + 1
            if cut:
                scan.feed(data[:cut])
            carry = data[cut:]
        if carry and _json_line(carry) is not None:
            scan.feed(carry)
    return scan


def session_info(path: Path) -> SessionInfo | None:
    """The listing row of one file; None when it has no session header."""
    try:
        stat = path.stat()
        scan = _scan(path, stat.st_size)
    except OSError:
        return None
    header = scan.header
    if header is None or not isinstance(header.get("id"), str):
        return None
    parent = header.get("parentSession")
    return SessionInfo(
        path=path,
        id=header["id"],
        cwd=str(header.get("cwd", "")),
        modified=datetime.fromtimestamp(stat.st_mtime, UTC),
        first_message=scan.first,
        created=str(header.get("timestamp", "")),
        message_count=scan.count,
        name=scan.name(),
        parent_session=parent if isinstance(parent, str) else None,
    )


def session_files(directory: Path) -> list[Path]:
    try:
        with os.scandir(directory) as entries:
            return sorted(
                Path(e.path) for e in entries if e.name.endswith(".jsonl") and e.is_file()
            )
    except OSError:
        return []


def list_sessions(directory: Path, search: str | None = None) -> list[SessionInfo]:
    """The sessions in a directory, newest first, optionally only those matching
    ``search``; files without a session header are left out."""
    infos = [info for path in session_files(directory) if (info := session_info(path))]
    if search and search.strip():
        infos = [info for info in infos if info.matches(search)]
    infos.sort(key=lambda info: info.modified, reverse=True)
    return infos


def list_all_sessions(root: Path, search: str | None = None) -> list[SessionInfo]:
    """The sessions of every working directory under ``root`` (``<agent dir>/sessions``)."""
    infos: list[SessionInfo] = []
    try:
        folders = [Path(e.path) for e in os.scandir(root) if e.is_dir()]
    except OSError:
        folders = []
    for folder in folders:
        infos += list_sessions(folder, search)
    infos.sort(key=lambda info: info.modified, reverse=True)
    return infos
