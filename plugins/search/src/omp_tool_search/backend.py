"""The pure-Python search backend: ``search(kind, params, cwd, stop)``.

Answers are the shapes of ``omp_tool_search.answers``. Files are read whole in binary
(at most 4 MiB, else skipped), a NUL byte in the first 8 KiB marks a binary file
(skipped); text is decoded as UTF-8 (invalid bytes replaced) and searched with one
compiled regex over the whole file, lines being recovered only around matches. A
regex's longest required literal (or a literal pattern) is first looked for in the
raw bytes, so most files are never decoded. ``stop`` (a threading.Event) ends the
walk early.
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any

from omp.tools import resolve_path

from omp_tool_search.answers import FindAnswer, GrepAnswer, GrepLine
from omp_tool_search.match import compile_glob, type_extensions
from omp_tool_search.walk import DIR, FILE, walk

MAX_FILE_BYTES = 4 * 1024 * 1024
"""Files larger than this are skipped while walking a folder."""
MAX_EXPLICIT_FILE_BYTES = 64 * 1024 * 1024
"""A file named as ``path`` itself may be larger, up to this."""
BINARY_SNIFF_BYTES = 8 * 1024


class SearchError(Exception):
    """A search that cannot run; the message is for the model."""


def search(kind: str, params: dict[str, Any], cwd: str, stop: threading.Event | None = None):
    """Run a ``find`` or ``grep``; an answer with ``error`` set when it cannot run."""
    try:
        if kind == "find":
            return find(params, cwd, stop)
        if kind == "grep":
            return grep(params, cwd, stop)
    except SearchError as exc:
        return FindAnswer(error=str(exc)) if kind == "find" else GrepAnswer(error=str(exc))
    raise ValueError(f"unknown search kind {kind!r}")


def find(params: dict[str, Any], cwd: str, stop: threading.Event | None = None) -> FindAnswer:
    root = resolve_path(params.get("path") or ".", cwd)
    if not os.path.exists(root):
        raise SearchError(f"Path not found: {params.get('path')}")
    if not os.path.isdir(root):
        raise SearchError(f"Not a directory: {params.get('path')} (find searches folders)")
    try:
        matches = compile_glob(str(params.get("pattern") or "**"))
    except re.error as exc:
        raise SearchError(f"Invalid glob pattern {params.get('pattern')!r}: {exc}") from exc
    found = [
        entry.rel + "/" if entry.kind == DIR else entry.rel
        for entry in walk(root, stop)
        if matches(entry.rel, entry.name)
    ]
    found.sort()
    limit = max(1, int(params.get("limit") or 1000))
    return FindAnswer(root=root, paths=found[:limit], total=len(found))


def compile_pattern(params: dict[str, Any]) -> re.Pattern[str]:
    pattern = str(params.get("pattern") or "")
    source = re.escape(pattern) if params.get("literal") else pattern
    flags = re.MULTILINE | (re.IGNORECASE if params.get("ignoreCase") else 0)
    try:
        return re.compile(source, flags)
    except re.error as exc:
        raise SearchError(
            f"Invalid regex {pattern!r}: {exc}. Fix the pattern, or pass literal=true "
            "to search for the text as written."
        ) from exc


def required_literal(regex: re.Pattern[str]) -> bytes | None:
    """The longest run of plain characters every match must contain, as UTF-8 (None if
    there is none or case is ignored); a cheap filter before a file is decoded."""
    if regex.flags & re.IGNORECASE:
        return None
    try:
        from re import _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(regex.pattern, regex.flags)
        literal_op = _parser.LITERAL
    except Exception:
        return None
    if parsed.state.flags & re.IGNORECASE:
        return None
    best, run = "", []
    for op, arg in [*parsed, (None, None)]:
        if op is literal_op:
            run.append(chr(arg))
            continue
        if len(run) > len(best):
            best = "".join(run)
        run = []
    if not best or "\ufffd" in best:
        return None  # U+FFFD may stand for undecodable bytes, which the raw data lacks
    return best.encode("utf-8")


def grep(params: dict[str, Any], cwd: str, stop: threading.Event | None = None) -> GrepAnswer:
    target = resolve_path(params.get("path") or ".", cwd)
    if not os.path.exists(target):
        raise SearchError(f"Path not found: {params.get('path')}")
    regex = compile_pattern(params)
    run = _GrepRun(params, regex)
    if os.path.isdir(target):
        run.answer.root = target
        glob = params.get("glob")
        try:
            glob_ok = compile_glob(glob) if glob else None
        except re.error as exc:
            raise SearchError(f"Invalid glob {glob!r}: {exc}") from exc
        kind = params.get("type")
        extensions = type_extensions(kind) if kind else None
        if kind and extensions is None:
            raise SearchError(f"Unknown file type {kind!r}; use one of: {type_names()}")
        for entry in walk(target, stop):
            if entry.kind != FILE:
                continue
            if glob_ok is not None and not glob_ok(entry.rel, entry.name):
                continue
            if extensions is not None and not entry.name.lower().endswith(extensions):
                continue
            if run.search_file(entry.path, entry.rel, MAX_FILE_BYTES) or (
                stop is not None and stop.is_set()
            ):
                break
    else:
        run.answer.root = os.path.dirname(target)
        name = os.path.basename(target)
        run.search_file(target, name, MAX_EXPLICIT_FILE_BYTES)
        if run.answer.skipped_binary:
            raise SearchError(f"{params.get('path')} is a binary file; grep searches text.")
        if run.answer.skipped_large:
            raise SearchError(f"{params.get('path')} is larger than 64 MiB; grep skips it.")
    return run.answer


def type_names() -> str:
    from omp_tool_search.match import FILE_TYPES

    return ", ".join(FILE_TYPES)


TOO_LARGE = b"<too large>"
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0)


def read_file(path: str, max_bytes: int) -> bytes | None:
    """The file's bytes; TOO_LARGE over ``max_bytes``; None if it cannot be read."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            return TOO_LARGE
        data = os.read(fd, size + 1)
        if len(data) > size:  # it grew since fstat: read on, up to the cap
            chunks = [data]
            while chunk := os.read(fd, max_bytes + 1 - sum(map(len, chunks))):
                chunks.append(chunk)
                if sum(map(len, chunks)) > max_bytes:
                    break
            data = b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
    return TOO_LARGE if len(data) > max_bytes else data


