"""The answers a search backend gives to ``ctx.search`` (the ``omp_search`` hook).

A backend receives ``event.kind`` ("grep" or "find"), ``event.params`` (the tool's
parameters with every default filled in, exactly as the model's call validated; ``path``
is still as the model wrote it) and ``event.cwd``, and returns ``{"result": answer}``.
The answer is one of the dataclasses below, or a plain dict with the same keys (a
native backend may find dicts easier); the tools read either through ``coerce``.

``find`` -> FindAnswer
    root: absolute directory that was searched.
    paths: matches relative to ``root`` with ``/`` separators, directories ending in
        ``/``, sorted as strings, at most ``limit`` of them.
    total: how many entries matched in all (``total > len(paths)`` means capped).
    error: set instead of results when the search could not run (path missing, not a
        directory, bad pattern); the text is shown to the model as an error.

``grep`` -> GrepAnswer
    root: absolute directory the paths are relative to (for a single file, its folder).
    mode: "content", "files" or "count" (``outputMode``).
    lines: mode "content": matching lines and, with ``context``, the lines around
        them, as GrepLine(path, line (1-based), text (no line ending, not cut),
        match (False for a context line)), in file order; files in walk order
        (directory entries sorted by name).
    files: mode "files": paths of files with at least one match, in walk order.
    counts: mode "count": [path, matching-line count] pairs, in walk order.
    matches: matching lines found (all modes; in "files" mode, at least one per file).
    files_matched: files with a match; files_searched: text files searched.
    truncated: the limit (matching lines in "content", files otherwise) was reached and
        more matches exist; the search stopped there.
    skipped_binary / skipped_large: files left out (NUL byte in the first 8 KiB / over
        4 MiB).
    error: as for find (also an invalid regex: name the problem).

``tree`` -> TreeAnswer (params: path, depth, limit)
    root: absolute directory listed.
    lines: the walk's entries down to ``depth`` levels, in walk order, at most
        ``limit``: ``name/ (N files)`` for a folder (N: files and links below it at any
        depth), ``name@`` for a symbolic link, ``name`` for a file, indented two spaces
        per level below the first.
    total: how many entries there are down to ``depth`` (``total > len(lines)``: capped).
    error: as for find.

``event.on_partial`` (grep only, may be None): call it with lists of
``(path, matching-line count, [(line, text, match), ...])`` as files are searched, lines
in content mode only; each file what it adds to the answer, in walk order (a parallel
backend's full scan may send them in the order found).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


@dataclass(slots=True)
class FindAnswer:
    root: str = ""
    paths: list[str] = field(default_factory=list)
    total: int = 0
    error: str | None = None


@dataclass(slots=True)
class GrepLine:
    path: str
    line: int
    text: str
    match: bool = True


@dataclass(slots=True)
class GrepAnswer:
    root: str = ""
    mode: str = "content"
    lines: list[GrepLine] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    counts: list[tuple[str, int]] = field(default_factory=list)
    matches: int = 0
    files_matched: int = 0
    files_searched: int = 0
    truncated: bool = False
    skipped_binary: int = 0
    skipped_large: int = 0
    error: str | None = None


@dataclass(slots=True)
class TreeAnswer:
    root: str = ""
    lines: list[str] = field(default_factory=list)
    total: int = 0
    error: str | None = None


def _from_dict(cls: type, value: dict[str, Any]) -> Any:
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in value.items() if k in names})


def coerce_find(value: Any) -> FindAnswer:
    """A FindAnswer from a backend's answer (the dataclass or a dict)."""
    if isinstance(value, FindAnswer):
        return value
    if isinstance(value, dict):
        return _from_dict(FindAnswer, value)
    raise TypeError(f"search backend gave a {type(value).__name__} for a find")


def coerce_grep(value: Any) -> GrepAnswer:
    """A GrepAnswer from a backend's answer (the dataclass or a dict)."""
    if isinstance(value, GrepAnswer):
        return value
    if not isinstance(value, dict):
        raise TypeError(f"search backend gave a {type(value).__name__} for a grep")
    answer = _from_dict(GrepAnswer, value)
    answer.lines = [
        line if isinstance(line, GrepLine) else _from_dict(GrepLine, line) for line in answer.lines
    ]
    answer.counts = [(str(path), int(count)) for path, count in answer.counts]
    return answer


def coerce_tree(value: Any) -> TreeAnswer:
    """A TreeAnswer from a backend's answer (the dataclass or a dict)."""
    if isinstance(value, TreeAnswer):
        return value
    if isinstance(value, dict):
        return _from_dict(TreeAnswer, value)
    raise TypeError(f"search backend gave a {type(value).__name__} for a tree")
