"""The todo list as it lives in the session: in the details of the last successful
``todo_write`` result on the branch. Cheap to import (no pydantic)."""

from __future__ import annotations

from typing import Any

TOOL_NAME = "todo_write"
MARKS = {"completed": "[x]", "in_progress": "[>]", "pending": "[ ]"}


HOST_ENTRY = "todos"
"""customType of the ``custom`` entry a host's list is kept in (RPC ``set_todos``):
``{"phases": [{"name", "tasks": [{"content", "status", "blocker"?}]}]}``."""
STATUSES = tuple(MARKS)
MODEL_PHASE = "Todos"


def _latest(entries: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """``("host", phases)`` or ``("model", todos)``: the newer of a host's list and the
    model's last successful todo_write on the branch; ``("model", [])`` for neither."""
    for entry in reversed(entries):
        kind = entry.get("type")
        if kind == "custom" and entry.get("customType") == HOST_ENTRY:
            data = entry.get("data")
            phases = data.get("phases") if isinstance(data, dict) else None
            if isinstance(phases, list):
                return "host", [dict(p) for p in phases if isinstance(p, dict)]
            continue
        if kind != "message":
            continue
        message = entry.get("message")
        if not isinstance(message, dict) or message.get("role") != "toolResult":
            continue
        if message.get("toolName") != TOOL_NAME or message.get("isError"):
            continue
        details = message.get("details")
        todos = details.get("todos") if isinstance(details, dict) else None
        if isinstance(todos, list):
            return "model", [dict(t) for t in todos if isinstance(t, dict) and "content" in t]
    return "model", []


def current_phases(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The todo list of a branch (``ctx.session.branch_entries()``) as omp's phases: a
    host's list as it was set, the model's as one phase, ``Todos``; [] for none."""
    source, items = _latest(entries)
    if source == "host":
        return items
    tasks = [{"content": t["content"], "status": t.get("status", "pending")} for t in items]
    return [{"name": MODEL_PHASE, "tasks": tasks}] if tasks else []


def current_todos(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The todo list of a branch as one list of items: the model's last successful
    todo_write (as written), or every task of a host's phases in order."""
    source, items = _latest(entries)
    if source == "host":
        return [task for phase in items for task in phase.get("tasks", [])]
    return items


def checked_phases(phases: Any) -> list[dict[str, Any]]:
    """``phases`` as a host sent them, checked: a list of ``{name, tasks}`` whose tasks
    have a ``content`` string and a known ``status`` (optional ``blocker``). Raises
    ValueError with a one-line reason."""
    if not isinstance(phases, list):
        raise ValueError("phases must be a list of {name, tasks}")
    checked = []
    for i, phase in enumerate(phases):
        if not isinstance(phase, dict) or not isinstance(phase.get("name"), str):
            raise ValueError(f"phases[{i}] needs a name (a string) and tasks")
        tasks = phase.get("tasks", [])
        if not isinstance(tasks, list):
            raise ValueError(f"phases[{i}].tasks must be a list")
        kept = []
        for j, task in enumerate(tasks):
            where = f"phases[{i}].tasks[{j}]"
            if not isinstance(task, dict) or not isinstance(task.get("content"), str):
                raise ValueError(f"{where} needs content (a string)")
            status = task.get("status", "pending")
            if status not in STATUSES:
                raise ValueError(f"{where}.status {status!r} is not one of {', '.join(STATUSES)}")
            item = {"content": task["content"], "status": status}
            if isinstance(task.get("blocker"), str):
                item["blocker"] = task["blocker"]
            kept.append(item)
        checked.append({"name": phase["name"], "tasks": kept})
    return checked


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
