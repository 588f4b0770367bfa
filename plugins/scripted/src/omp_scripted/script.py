"""The script format: one JSON object per line, each the model's reply to one request.

A step may have ``thinking``, ``text``, ``tool_calls`` ([{"name", "arguments", "id"?}]),
``stop_reason`` ("stop" | "length"), ``error`` (the request fails with this message),
``delay`` (seconds to wait before replying; abortable) and ``usage``
({"input", "output"}). A step ``{"choose": [alternative, ...]}`` picks the first
alternative whose ``when`` text occurs in the last tool result (``unless`` for the
opposite); an alternative with neither always matches. Blank lines and lines starting
with ``#`` are ignored. The reply to a request is the step whose number equals the
count of assistant messages already in the conversation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omp.errors import OmpError

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
    when: str | None = None
    unless: str | None = None

    def matches(self, last_result: str | None) -> bool:
        if self.when is not None and (last_result is None or self.when not in last_result):
            return False
        return not (self.unless is not None and last_result and self.unless in last_result)


@dataclass
class Script:
    path: Path
    steps: list[list[Step]]

    def choose(self, index: int, last_result: str | None) -> Step | None:
        if index >= len(self.steps):
            return None
        return next((s for s in self.steps[index] if s.matches(last_result)), None)


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
    for key in ("thinking", "text", "error", "when", "unless"):
        if key in data and not isinstance(data[key], str):
            raise _fail(path, line, f"{key!r} must be a string")
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
        data.get("when"),
        data.get("unless"),
    )


def load_script(path: Path) -> Script:
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise OmpError(f"script file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise OmpError(f"cannot read script {path}: {exc}") from None
    steps: list[list[Step]] = []
    for number, text in enumerate(raw.splitlines(), start=1):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise _fail(path, number, f"column {exc.colno}: {exc.msg}") from None
        if isinstance(data, dict) and "choose" in data:
            options = data["choose"]
            if set(data) != {"choose"} or not isinstance(options, list) or not options:
                raise _fail(path, number, "'choose' must be the only key, with a non-empty list")
            steps.append([_step(path, number, option) for option in options])
        else:
            steps.append([_step(path, number, data)])
    if not steps:
        raise OmpError(f"script {path} has no steps")
    return Script(path, steps)
