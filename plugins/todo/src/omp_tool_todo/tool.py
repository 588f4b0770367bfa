"""The ``todo_write`` tool: the model replaces its whole todo list on every call."""

from __future__ import annotations

from typing import Any, Literal

from omp import Tool, ToolResult
from pydantic import BaseModel, Field

from omp_tool_todo.state import TOOL_NAME, render


class TodoItem(BaseModel):
    id: str | None = Field(default=None, description="Stable id of the item (optional).")
    content: str = Field(min_length=1, description='The task, imperative: "Run the tests".')
    activeForm: str | None = Field(  # pi's parameter name, camelCase on purpose
        default=None, description='Shown while in progress: "Running the tests".'
    )
    status: Literal["pending", "in_progress", "completed"]


class TodoWriteParams(BaseModel):
    todos: list[TodoItem] = Field(description="The whole list; it replaces the previous one.")


class TodoWriteTool(Tool):
    name = TOOL_NAME
    label = "Todos"
    description = (
        "Write your todo list for multi-step work. Send the whole list every time (it "
        "replaces the old one); mark at most one item in_progress, and mark items completed "
        "as soon as they are done."
    )
    parameters = TodoWriteParams
    exclusive = True

    def execute(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        items = params.todos
        blank = [i + 1 for i, t in enumerate(items) if not t.content.strip()]
        if blank:
            return ToolResult.error(
                f"Todo item(s) {', '.join(map(str, blank))} have no content; give every "
                "item a short description and call todo_write again."
            )
        active = [t.content for t in items if t.status == "in_progress"]
        if len(active) > 1:
            listed = "; ".join(f'"{c}"' for c in active)
            return ToolResult.error(
                f"Only one todo may be in_progress at a time, but {len(active)} are: {listed}. "
                "Keep one in_progress, mark the others pending or completed, and call "
                "todo_write again with the whole list."
            )
        ids = [t.id for t in items if t.id]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            return ToolResult.error(
                f"Todo ids must be unique; repeated: {', '.join(duplicates)}. "
                "Give each item its own id (or none) and call todo_write again."
            )
        todos = []
        for number, item in enumerate(items, start=1):
            todo: dict[str, Any] = {
                "id": item.id or str(number),
                "content": item.content.strip(),
                "status": item.status,
            }
            if item.activeForm:
                todo["activeForm"] = item.activeForm
            todos.append(todo)
        return ToolResult.text(render(todos), {"todos": todos})
