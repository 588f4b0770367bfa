"""Per-session thinking state, and how it is rebuilt from the session file.

Nothing lives in a process-wide list: each session's state is derived from its own
entries (threshold changes and prompt boundaries are ``custom`` entries of type
``sequential-thinking``; thoughts are the sequential_thinking tool results), so a
resumed or branched session picks up exactly where its branch left off.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from omp_sequential_thinking.names import ENTRY_TYPE, NUDGE_PREFIX, TOOL_NAME


@dataclass
class Thought:
    number: int
    total: int
    text: str
    revises: int | None = None
    branch_from: int | None = None
    branch_id: str | None = None

    @classmethod
    def from_details(cls, details: dict[str, Any]) -> Thought:
        return cls(
            int(details["thoughtNumber"]),
            int(details["totalThoughts"]),
            str(details["thought"]),
            details.get("revisesThought"),
            details.get("branchFromThought"),
            details.get("branchId"),
        )


@dataclass
class ThinkingState:
    """What enforcement needs for the prompt in flight."""

    threshold: int = 0
    recorded: int = 0
    nudges: int = 0
    max_history: int = 64
    history: deque[Thought] = field(default_factory=deque)
    numbers: set[int] = field(default_factory=set)

    @property
    def enforcing(self) -> bool:
        return self.threshold > 0 and self.recorded < self.threshold

    def new_prompt(self) -> None:
        self.recorded = 0
        self.nudges = 0
        self.history.clear()
        self.numbers.clear()

    def set_threshold(self, value: int) -> None:
        self.threshold = max(0, value)
        self.new_prompt()

    def record(self, thought: Thought) -> None:
        self.recorded += 1
        self.numbers.add(thought.number)
        self.history.append(thought)
        while len(self.history) > self.max_history:
            self.history.popleft()


def rebuild(entries: list[dict[str, Any]], state: ThinkingState) -> ThinkingState:
    """Replay a branch's entries (root to leaf) into ``state``."""
    for entry in entries:
        kind = entry.get("type")
        if kind == "custom" and entry.get("customType") == ENTRY_TYPE:
            data = entry.get("data") or {}
            if data.get("kind") == "prompt":
                state.new_prompt()
            elif data.get("kind") == "threshold":
                state.set_threshold(int(data.get("value", 0)))
        elif kind == "message":
            _replay_message(entry.get("message") or {}, state)
    return state


def _replay_message(message: dict[str, Any], state: ThinkingState) -> None:
    role = message.get("role")
    if role == "toolResult" and message.get("toolName") == TOOL_NAME:
        details = message.get("details")
        if not message.get("isError") and isinstance(details, dict):
            try:
                state.record(Thought.from_details(details))
            except (KeyError, TypeError, ValueError):
                return
    elif role == "user":
        content = message.get("content")
        if isinstance(content, str) and content.startswith(NUDGE_PREFIX):
            state.nudges += 1
