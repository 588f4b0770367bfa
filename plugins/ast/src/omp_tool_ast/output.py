"""Results grouped by file as omp writes them: ``# dir/`` then ``## name`` headers (a
file in the cwd's own folder is a ``# name`` header), a blank line between groups."""

from __future__ import annotations

import posixpath
from collections.abc import Callable

from omp_tool_ast.engine import Match


def grouped(files: list[str], body: Callable[[str], list[str]]) -> list[str]:
    """Every file of ``files`` (shown paths, sorted) under its header, its lines after."""
    lines: list[str] = []
    folder: str | None = None
    for name in files:
        parent, base = posixpath.split(name)
        if parent:
            if parent != folder:
                lines += [""] if lines else []
                lines.append(f"# {parent}/")
            lines.append(f"## {base}")
        else:
            lines += [""] if lines else []
            lines.append(f"# {base}")
        folder = parent or None
        lines += body(name)
    return lines


def match_lines(match: Match) -> list[str]:
    """``*LINE|text`` for the match's first line, `` LINE|text`` for the rest, then its
    captures (``  meta: A=x, B=y``) when it has any."""
    lines = [
        f"{'*' if i == 0 else ' '}{match.line + i}|{text}"
        for i, text in enumerate(match.text.split("\n"))
    ]
    if match.meta:
        lines.append("  meta: " + ", ".join(f"{k}={v}" for k, v in sorted(match.meta.items())))
    return lines


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 'es' if word.endswith('ch') else 's'}"
