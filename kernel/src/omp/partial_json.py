"""Tool-call arguments from JSON that is still streaming in.

Providers send arguments in fragments and the UI wants the arguments so far after each
one. Rescanning the whole buffer per fragment is quadratic (a 50 KB ``write`` arrives in
thousands of fragments), so the bracket and string state is kept incrementally and each
fragment costs time in its own length, plus one C-speed ``json.loads``.
"""

from __future__ import annotations

import json
from typing import Any


class PartialJson:
    def __init__(self) -> None:
        self._parts: list[str] = []
        self._text: str | None = ""
        self._stack: list[str] = []
        self._in_string = False
        self._escaped = False
        self._safe: tuple[int, tuple[str, ...]] | None = None
        """The last place a value can end (after ``{``, ``[`` or ``,`` outside strings)
        with the brackets open there."""
        self._length = 0
        self._complete_at: int | None = None
        """Where the top-level value closed; anything after it is not arguments."""
        self._parsed_length = -1
        self._parsed: dict[str, Any] = {}

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "".join(self._parts)
            self._parts = [self._text]
        return self._text

    def feed(self, fragment: str) -> None:
        stack, in_string, escaped = self._stack, self._in_string, self._escaped
        offset = self._length
        for index, ch in enumerate(fragment):
            if in_string:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
            elif ch == "{" or ch == "[":
                stack.append("}" if ch == "{" else "]")
                self._safe = (offset + index + 1, tuple(stack))
            elif ch == "}" or ch == "]":
                if stack:
                    stack.pop()
                    if not stack and self._complete_at is None:
                        self._complete_at = offset + index + 1
            elif ch == ",":
                self._safe = (offset + index, tuple(stack))
        self._in_string, self._escaped = in_string, escaped
        self._parts.append(fragment)
        self._text = None
        self._length += len(fragment)

    def value(self, final: bool = False) -> dict[str, Any]:
        """The arguments so far: the whole text if it parses, else the text with open
        strings and brackets closed, else up to the last place a value ended; ``{}``.

        Between fragments the text is reparsed only once it has grown by an eighth
        (at least 256 characters), so a long argument costs linear time overall; the
        final call always parses everything.
        """
        grown = self._length - self._parsed_length
        if not final and self._parsed_length >= 0 and grown < max(256, self._parsed_length // 8):
            return self._parsed
        self._parsed_length = self._length
        self._parsed = self._parse()
        return self._parsed

    def _parse(self) -> dict[str, Any]:
        text = self.text
        if not text.strip():
            return {}
        closing = ('"' if self._in_string else "") + "".join(reversed(self._stack))
        complete = text[: self._complete_at] if self._complete_at else None
        for candidate in (text, complete, text + closing, self._cut()):
            if candidate is None:
                continue
            try:
                value = json.loads(candidate)
            except ValueError:
                continue
            return value if isinstance(value, dict) else {}
        return {}

    def _cut(self) -> str | None:
        if self._safe is None:
            return None
        end, stack = self._safe
        return self.text[:end] + "".join(reversed(stack))


def parse_partial_json(text: str) -> dict[str, Any]:
    """Arguments from possibly incomplete JSON, in one go."""
    parser = PartialJson()
    parser.feed(text)
    return parser.value(final=True)
