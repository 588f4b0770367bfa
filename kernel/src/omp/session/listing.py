"""Listing session files for ``/resume``, ``--resume``, ``omp sessions`` and RPC.

Each file is read as bytes and only the lines that matter are parsed: the header (and
omp's title slot) at the start, the first user message, the latest ``session_info``
(pi) or ``title_change`` (omp) name, and message lines are counted, not parsed. A
small file is read in one call; a longer one is streamed through at memory speed,
without decoding a single message. What a scan found is kept in the directory's index
(``omp.session.index``): listing again reads nothing of an unchanged file and only the
appended end of one that grew.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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
    parent_session_id: str | None = None
    depth: int = 0
    """How deep under a listed session this child session is (0: a top-level one)."""

    @property
    def title(self) -> str:
        """The session's name if it was given one, else its first prompt."""
        return self.name or self.first_message or "(no messages)"

    def to_json(self) -> dict[str, Any]:
        """The listing as ``omp sessions --json`` and RPC's ``list_sessions`` give it."""
        return {
            "id": self.id,
            "path": str(self.path),
            "title": self.title,
            "name": self.name,
            "firstMessage": self.first_message,
            "cwd": self.cwd,
            "created": self.created,
            "modified": self.modified.isoformat().replace("+00:00", "Z"),
            "messageCount": self.message_count,
            "parentSession": self.parent_session,
            "parentSessionId": self.parent_session_id,
            "depth": self.depth,
        }

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
        self.offset = 0
        """Where the scan stopped: the end of the last complete line fed."""
        self.check = b""
        self.resumable = True

    def record(self) -> dict[str, Any]:
        """The scan as an index record (omp.session.index)."""
        return {
            "header": self.header,
            "titleSlot": self.title_slot,
            "first": self.first,
            "count": self.count,
            "nameLine": self.name_line.decode("latin-1") if self.name_line else None,
            "linesSeen": self._lines_seen,
            "offset": self.offset,
            "check": self.check.decode("latin-1"),
            "resumable": self.resumable,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> _Scan:
        scan = cls()
        scan.header = record.get("header")
        scan.title_slot = record.get("titleSlot")
        scan.first = record.get("first")
        scan.count = int(record.get("count") or 0)
        line = record.get("nameLine")
        scan.name_line = line.encode("latin-1") if isinstance(line, str) else None
        scan._lines_seen = int(record.get("linesSeen") or 0)
        scan.offset = int(record.get("offset") or 0)
        scan.check = str(record.get("check") or "").encode("latin-1")
        scan.resumable = record.get("resumable") is True
        return scan

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


_CHECK = 64
"""Bytes before the scanned offset kept in the index, to tell an appended file from a
rewritten one."""


def _scan(path: Path, previous: dict[str, Any] | None = None) -> _Scan:
    """Scan the file's complete lines; with ``previous`` (an index record of a file that
    grew) only the bytes after where that scan stopped, when they still follow the same
    bytes."""
    with open(path, "rb") as f:
        if previous is not None:
            scan = _Scan.from_record(previous)
            offset = previous["offset"]
            f.seek(max(offset - len(scan.check), 0))
            if f.read(len(scan.check)) == scan.check:
                _stream(f, scan, offset)
                return scan
            f.seek(0)
        scan = _Scan()
        _stream(f, scan, 0)
    return scan


def _stream(f: Any, scan: _Scan, offset: int) -> None:
    """Feed the lines from ``offset`` (a line start) on, in chunks at memory speed."""
    carry = b""
    while chunk := f.read(_CHUNK):
        data = carry + chunk
        cut = data.rfind(b"\n") + 1
        if cut:
            scan.feed(data[:cut])
            scan.check = (scan.check + data[:cut])[-_CHECK:]
            offset += cut
        carry = data[cut:]
    scan.offset = offset
    # a last line without its newline still counts when it is complete JSON; a scan
    # that took it cannot go on from there
    if carry and _json_line(carry) is not None:
        scan.feed(carry)
        scan.resumable = False


def session_info(path: Path) -> SessionInfo | None:
    """The listing row of one file; None when it has no session header."""
    return _indexed_info(path, None)[0]


def _indexed_info(
    path: Path, record: dict[str, Any] | None
) -> tuple[SessionInfo | None, dict[str, Any] | None]:
    """The row of one file, and its index record, from the file's previous ``record``:
    unchanged, nothing is read; grown, only what was appended."""
    from omp.session import index as session_index

    try:
        stat = path.stat()
    except OSError:
        return None, None
    for previous in (record, None):  # a damaged record costs a full read
        try:
            if session_index.unchanged(previous, stat):
                scan = _Scan.from_record(previous)  # type: ignore[arg-type]
            else:
                grown = session_index.appended(previous, stat)
                scan = _scan(path, previous if grown else None)
            break
        except (ValueError, TypeError, KeyError, AttributeError):
            continue
        except OSError:
            return None, None
    else:
        return None, None
    fresh = {**scan.record(), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    return _info(path, stat, scan), fresh


def _info(path: Path, stat: os.stat_result, scan: _Scan) -> SessionInfo | None:
    header = scan.header
    if header is None or not isinstance(header.get("id"), str):
        return None
    parent = header.get("parentSession")
    parent_id = header.get("parentSessionId")
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
        parent_session_id=parent_id if isinstance(parent_id, str) else None,
    )


def session_files(directory: Path) -> list[Path]:
    """The directory's ``.jsonl`` files in name order (sorted as strings: comparing
    5,000 Paths costs more than the rest of an indexed listing's bookkeeping)."""
    try:
        with os.scandir(directory) as entries:
            found = sorted(
                (e.name, e.path) for e in entries if e.name.endswith(".jsonl") and e.is_file()
            )
    except OSError:
        return []
    return [Path(path) for _, path in found]


def list_sessions(
    directory: Path, search: str | None = None, *, children: bool = False
) -> list[SessionInfo]:
    """The sessions in a directory, newest first, optionally only those matching
    ``search``; files without a session header are left out. What each file held is
    remembered in the directory's index (omp.session.index).

    With ``children`` each session is followed by its child sessions (the subagents'
    files, ``<session file without .jsonl>/<name>.jsonl``, and theirs), in name order,
    ``depth`` saying how deep; ``search`` then keeps a session whose child matches."""
    if children:
        return _with_children(directory, search, 0)
    from omp.session import index as session_index

    index = session_index.load(directory)
    fresh: dict[str, dict[str, Any]] = {}
    infos = []
    for path in session_files(directory):
        info, record = _indexed_info(path, index.get(path.name))
        if record is not None:
            fresh[path.name] = record
        if info is not None:
            infos.append(info)
    if fresh != index:
        session_index.save(directory, fresh)
    if search and search.strip():
        infos = [info for info in infos if info.matches(search)]
    infos.sort(key=lambda info: info.modified, reverse=True)
    return infos


def _with_children(directory: Path, search: str | None, depth: int) -> list[SessionInfo]:
    infos = list_sessions(directory) if depth == 0 else _by_name(list_sessions(directory))
    found: list[SessionInfo] = []
    for info in infos:
        info.depth = depth
        folder = info.path.with_suffix("")
        below = _with_children(folder, search, depth + 1) if folder.is_dir() else []
        if not search or not search.strip() or below or info.matches(search):
            found += [info, *below]
    return found


def _by_name(infos: list[SessionInfo]) -> list[SessionInfo]:
    return sorted(infos, key=lambda info: info.path.name)


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


def matching(infos: list[SessionInfo], prefix: str) -> list[SessionInfo]:
    """The sessions ``prefix`` names as ``omp.session.store.find_session`` would: by id,
    file name or id-after-timestamp, exactly (those win) or by prefix, case-insensitive."""
    needle = prefix.strip().lower()
    if not needle:
        return []
    exact: list[SessionInfo] = []
    partial: list[SessionInfo] = []
    for info in infos:
        stem = info.path.stem.lower()
        keys = {info.path.name.lower(), stem, stem.partition("_")[2], info.id.lower()} - {""}
        if needle in keys:
            exact.append(info)
        elif any(key.startswith(needle) for key in keys):
            partial.append(info)
    return exact or partial


def find_in_all_projects(root: Path, prefix: str, *, skip: Path | None = None) -> list[SessionInfo]:
    """The sessions of every project under ``root`` (``<agent dir>/sessions``) but the
    folder ``skip`` that ``prefix`` names (see ``matching``)."""
    infos = [i for i in list_all_sessions(root) if skip is None or i.path.parent != skip]
    return matching(infos, prefix)
