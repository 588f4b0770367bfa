"""The todo list as it lives in the session: in the details of the last successful
``todo_write`` result on the branch. Cheap to import (no pydantic)."""

from __future__ import annotations

from typing import Any

TOOL_NAME = "todo_write"
MARKS = {"completed": "[x]", "in_progress": "[>]", "pending": "[ ]"}


def current_todos(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The todo list of a branch (``ctx.session.branch_entries()``): the ``todos`` of the
    last successful todo_write result, or [] when the model never wrote one."""
    for entry in reversed(entries):
        if entry.get("type") != "message":
            continue
        message = entry.get("message")
        if not isinstance(message, dict) or message.get("role") != "toolResult":
            continue
        if message.get("toolName") != TOOL_NAME or message.get("isError"):
            continue
        details = message.get("details")
        todos = details.get("todos") if isinstance(details, dict) else None
        if isinstance(todos, list):
            return [dict(t) for t in todos if isinstance(t, dict) and "content" in t]
    return []


def render(todos: list[dict[str, Any]]) -> str:
    """The list as the model and the user see it: counts, then one line per item."""
    if not todos:
        return "Todo list is empty."
    done = sum(1 for t in todos if t.get("status") == "completed")
    active = sum(1 for t in todos if t.get("status") == "in_progress")
    pending = len(todos) - done - active
    lines = [f"Todos: {done}/{len(todos)} completed, {active} in progress, {pending} pending"]
    for todo in todos:
        lines.append(f"{MARKS.get(todo.get('status', ''), '[?]')} {todo.get('content', '')}")
    return "\n".join(lines)
