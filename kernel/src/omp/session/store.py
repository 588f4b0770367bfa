"""Where session files live, and finding one again for --continue, --resume and listings."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from omp.base.errors import UsageError
from omp.session.file import iso_now
from omp.session.listing import SessionInfo

_SEPARATORS = re.compile(r"[/\\:]")
_PREFIX_BYTES = 4096


def _relative_to(path: str, root: str) -> str | None:
    if path == root:
        return ""
    prefix = root if root.endswith(("/", "\\")) else root + os.sep
    return path[len(prefix) :] if path.startswith(prefix) else None


def encode_cwd(cwd: str, home: str, tmp: str) -> str:
    """omp's directory name for a cwd: ``-rel`` under home, ``-tmp-rel`` under the temp
    dir, else ``--absolute--``; separators (and ``:``) become ``-``."""
    cwd, home, tmp = (os.path.normpath(p) for p in (cwd, home, tmp))
    relative = _relative_to(cwd, home)
    if relative is not None:
        return "-" + _SEPARATORS.sub("-", relative)
    relative = _relative_to(cwd, tmp)
    if relative is not None:
        return "-tmp-" + _SEPARATORS.sub("-", relative) if relative else "-tmp"
    return "--" + _SEPARATORS.sub("-", re.sub(r"^[/\\]", "", cwd)) + "--"


def sessions_dir(
    agent_dir: Path,
    cwd: str,
    session_dir: str | None = None,
    *,
    home: str | None = None,
    tmp: str | None = None,
) -> Path:
    """The folder holding the sessions of ``cwd`` (or ``session_dir`` when given)."""
    if session_dir:
        return Path(session_dir).expanduser()
    home = home if home is not None else str(Path.home())
    tmp = tmp if tmp is not None else tempfile.gettempdir()
    return Path(agent_dir) / "sessions" / encode_cwd(cwd, home, tmp)


def new_session_path(directory: Path, session_id: str, timestamp: str | None = None) -> Path:
    """``<timestamp>_<id>.jsonl``; pass the header's timestamp to keep the two equal."""
    stamp = (timestamp or iso_now()).replace(":", "-").replace(".", "-")
    return Path(directory) / f"{stamp}_{session_id}.jsonl"


def _session_files(directory: Path) -> list[Path]:
    try:
        return sorted(p for p in Path(directory).iterdir() if p.suffix == ".jsonl" and p.is_file())
    except OSError:
        return []


def _read_prefix(path: Path) -> list[dict[str, Any]]:
    """The complete, parseable lines among the first few KiB of a file."""
    try:
        with open(path, "rb") as f:
            data = f.read(_PREFIX_BYTES)
    except OSError:
        return []
    lines = data.split(b"\n")
    if len(data) == _PREFIX_BYTES:
        lines.pop()
    records = []
    for raw in lines:
        try:
            value = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            continue
        if isinstance(value, dict):
            records.append(value)
    return records


def _header(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    for record in records[:2]:
        if record.get("type") == "session" and isinstance(record.get("id"), str):
            return record
    return None


def most_recent(directory: Path) -> Path | None:
    """The newest session file with a session header (an empty file left by a crash
    between creating and writing it is passed over)."""
    candidates: list[tuple[int, str, Path]] = []
    for path in _session_files(directory):
        try:
            candidates.append((path.stat().st_mtime_ns, path.name, path))
        except OSError:
            continue
    for _, _, path in sorted(candidates, reverse=True):
        if _header(_read_prefix(path)) is not None:
            return path
    return None


def _child_files(path: Path) -> list[Path]:
    """The child sessions' files of the session at ``path`` (subagents:
    ``<session file without .jsonl>/<name>.jsonl``), and theirs, in name order."""
    below = _session_files(path.with_suffix(""))
    return [p for child in below for p in (child, *_child_files(child))]


def find_session(directory: Path, prefix: str) -> Path:
    """The one session whose id, file name or id-after-timestamp starts with ``prefix``
    (case-insensitive); an exact match wins over prefix matches. The directory's own
    sessions come first; only when none matches are their child sessions (subagents')
    looked at."""
    needle = prefix.strip().lower()
    if not needle:
        raise UsageError("no session id given")
    top = _session_files(directory)
    matches = _matching(top, needle) or _matching(
        [p for path in top for p in _child_files(path)], needle
    )
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise UsageError(f"no session matching '{prefix}' in {directory}")
    names = ", ".join(path.name for path in matches[:5])
    more = f" and {len(matches) - 5} more" if len(matches) > 5 else ""
    raise UsageError(
        f"session '{prefix}' is ambiguous: {len(matches)} sessions match: {names}{more}"
    )


def _matching(files: list[Path], needle: str) -> list[Path]:
    """The files ``needle`` names exactly (those win), else by prefix."""
    exact: list[Path] = []
    partial: list[Path] = []
    for path in files:
        stem = path.stem.lower()
        header = _header(_read_prefix(path)) or {}
        keys = {path.name.lower(), stem, stem.partition("_")[2], str(header.get("id", "")).lower()}
        keys.discard("")
        if needle in keys:
            exact.append(path)
        elif any(key.startswith(needle) for key in keys):
            partial.append(path)
    return exact or partial


def list_sessions(directory: Path) -> list[SessionInfo]:
    """The sessions in a directory, newest first; files without a session header are left out."""
    from omp.session.listing import list_sessions as listing

    return listing(directory)
