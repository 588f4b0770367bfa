"""The script format: one JSON object per line, each the model's reply to one request.

A step may have ``thinking``, ``text``, ``tool_calls`` ([{"name", "arguments", "id"?}]),
``stop_reason`` ("stop" | "length"), ``error`` (the request fails with this message),
``delay`` (seconds to wait before replying; abortable) and ``usage``
({"input", "output"}). A step ``{"choose": [alternative, ...]}`` picks the first
alternative that matches the messages since the model's last reply: ``when`` (a text, or
a list of texts of which one must occur), ``unless`` (none may occur) and
``after_tool`` (a result of that tool is among them); an alternative with none of these
always matches. Blank lines and lines starting with ``#`` are ignored. The reply to a
request is the step whose number equals the count of assistant messages already in the
conversation. Lines with ``"repeat": true`` close the script: every later request is
answered by the first of them that matches, so such a script never runs out.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omp import OmpError

STEP_KEYS = {
    "thinking",
    "text",
    "tool_calls",
    "stop_reason",
    "error",
    "delay",
    "usage",
    "when",
    "unless",
    "after_tool",
}


@dataclass
class ScriptCall:
    name: str
    arguments: dict[str, Any]
    id: str | None = None


@dataclass
class Step:
    line: int
    thinking: str = ""
    text: str = ""
    tool_calls: list[ScriptCall] = field(default_factory=list)
    stop_reason: str | None = None
    error: str | None = None
    delay: float = 0.0
    usage: dict[str, int] = field(default_factory=dict)
    when: tuple[str, ...] | None = None
    unless: tuple[str, ...] | None = None
    after_tool: str | None = None

    def matches(self, recent: str | None, tools: Collection[str] = ()) -> bool:
        """``recent``: the text of the messages since the model's last reply; ``tools``:
        the tools whose results are among them."""
        if self.after_tool is not None and self.after_tool not in tools:
            return False
        if self.when is not None and (recent is None or not _any_in(self.when, recent)):
            return False
        return not (self.unless is not None and recent and _any_in(self.unless, recent))


def _any_in(needles: tuple[str, ...], text: str) -> bool:
    return any(needle in text for needle in needles)


@dataclass
class Script:
    path: Path
    steps: list[list[Step]]
    repeated: list[Step] = field(default_factory=list)
    """The ``"repeat": true`` lines, which answer every request after ``steps``."""

    def choose(self, index: int, recent: str | None, tools: Collection[str] = ()) -> Step | None:
        options = self.steps[index] if index < len(self.steps) else self.repeated
        return next((s for s in options if s.matches(recent, tools)), None)


def _fail(path: Path, line: int, message: str) -> OmpError:
    return OmpError(f"malformed script {path}:{line}: {message}")


def _step(path: Path, line: int, data: Any) -> Step:
    if not isinstance(data, dict):
        raise _fail(path, line, "a step must be a JSON object")
    unknown = sorted(set(data) - STEP_KEYS)
    if unknown:
        raise _fail(
            path,
            line,
            f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(STEP_KEYS))}",
        )
    for key in ("thinking", "text", "error", "after_tool"):
        if key in data and not isinstance(data[key], str):
            raise _fail(path, line, f"{key!r} must be a string")
    conditions = {key: _texts(path, line, key, data.get(key)) for key in ("when", "unless")}
    if data.get("stop_reason", "stop") not in ("stop", "length"):
        raise _fail(path, line, '\'stop_reason\' must be "stop" or "length"')
    delay = data.get("delay", 0)
    if not isinstance(delay, int | float) or delay < 0:
        raise _fail(path, line, "'delay' must be a number of seconds >= 0")
    calls = data.get("tool_calls", [])
    if not isinstance(calls, list):
        raise _fail(path, line, "'tool_calls' must be a list")
    parsed_calls = []
    for call in calls:
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise _fail(path, line, "each tool call needs a string 'name'")
        arguments = call.get("arguments", {})
        if not isinstance(arguments, dict):
            raise _fail(path, line, f"arguments of {call['name']} must be an object")
        parsed_calls.append(ScriptCall(call["name"], arguments, call.get("id")))
    usage = data.get("usage", {})
    if not isinstance(usage, dict):
        raise _fail(path, line, "'usage' must be an object")
    return Step(
        line,
        data.get("thinking", ""),
        data.get("text", ""),
        parsed_calls,
        data.get("stop_reason"),
        data.get("error"),
        float(delay),
        usage,
        conditions["when"],
        conditions["unless"],
        data.get("after_tool"),
    )


def _texts(path: Path, line: int, key: str, value: Any) -> tuple[str, ...] | None:
    """``when`` / ``unless``: a text, or a non-empty list of texts."""
    if value is None:
        return None
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise _fail(path, line, f"{key!r} must be a string or a non-empty list of strings")


def load_script(path: Path) -> Script:
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise OmpError(f"script file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise OmpError(f"cannot read script {path}: {exc}") from None
    steps: list[list[Step]] = []
    repeated: list[Step] = []
    for number, text in enumerate(raw.splitlines(), start=1):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise _fail(path, number, f"column {exc.colno}: {exc.msg}") from None
        repeat = False
        if isinstance(data, dict) and "repeat" in data:
            data = dict(data)
            repeat = data.pop("repeat")
            if not isinstance(repeat, bool):
                raise _fail(path, number, "'repeat' must be true or false")
        if isinstance(data, dict) and "choose" in data:
            options = data["choose"]
            if set(data) != {"choose"} or not isinstance(options, list) or not options:
                raise _fail(
                    path, number, "'choose' takes a non-empty list and no other key but 'repeat'"
                )
            parsed = [_step(path, number, option) for option in options]
        else:
            parsed = [_step(path, number, data)]
        if repeat:
            repeated += parsed
        elif repeated:
            raise _fail(path, number, 'a step without "repeat" cannot follow the repeated ones')
        else:
            steps.append(parsed)
    if not steps and not repeated:
        raise OmpError(f"script {path} has no steps")
    return Script(path, steps, repeated)
