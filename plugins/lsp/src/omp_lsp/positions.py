"""Positions as the model gives them, and paths and lines as the model reads them.

The model names a place by a 1-based ``line`` and either a 1-based ``column`` or a
``symbol`` found on that line (``name#N`` for its Nth occurrence), as omp's lsp tool.
LSP counts characters in UTF-16 code units (``omp_lsp.uris`` converts).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from omp_lsp.uris import uri_to_path, utf16_col

_IDENTIFIER = re.compile(r"^[$A-Za-z_][\w$]*$")
_IDENTIFIER_CHAR = re.compile(r"[\w$]")
_SPEC = re.compile(r"^(.+)#(\d+)$")


class PositionError(ValueError):
    """A position the model gave cannot be found (one line, for the model to read)."""


def file_of(uri: str) -> str:
    """The path a ``file://`` URI names, as a str."""
    return str(uri_to_path(uri))


def relative(path: str, cwd: str) -> str:
    """``path`` relative to the workspace when it is inside it, else as given."""
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def read_lines(path: str) -> list[str]:
    """The file's lines without their endings; [] when it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def _matches(line: str, symbol: str, fold: bool) -> list[int]:
    haystack, needle = (line.lower(), symbol.lower()) if fold else (line, symbol)
    bounded = bool(_IDENTIFIER.match(symbol))
    found: list[int] = []
    start = haystack.find(needle)
    while start != -1:
        end = start + len(needle)
        before = haystack[start - 1] if start else ""
        after = haystack[end] if end < len(haystack) else ""
        if bounded and (_IDENTIFIER_CHAR.match(before) or _IDENTIFIER_CHAR.match(after)):
            start = haystack.find(needle, start + 1)
            continue
        found.append(start)
        start = haystack.find(needle, end)
    return found


def symbol_index(line: str, spec: str, line_number: int) -> int:
    """The code point index of ``spec`` (``name`` or ``name#N``) on ``line``."""
    match = _SPEC.match(spec)
    symbol, occurrence = (match.group(1), max(1, int(match.group(2)))) if match else (spec, 1)
    found = _matches(line, symbol, fold=False) or _matches(line, symbol, fold=True)
    if not found:
        raise PositionError(f'Symbol "{symbol}" not found on line {line_number}')
    if occurrence > len(found):
        raise PositionError(
            f'Symbol "{symbol}" occurrence {occurrence} is out of bounds on line '
            f"{line_number} (found {len(found)})"
        )
    return found[occurrence - 1]


def resolve_position(
    path: str, line: int | None, column: int | None = None, symbol: str | None = None
) -> dict[str, int]:
    """The LSP position (0-based, UTF-16) of a place the model named in ``path``.

    ``symbol`` wins over ``column``; with neither, the line's first non-blank character.
    """
    lines = read_lines(path)
    if not lines and not Path(path).is_file():
        raise PositionError(f"File not found: {path}")
    number = max(1, line or 1)
    if number > max(1, len(lines)):
        raise PositionError(f"Line {number} is past the end of the file ({len(lines)} lines)")
    text = lines[number - 1] if lines else ""
    if symbol:
        index = symbol_index(text, symbol, number)
    elif column is not None:
        index = min(max(0, column - 1), len(text))
    else:
        index = len(text) - len(text.lstrip())
    return {"line": number - 1, "character": utf16_col(text, index)}


def location_of(item: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(uri, range) of a Location or LocationLink; None for anything else."""
    if "uri" in item and "range" in item:
        return item["uri"], item["range"]
    if "targetUri" in item:
        return item["targetUri"], item.get("targetSelectionRange") or item["targetRange"]
    return None


def locations(result: Any) -> list[tuple[str, dict[str, Any]]]:
    """A definition-style result (one, many, links or null) as (uri, range) pairs."""
    if not result:
        return []
    items = result if isinstance(result, list) else [result]
    found = [location_of(item) for item in items if isinstance(item, dict)]
    return [loc for loc in found if loc is not None]