class _GrepRun:
    """One grep: state shared by the files it searches."""

    def __init__(self, params: dict[str, Any], regex: re.Pattern[str]) -> None:
        self.regex = regex
        self.mode = str(params.get("outputMode") or "content")
        self.context = max(0, int(params.get("context") or 0))
        self.limit = max(1, int(params.get("limit") or 100))
        self.needle = required_literal(regex)
        self.answer = GrepAnswer(mode=self.mode)

    def search_file(self, path: str, rel: str, max_bytes: int) -> bool:
        """Search one file; True once the limit is passed (the search is over)."""
        answer = self.answer
        data = read_file(path, max_bytes)
        if data is None:
            return False
        if data is TOO_LARGE:
            answer.skipped_large += 1
            return False
        if data.find(b"\0", 0, BINARY_SNIFF_BYTES) >= 0:
            answer.skipped_binary += 1
            return False
        answer.files_searched += 1
        if self.needle is not None and self.needle not in data:
            return False
        text = data.decode("utf-8", "replace")
        search = self.regex.search
        hits: list[tuple[int, int, int]] = []  # (line number, start, end) of each line
        count = 0
        line_no, counted_to, pos, size = 1, 0, 0, len(text)
        while pos <= size:
            m = search(text, pos)
            if m is None:
                break
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.start())
            end = size if end < 0 else end
            if m.end() > end and search(text, start, end) is None:
                pos = end + 1  # the match ran over a line break; not a line match
                continue
            if self.mode == "content":
                if answer.matches >= self.limit:
                    answer.truncated = True
                    break
                line_no += text.count("\n", counted_to, start)
                counted_to = start
                hits.append((line_no, start, end))
            answer.matches += 1
            count += 1
            if self.mode == "files":
                break
            pos = end + 1
        if count == 0 and not answer.truncated:
            return False
        if self.mode != "content":
            if answer.files_matched >= self.limit:
                answer.matches -= count
                answer.truncated = True
                return True
            answer.files_matched += 1
            if self.mode == "files":
                answer.files.append(rel)
            else:
                answer.counts.append((rel, count))
            return False
        if hits:
            answer.files_matched += 1
            self._add_lines(rel, text, hits)
        return answer.truncated

    def _add_lines(self, rel: str, text: str, hits: list[tuple[int, int, int]]) -> None:
        out = self.answer.lines
        if self.context == 0:
            out.extend(GrepLine(rel, n, text[s:e].removesuffix("\r")) for n, s, e in hits)
            return
        lines = text.split("\n")
        if lines and lines[-1] == "" and text.endswith("\n"):
            lines.pop()
        matched = {n for n, _, _ in hits}
        shown = set()
        for n in matched:
            shown.update(range(max(1, n - self.context), min(len(lines), n + self.context) + 1))
        for n in sorted(shown):
            out.append(GrepLine(rel, n, lines[n - 1].removesuffix("\r"), n in matched))
