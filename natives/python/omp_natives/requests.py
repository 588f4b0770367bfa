"""A grep, find or tree request turned into a call of the compiled module, with the
pure-Python backend's meaning: its regexes (Python syntax) and globs are translated by
that backend's own translator into the Rust engine's syntax. ``prepare`` gives None for
what cannot be said exactly there, and for every error case, so the pure-Python backend
answers those (and words the errors) itself."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from omp import resolve_path
from omp_tool_search.answers import GrepAnswer, GrepLine
from omp_tool_search.match import glob_to_regex, type_extensions
from omp_tool_search.translate import translate

from omp_natives import load

Run = Callable[[Any], dict[str, Any] | None]
"""Called with a CancelToken in a worker thread; the answer, or None to decline."""


def _line_regex(params: dict[str, Any]) -> str | None:
    pattern = str(params.get("pattern") or "")
    return _translated(pattern, bool(params.get("literal")), bool(params.get("ignoreCase")))


@lru_cache(maxsize=256)
def _translated(pattern: str, literal: bool, ignore_case: bool) -> str | None:
    """The Rust-syntax line regex of a grep pattern (None: Python's engine must run it)."""
    source = re.escape(pattern) if literal else pattern
    flags = re.MULTILINE | (re.IGNORECASE if ignore_case else 0)
    try:
        compiled = re.compile(source, flags)
    except re.error:
        return None
    translation = translate(compiled.pattern, compiled.flags)
    if translation is None or "\\A" in translation.pattern or "\\z" in translation.pattern:
        return None  # \A and \z mean the file's ends, which line-wise matching loses
    return translation.pattern


@lru_cache(maxsize=256)
def _glob_regex(glob: str) -> tuple[str, bool] | None:
    """(regex, whole_path) for a glob as ``match.compile_glob`` reads it."""
    pattern = glob.strip()
    while pattern.startswith("./"):
        pattern = pattern[2:]
    pattern = pattern.lstrip("/").rstrip("/") or "**"
    source = glob_to_regex(pattern)
    try:
        re.compile(source, re.DOTALL)
    except re.error:
        return None
    translation = translate(source, re.DOTALL)
    if translation is None or translation.ascii_only:
        return None
    return translation.pattern, "/" in pattern


def prepare(kind: str, params: dict[str, Any], cwd: str) -> Run | None:
    """What to call for a ``find``, ``grep`` (a GrepRequest) or ``tree``; None to decline."""
    if kind == "find":
        return _prepare_find(params, cwd)
    if kind == "tree":
        return _prepare_tree(params, cwd)
    return _prepare_grep(params, cwd)


def _prepare_tree(params: dict[str, Any], cwd: str) -> Run | None:
    from omp_tool_search.backend import TREE_DEPTH, TREE_LIMIT

    root = resolve_path(params.get("path") or ".", cwd)
    if not os.path.isdir(root):
        return None
    depth = max(1, int(params.get("depth") or TREE_DEPTH))
    limit = max(1, int(params.get("limit") or TREE_LIMIT))

    def run(token: Any) -> dict[str, Any]:
        return load().tree(root, depth, limit, token)

    return run


def _prepare_find(params: dict[str, Any], cwd: str) -> Run | None:
    root = resolve_path(params.get("path") or ".", cwd)
    glob = _glob_regex(str(params.get("pattern") or "**"))
    if glob is None or not os.path.isdir(root):
        return None
    limit = max(1, int(params.get("limit") or 1000))

    def run(token: Any) -> dict[str, Any]:
        return load().find(root, glob[0], glob[1], limit, token)

    return run


def _prepare_grep(params: dict[str, Any], cwd: str) -> GrepRequest | None:
    target = resolve_path(params.get("path") or ".", cwd)
    regex = _line_regex(params)
    if regex is None:
        return None
    try:
        folder = stat.S_ISDIR(os.stat(target).st_mode)
    except (OSError, ValueError):  # missing, unreadable or not a path at all
        return None
    glob, extensions = None, None
    if folder and params.get("glob"):
        glob = _glob_regex(str(params["glob"]))
        if glob is None:
            return None
    if folder and params.get("type"):
        extensions = type_extensions(str(params["type"]))
        if extensions is None:
            return None
    options = {
        "mode": str(params.get("outputMode") or "content"),
        "limit": max(1, int(params.get("limit") or 100)),
        "context": max(0, int(params.get("context") or 0)),
        "glob": glob[0] if glob else None,
        "glob_path": bool(glob and glob[1]),
        "extensions": list(extensions) if extensions else None,
    }
    return GrepRequest(target, regex, folder, options)


@dataclass(slots=True)
class GrepRequest:
    """A grep the Rust engine can answer: call it (with a CancelToken) to run it here,
    or ``start`` it on a thread of the engine's own."""

    target: str
    regex: str
    folder: bool
    options: dict[str, Any]

    def __call__(self, token: Any) -> GrepAnswer | None:
        try:
            answer = load().grep(
                self.target, self.regex, cancel=token, line_type=GrepLine, **self.options
            )
        except ValueError:
            return None  # a regex the Rust engine refuses: Python's engine runs it
        return self.accept(answer)

    def start(self, token: Any, on_batch: Any, inline_for: float = 0.0) -> Any | None:
        """Start it on a thread of the engine's own, after running it here (without the
        GIL) for up to ``inline_for`` seconds: the ``GrepSearch`` (``done``, or ``fileno``
        readable once over; then ``finish``), or None if declined. ``on_batch`` gets
        partial results on the way, from the searching thread."""
        try:
            return load().grep_start(
                self.target,
                self.regex,
                cancel=token,
                on_batch=on_batch,
                inline_for=inline_for,
                **self.options,
            )
        except ValueError:
            return None

    def finish(self, search: Any) -> GrepAnswer | None:
        """The answer of a search ``start`` began, once it is over."""
        return self.accept(search.result(GrepLine))

    def accept(self, answer: dict[str, Any]) -> GrepAnswer | None:
        """The engine's answer as the tools take it (its keys are GrepAnswer's; the
        lines are GrepLines already, so the tool has nothing to convert)."""
        if not self.folder and (answer["skipped_binary"] or answer["skipped_large"]):
            return None  # the pure-Python backend words these errors
        return GrepAnswer(**answer)
