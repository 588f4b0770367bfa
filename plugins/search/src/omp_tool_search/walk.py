"""Walking a tree the way git and ripgrep see it.

Ignore rules come from ``.gitignore`` and ``.ignore`` files at every level (a pattern
in ``sub/.gitignore`` is matched against paths relative to ``sub/``), from the
repository's ``.git/info/exclude``, and - when the walk starts below a repository's
top - from the ignore files of the folders between the two. Matching is
``pathspec.GitIgnoreSpec`` (git's own semantics, negation included); precedence is
git's and ripgrep's: a deeper file beats a shallower one, ``.ignore`` beats
``.gitignore`` in the same folder, ``info/exclude`` comes last. ``.git`` is always
skipped, ignored folders are not entered, symbolic links are listed but not followed.
``.gitignore`` files are honoured in any tree, inside a git repository or not.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pathspec

IGNORE_FILES = (".ignore", ".gitignore")
"""Per-folder ignore files, highest precedence first."""

Source = tuple[pathspec.GitIgnoreSpec, str]
"""A compiled ignore file and the path from its folder to the folder being walked
(``""`` or ending in ``/``)."""

DIR, FILE, LINK = "dir", "file", "link"


@dataclass(slots=True)
class Entry:
    rel: str
    """Path relative to the walk's root, ``/``-separated (no trailing ``/``)."""
    path: str
    """Absolute path."""
    name: str
    kind: str
    """DIR, FILE or LINK (a symbolic link, never followed)."""


def load_spec(path: str) -> pathspec.GitIgnoreSpec | None:
    """The compiled ignore file at ``path``, or None if it is missing or empty."""
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return None
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return pathspec.GitIgnoreSpec.from_lines(lines) if lines else None


def is_ignored(sources: tuple[Source, ...], name: str, is_dir: bool) -> bool:
    for spec, prefix in sources:
        verdict = spec.check_file(prefix + name + "/" if is_dir else prefix + name).include
        if verdict is not None:
            return verdict
    return False


def _repo_top(start: str) -> str | None:
    current = start
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def parent_sources(root: str) -> tuple[Source, ...]:
    """Ignore rules that apply to ``root`` from the folders above it, up to the top of
    its git repository (none outside a repository). An explicitly given ``root`` that
    those rules ignore is searched anyway, as ripgrep does."""
    top = _repo_top(root)
    if top is None:
        return ()
    sources: list[Source] = []
    exclude = load_spec(os.path.join(top, ".git", "info", "exclude"))
    if exclude is not None:
        sources.append((exclude, _prefix(top, root)))
    folder = top
    parts = [] if root == top else os.path.relpath(root, top).split(os.sep)
    for part in parts:
        for name in reversed(IGNORE_FILES):
            spec = load_spec(os.path.join(folder, name))
            if spec is not None:
                sources.append((spec, _prefix(folder, root)))
        folder = os.path.join(folder, part)
    sources.reverse()
    if parts:
        here = os.path.basename(root)
        above = tuple((spec, prefix[: -len(here) - 1]) for spec, prefix in sources)
        if is_ignored(above, here, True):
            return ()
    return tuple(sources)


def _prefix(folder: str, root: str) -> str:
    rel = os.path.relpath(root, folder)
    return "" if rel == "." else rel.replace(os.sep, "/") + "/"


def walk(
    root: str, stop: threading.Event | None = None, *, use_ignore: bool = True
) -> Iterator[Entry]:
    """Every entry under ``root`` that the ignore rules keep, directory entries sorted
    by name, depth first (a folder's contents follow it directly)."""
    sources = parent_sources(root) if use_ignore else ()
    yield from _walk(root, "", sources, stop, use_ignore)


def _walk(
    folder: str,
    rel: str,
    sources: tuple[Source, ...],
    stop: threading.Event | None,
    use_ignore: bool,
) -> Iterator[Entry]:
    if stop is not None and stop.is_set():
        return
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    if use_ignore:
        names = {e.name for e in entries}
        own = []
        for name in IGNORE_FILES:
            if name in names:
                spec = load_spec(os.path.join(folder, name))
                if spec is not None:
                    own.append((spec, ""))
        if own:
            sources = (*own, *sources)
    for entry in entries:
        name = entry.name
        if name == ".git":
            continue
        try:
            if entry.is_symlink():
                kind = LINK
            elif entry.is_dir():
                kind = DIR
            else:
                kind = FILE
        except OSError:
            continue
        if sources and is_ignored(sources, name, kind == DIR):
            continue
        child_rel = rel + name
        yield Entry(child_rel, entry.path, name, kind)
        if kind == DIR:
            prefix = name + "/"
            below = tuple((spec, p + prefix) for spec, p in sources)
            yield from _walk(entry.path, child_rel + "/", below, stop, use_ignore)
