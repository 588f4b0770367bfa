"""The pure-Python search backend: ``search(kind, params, cwd, stop, regex_timeout)``.

Answers are the shapes of ``omp_tool_search.answers``. Files are read whole in binary
(at most 4 MiB, else skipped), a NUL byte in the first 8 KiB marks a binary file
(skipped); text is UTF-8 (invalid bytes read as U+FFFD) and searched with one compiled
regex over the whole file, lines being recovered only around matches. The regex has
Python's syntax and meaning but runs on RE2 (linear time) wherever RE2 can say it; the
rest runs on Python's ``re`` in a worker process (``engine``) that is killed when one
file takes longer than ``regex_timeout`` seconds (setting ``search.regexTimeoutMs``),
which makes the grep an error the model can act on. A regex's longest required
literal (or a literal pattern) is first looked for in the raw bytes, so most files are
never matched at all. ``stop`` (a threading.Event) ends the walk and kills the worker.
``on_partial`` receives a grep's results as files are searched (``answers``): what was
found by PARTIAL_FIRST_S, then at most every PARTIAL_INTERVAL_S (a search over sooner
sends none: its answer follows at once).
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from omp import resolve_path

from omp_tool_search.answers import FindAnswer, GrepAnswer, GrepLine, TreeAnswer
from omp_tool_search.engine import Matcher, RegexTimeout, Stopped, WorkerFailed
from omp_tool_search.match import compile_glob, type_extensions
from omp_tool_search.walk import DIR, FILE, walk

MAX_FILE_BYTES = 4 * 1024 * 1024
"""Files larger than this are skipped while walking a folder."""
MAX_EXPLICIT_FILE_BYTES = 64 * 1024 * 1024
"""A file named as ``path`` itself may be larger, up to this."""
BINARY_SNIFF_BYTES = 8 * 1024
DEFAULT_REGEX_TIMEOUT_MS = 5000
"""Longest Python's regex engine may spend on one file (setting ``search.regexTimeoutMs``)."""
PARTIAL_FIRST_S, PARTIAL_INTERVAL_S = 0.01, 0.02
TREE_DEPTH, TREE_LIMIT = 3, 500

OnPartial = Callable[[list[tuple[str, int, list[tuple[int, str, bool]]]]], Any]


class SearchError(Exception):
    """A search that cannot run; the message is for the model."""


def search(
    kind: str,
    params: dict[str, Any],
    cwd: str,
    stop: threading.Event | None = None,
    regex_timeout: float | None = None,
    on_partial: OnPartial | None = None,
):
    """Run a ``find``, ``grep`` or ``tree``; an answer with ``error`` set when it cannot
    run. ``regex_timeout``: seconds Python's regex engine may spend on one file (default
    DEFAULT_REGEX_TIMEOUT_MS)."""
    try:
        if kind == "find":
            return find(params, cwd, stop)
        if kind == "grep":
            return grep(params, cwd, stop, regex_timeout, on_partial)
        if kind == "tree":
            return tree(params, cwd, stop)
    except SearchError as exc:
        return error_answer(kind, str(exc))
    raise ValueError(f"unknown search kind {kind!r}")


def error_answer(kind: str, message: str) -> FindAnswer | GrepAnswer | TreeAnswer:
    answer = {"find": FindAnswer, "tree": TreeAnswer}.get(kind, GrepAnswer)
    return answer(error=message)


def regex_timeout(settings: Any) -> float:
    """``search.regexTimeoutMs`` from settings (anything with ``get``), in seconds."""
    value = settings.get("search.regexTimeoutMs") if settings is not None else None
    if value is None:
        return DEFAULT_REGEX_TIMEOUT_MS / 1000
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise SearchError(
            f"search.regexTimeoutMs must be a positive number of milliseconds, got {value!r}"
        )
    return value / 1000


def _folder(params: dict[str, Any], cwd: str, kind: str) -> str:
    root = resolve_path(params.get("path") or ".", cwd)
    if not os.path.exists(root):
        raise SearchError(f"Path not found: {params.get('path')}")
    if not os.path.isdir(root):
        raise SearchError(f"Not a directory: {params.get('path')} ({kind} lists folders)")
    return root


def tree(params: dict[str, Any], cwd: str, stop: threading.Event | None = None) -> TreeAnswer:
    from omp_tool_search.tree import tree as render

    root = _folder(params, cwd, "tree")
    depth = max(1, int(params.get("depth") or TREE_DEPTH))
    return render(root, depth, max(1, int(params.get("limit") or TREE_LIMIT)), stop)


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


