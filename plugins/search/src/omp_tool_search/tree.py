"""The workspace tree of the pure-Python backend: a depth-limited listing of the
ignore-aware walk with per-folder file counts (``ls`` with ``depth``). The natives
backend gives the same lines (natives/tests/test_parity.py)."""

from __future__ import annotations

import threading
from collections import Counter

from omp_tool_search.answers import TreeAnswer
from omp_tool_search.walk import DIR, LINK, walk

INDENT = "  "


def tree(
    root: str, max_depth: int, max_entries: int, stop: threading.Event | None = None
) -> TreeAnswer:
    """The lines of the tree under ``root`` (see ``TreeAnswer``)."""
    entries = list(walk(root, stop))
    files_below: Counter[str] = Counter()
    for entry in entries:
        if entry.kind == DIR:
            continue
        parts = entry.rel.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            files_below["/".join(parts[:depth])] += 1
    lines: list[str] = []
    total = 0
    for entry in entries:
        depth = entry.rel.count("/") + 1
        if depth > max_depth:
            continue
        total += 1
        if len(lines) >= max_entries:
            continue
        indent = INDENT * (depth - 1)
        if entry.kind == DIR:
            count = files_below[entry.rel]
            lines.append(f"{indent}{entry.name}/ ({count} {'file' if count == 1 else 'files'})")
        elif entry.kind == LINK:
            lines.append(f"{indent}{entry.name}@")
        else:
            lines.append(indent + entry.name)
    return TreeAnswer(root=root, lines=lines, total=total)
