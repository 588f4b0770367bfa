"""Suggestions for a path that does not exist ("did you mean"): the workspace's files
and folders (ignore rules applied) ranked by the fuzzy matcher against what was written.
When the whole path matches nothing, its leading segments are dropped one at a time (a
typo in a folder name still finds the file)."""

from __future__ import annotations

from omp_natives import load

SUGGESTIONS = 3


def candidates(cwd: str) -> list[str]:
    """The workspace's files and their folders (``dir/``), relative to ``cwd``."""
    files = load().workspace_files(cwd)
    folders: set[str] = set()
    for path in files:
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folders.add("/".join(parts[:depth]) + "/")
    return [*files, *sorted(folders)]


def closest_paths(path: str, cwd: str, limit: int = SUGGESTIONS) -> list[str]:
    """Up to ``limit`` existing paths close to ``path``, best first; [] if none is."""
    query = path.strip()
    while query.startswith("./"):
        query = query[2:]
    segments = [s for s in query.strip("/").split("/") if s]
    if not segments:
        return []
    native = load()
    index = native.FuzzyIndex(candidates(cwd))
    for start in range(len(segments)):
        ranked = index.rank("/".join(segments[start:]), limit)
        if ranked:
            return [found for found, _score in ranked]
    return []
