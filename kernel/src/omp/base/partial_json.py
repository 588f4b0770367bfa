"""Tool-call arguments from JSON that is still streaming in.

Providers send arguments in fragments and the UI wants the arguments so far after each
one. Rescanning the whole buffer per fragment is quadratic (a 50 KB ``write`` arrives in
thousands of fragments), so the bracket and string state is kept incrementally and each
fragment costs time in its own length, plus one C-speed ``json.loads``.

The final arguments (``PartialJson.result``) are strict, because a tool call runs with
them: text whose object never closed was cut off (``CUT_OFF_TEXT``), and complete text
that is not a JSON object is an error. Three narrow repairs are made, and named in the
result: closing brackets repeated after the object are dropped (``{"a": 1}}``), raw
control characters such as a newline inside a string are accepted, and an object sent
as a JSON string (``"{\\"a\\": 1}"``) is decoded.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

CUT_OFF_TEXT = (
    "Tool call was cut off before its arguments were complete, so it was not run. "
    "Call the tool again with the complete arguments (split very long content over "
    "several calls)."
)
"""The result of every tool call whose arguments were not completely received."""
_AGAIN = "so it was not run. Call the tool again with the arguments as one JSON object."
EXTRA_CLOSERS = "dropped closing brackets repeated after the arguments object"
CONTROL_CHARACTERS = "accepted raw control characters (such as newlines) inside strings"
ENCODED_OBJECT = "decoded an arguments object that was sent as a JSON string"


class Arguments(NamedTuple):
    """A tool call's final arguments; ``error`` set means the call must not run."""

    value: dict[str, Any]
    error: str | None = None
    repair: str | None = None


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

    def result(self) -> Arguments:
        """The arguments a tool may run with, or why it may not (see the module doc)."""
        text = self.text
        if not text.strip():
            return Arguments({})
        body, repairs = text, []
        if self._complete_at is not None:
            tail = text[self._complete_at :]
            if tail.strip() and not tail.strip(" \t\r\n}]"):
                body = text[: self._complete_at]
                repairs.append(EXTRA_CLOSERS)
        try:
            value = json.loads(body)
        except ValueError as exc:
            try:
                value = json.loads(body, strict=False)
            except ValueError:
                return self._unusable(exc)
            repairs.append(CONTROL_CHARACTERS)
        if isinstance(value, str):
            try:
                inner = json.loads(value)
            except ValueError:
                inner = None
            if isinstance(inner, dict):
                value = inner
                repairs.append(ENCODED_OBJECT)
        if not isinstance(value, dict):
            kind = _KINDS.get(type(value), "a number")
            error = f"Tool call arguments must be a JSON object, not {kind}, {_AGAIN}"
            return Arguments({}, error)
        return Arguments(value, None, "; ".join(repairs) or None)

    def _unusable(self, exc: ValueError) -> Arguments:
        partial = self.value(final=True)
        if self._complete_at is None and (self._stack or self._in_string):
            return Arguments(partial, CUT_OFF_TEXT)
        return Arguments(partial, f"Tool call arguments are not valid JSON ({exc}), {_AGAIN}")

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


def with_repair(details: Any, repair: str) -> Any:
    """A tool result's details with the arguments repair reported (``argumentsRepair``);
    details that are not a dict (or None) are left as they are."""
    if details is None:
        return {"argumentsRepair": repair}
    if isinstance(details, dict):
        return {**details, "argumentsRepair": repair}
    return details


_KINDS = {list: "an array", str: "a string", bool: "true or false", type(None): "null"}


def parse_partial_json(text: str) -> dict[str, Any]:
    """Arguments from possibly incomplete JSON, in one go."""
    parser = PartialJson()
    parser.feed(text)
    return parser.value(final=True)