def grep(
    params: dict[str, Any],
    cwd: str,
    stop: threading.Event | None = None,
    regex_timeout: float | None = None,
    on_partial: OnPartial | None = None,
) -> GrepAnswer:
    if regex_timeout is None:
        regex_timeout = DEFAULT_REGEX_TIMEOUT_MS / 1000
    target = resolve_path(params.get("path") or ".", cwd)
    if not os.path.exists(target):
        raise SearchError(f"Path not found: {params.get('path')}")
    regex = compile_pattern(params)
    partials = _Partials(on_partial) if on_partial is not None else None
    run = _GrepRun(params, regex, Matcher(regex, regex_timeout, stop), partials)
    try:
        _grep(run, params, target, stop)
    except RegexTimeout:
        where = os.path.relpath(run.current, cwd)
        where = run.current if where.startswith("..") else where
        raise SearchError(
            f"The regex {params.get('pattern')!r} timed out after {regex_timeout:g} s "
            f"on {where}: Python's regex engine, which its backreference, lookaround or "
            "atomic group needs, backtracks too much on it (as with nested repeats like "
            "(a+)+). Use a simpler pattern without those, or literal=true to search for "
            "plain text."
        ) from None
    except WorkerFailed as exc:
        raise SearchError(f"The regex {params.get('pattern')!r} could not run: {exc}") from None
    except Stopped:
        pass
    finally:
        run.matcher.close()
    return run.answer


def _grep(run: _GrepRun, params: dict[str, Any], target: str, stop: threading.Event | None):
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
            if run.partials is not None:
                run.partials.tick()
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


def type_names() -> str:
    from omp_tool_search.match import FILE_TYPES

    return ", ".join(FILE_TYPES)


TOO_LARGE = b"<too large>"
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
"""Without blocking: a named pipe reads as empty (or unreadable) instead of waiting for
a writer forever."""


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


class _Partials:
    """Hands a grep's results to ``on_partial``: what was found by PARTIAL_FIRST_S, then
    at most every PARTIAL_INTERVAL_S (``tick`` is called between files); what is still
    pending at the end is left to the answer."""

    def __init__(self, on_partial: OnPartial) -> None:
        self.send = on_partial
        self.pending: list[tuple[str, int, list[tuple[int, str, bool]]]] = []
        self.due = time.monotonic() + PARTIAL_FIRST_S

    def add(self, path: str, count: int, lines: list[GrepLine]) -> None:
        self.pending.append((path, count, [(x.line, x.text, x.match) for x in lines]))
        self.tick()

    def tick(self) -> None:
        if self.pending and time.monotonic() >= self.due:
            self.flush()
            self.due = time.monotonic() + PARTIAL_INTERVAL_S

    def flush(self) -> None:
        if self.pending:
            items, self.pending = self.pending, []
            self.send(items)


class _GrepRun:
    """One grep: state shared by the files it searches."""

    def __init__(
        self,
        params: dict[str, Any],
        regex: re.Pattern[str],
        matcher: Matcher,
        partials: _Partials | None = None,
    ) -> None:
        self.matcher = matcher
        self.partials = partials
        self.mode = str(params.get("outputMode") or "content")
        self.context = max(0, int(params.get("context") or 0))
        self.limit = max(1, int(params.get("limit") or 100))
        self.needle = required_literal(regex)
        self.answer = GrepAnswer(mode=self.mode)
        self.current = ""
        """The path of the file being searched."""

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
        self.current = path
        left = self.limit - answer.matches if self.mode == "content" else sys.maxsize
        text, hits, count, truncated = self.matcher.scan(data, self.mode, left)
        answer.matches += count
        if truncated:
            answer.truncated = True
        if count == 0 and not truncated:
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
            if self.partials is not None:
                self.partials.add(rel, count, [])
            return False
        if hits:
            answer.files_matched += 1
            before = len(answer.lines)
            self._add_lines(rel, text, hits)
            if self.partials is not None:
                self.partials.add(rel, len(hits), answer.lines[before:])
        return answer.truncated

    def _add_lines(self, rel: str, text: str | bytes, hits: list[tuple[int, int, int]]) -> None:
        out = self.answer.lines
        if self.context == 0:
            out.extend(GrepLine(rel, n, _line(text[s:e])) for n, s, e in hits)
            return
        nl = b"\n" if isinstance(text, bytes) else "\n"
        lines = text.split(nl)  # type: ignore[arg-type]
        if lines and not lines[-1] and text.endswith(nl):  # type: ignore[arg-type]
            lines.pop()
        matched = {n for n, _, _ in hits}
        shown = set()
        for n in matched:
            shown.update(range(max(1, n - self.context), min(len(lines), n + self.context) + 1))
        for n in sorted(shown):
            out.append(GrepLine(rel, n, _line(lines[n - 1]), n in matched))


def _line(text: str | bytes) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return text.removesuffix("\r")
