"""Front matter of Markdown files (rules, skills, prompt templates, agent definitions).

The block between a first line ``---`` and the next ``---`` line holds ``key: value``
lines. This reads the part of YAML those files use - scalars, quoted strings,
``true``/``false``, inline ``[a, b]`` lists, ``- item`` block lists and ``>``/``|``
folded text - without a YAML dependency, and never fails: a line it does not
understand is skipped. Cursor writes ``globs: *.ts,*.tsx`` unquoted, which real YAML
rejects; here it is a plain string (``front_matter_list`` splits it).
"""

from __future__ import annotations

import re
from typing import Any

_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:(.*)$")
_FOLDED = {">", ">-", ">+", "|", "|-", "|+"}


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter's fields and the body after it (the whole text when there is
    no front matter)."""
    if not text.startswith("---"):
        return {}, text
    lines = text.splitlines(keepends=True)
    if lines[0].strip() != "---":
        return {}, text
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return _fields(lines[1:index]), "".join(lines[index + 1 :])
    return {}, text


def _fields(lines: list[str]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    index = 0
    while index < len(lines):
        match = _KEY.match(lines[index].rstrip("\r\n"))
        index += 1
        if not match:
            continue
        key, raw = match[1], match[2].strip()
        nested = []
        while index < len(lines) and (not lines[index].strip() or lines[index][:1] in " \t-"):
            if _KEY.match(lines[index]):
                break
            nested.append(lines[index].strip())
            index += 1
        fields[key] = _value(raw, nested)
    return fields


def _value(raw: str, nested: list[str]) -> Any:
    if raw in _FOLDED:
        joiner = "\n" if raw.startswith("|") else " "
        return joiner.join(line for line in nested if line).strip()
    if not raw and any(line.startswith("-") for line in nested):
        return [_scalar(line[1:].strip()) for line in nested if line.startswith("-")]
    if raw.startswith("[") and raw.endswith("]"):
        return [_scalar(part.strip()) for part in front_matter_list(raw[1:-1])]
    return _scalar(raw)


def _scalar(raw: str) -> Any:
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1]
    lowered = raw.lower()
    if lowered in ("true", "yes"):
        return True
    if lowered in ("false", "no"):
        return False
    if lowered in ("", "null", "~"):
        return None
    return raw


def front_matter_list(value: Any) -> list[str]:
    """A list of strings from a list, or from a comma-separated string (commas inside
    ``{...}`` belong to a brace pattern such as ``*.{ts,tsx}``)."""
    if value is None or isinstance(value, bool):
        return []
    if isinstance(value, list):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in str(value):
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        current.append(char)
    parts.append("".join(current))
    return [p.strip().strip("\"'") for p in parts if p.strip().strip("\"'")]


def front_matter_flag(value: Any) -> bool:
    """A front-matter flag: ``true`` (or the string ``"true"``)."""
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")
