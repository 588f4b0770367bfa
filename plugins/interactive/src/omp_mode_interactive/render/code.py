"""Code blocks: Pygments' terminal formatter straight to ANSI, lines folded to the width.

rich's Syntax costs about three times as much per line (it builds a styled Text and
wraps it segment by segment), which an open code block redrawn at the frame rate
would pay on every frame.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from omp_mode_interactive.render.theme import RESET, Theme
from omp_mode_interactive.render.width import text_width

_SGR_SPLIT = re.compile(r"(\x1b\[[0-9;]*m)")
_RESETS = {"\x1b[0m", "\x1b[00m", "\x1b[39m", "\x1b[39;49m", "\x1b[m"}


@cache
def _lexer(name: str) -> Any:
    from pygments.lexers import get_lexer_by_name
    from pygments.lexers.special import TextLexer
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(name or "text", stripnl=False, ensurenl=False)
    except ClassNotFound:
        return TextLexer()


@cache
def _formatter(style: str, color_system: str) -> Any:
    from pygments.formatters import Terminal256Formatter, TerminalTrueColorFormatter
    from pygments.util import ClassNotFound

    kind = TerminalTrueColorFormatter if color_system == "truecolor" else Terminal256Formatter
    try:
        return kind(style=style)
    except ClassNotFound:
        return kind()


def highlight(code: str, lexer: str, theme: Theme, width: int) -> str:
    """``code`` highlighted in the theme's code colours, each line folded at ``width``."""
    code = code.rstrip("\n")
    if theme.colored and lexer not in ("", "text", "plain", "txt"):
        from pygments import highlight as pygments_highlight

        formatter = _formatter(theme.code_theme, theme.color_system or "256")
        painted = pygments_highlight(code, _lexer(lexer), formatter).rstrip("\n")
        lines = painted.split("\n")
    else:
        lines = code.split("\n")
    return "\n".join(piece for line in lines for piece in fold(line, width))


def fold(line: str, width: int) -> list[str]:
    """A line (which may hold SGR codes) cut into pieces of at most ``width`` cells; the
    colour in force at a cut starts the next piece again."""
    plain = _SGR_SPLIT.sub("", line) if "\x1b" in line else line
    if text_width(plain) <= width:
        return [line]
    if plain is line and line.isascii():
        return [line[i : i + width] for i in range(0, len(line), width)]
    from rich.cells import get_character_cell_size

    pieces: list[str] = []
    current: list[str] = []
    active: list[str] = []
    used = 0
    for part in _SGR_SPLIT.split(line):
        if part.startswith("\x1b["):
            current.append(part)
            active = [] if part in _RESETS else [*active, part]
            continue
        for char in part:
            size = get_character_cell_size(char)
            if used + size > width and used:
                pieces.append("".join(current) + RESET)
                current, used = list(active), 0
            current.append(char)
            used += size
    pieces.append("".join(current))
    return pieces
