"""Display width of terminal text: the natives' unicode-width when it is built, else
rich's cell table (wide CJK and emoji take two cells, combining marks none)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

ELLIPSIS = "…"
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


@cache
def _natives() -> tuple[Callable[[str], int], Callable[[str, int, str], str]] | None:
    try:
        import omp_natives

        native = omp_natives.load()
    except ImportError:
        return None
    return native.text_width, native.truncate_to_width


def text_width(text: str) -> int:
    """Cells ``text`` takes in a terminal (no escape codes in it)."""
    if text.isascii():
        return len(text)
    natives = _natives()
    if natives is not None:
        return natives[0](text)
    from rich.cells import cell_len

    return cell_len(text)


def truncate(text: str, width: int, ellipsis: str = ELLIPSIS) -> str:
    """``text`` cut to at most ``width`` cells, ending in ``ellipsis`` when cut."""
    if width <= 0:
        return ""
    if text.isascii() and ellipsis.isascii():
        return text if len(text) <= width else text[: max(0, width - len(ellipsis))] + ellipsis
    natives = _natives()
    if natives is not None:
        return natives[1](text, width, ellipsis)
    return _truncate_python(text, width, ellipsis)


def _truncate_python(text: str, width: int, ellipsis: str) -> str:
    from rich.cells import get_character_cell_size

    if text_width(text) <= width:
        return text
    room = width - text_width(ellipsis)
    used, out = 0, []
    for char in text:
        size = get_character_cell_size(char)
        if used + size > room:
            break
        used += size
        out.append(char)
    return "".join(out) + (ellipsis if text_width(ellipsis) <= width else "")


def wrap(text: str, width: int) -> list[str]:
    """One line of ``text`` folded into lines of at most ``width`` cells, between words
    where it can (a word longer than a line is cut)."""
    if width <= 0 or text_width(text) <= width:
        return [text]
    lines: list[str] = []
    line, used = "", 0
    for word in re.split(r"(?<= )", text):
        size = text_width(word)
        if line and used + text_width(word.rstrip(" ")) > width:
            lines.append(line.rstrip(" ") or line)
            line, used = "", 0
        while size > width:
            head = truncate(word, width, "")
            lines.append(head)
            word = word[len(head) :]
            size = text_width(word)
        line += word
        used += size
    if line.strip(" ") or not lines:
        lines.append(line.rstrip(" ") or line)
    return lines


def strip_ansi(text: str) -> str:
    """``text`` without escape sequences (SGR colours, OSC hyperlinks)."""
    return _ANSI.sub("", text)


def expand_tabs(text: str) -> str:
    return text.expandtabs(4) if "\t" in text else text


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def sanitize(text: str) -> str:
    """Program output made safe to print: escape sequences and control characters
    (carriage returns, bells, backspaces) removed, tabs expanded."""
    if "\x1b" in text:
        text = strip_ansi(text)
    if "\r" in text:
        text = "\n".join(_overwritten(line) for line in text.replace("\r\n", "\n").split("\n"))
    return expand_tabs(_CONTROL.sub("", text))


def _overwritten(line: str) -> str:
    """What a terminal shows of a line redrawn with carriage returns (a progress bar):
    the last redraw, over what it did not cover of the earlier ones."""
    if "\r" not in line:
        return line
    shown = ""
    for part in line.split("\r"):
        shown = part + shown[len(part) :]
    return shown
