"""Entry module of omp-tool-todo: only the hooks, cheap to import (``omp --help`` loads it)."""

from __future__ import annotations

from typing import Any

import omp


@omp.hookimpl
def omp_register_tools(api: Any) -> list[Any]:
    from omp_tool_todo.tool import TodoWriteTool

    return [TodoWriteTool()]


@omp.hookimpl
def omp_register_commands(api: Any) -> list[Any]:
    from omp import Command

    def show(args: str, ctx: Any) -> None:
        from omp_tool_todo.state import current_todos, render

        todos = current_todos(ctx.session.branch_entries())
        ctx.ui.notify(render(todos) if todos else "No todos yet.")

    return [Command("todos", "Show the agent's current todo list", show)]


BUS_KEY = "omp-tool-todo.bus"


@omp.hookimpl
def omp_session_start(ctx: Any, api: Any) -> None:
    """Answer other plugins on the event bus: ``todos.get`` (a dict; gets ``phases``,
    the branch's list as omp's phases) and ``todos.set`` (a dict with ``set``: a host's
    phases, kept as a ``custom`` entry; gets ``phases``, as kept, or ``error``). A
    request that comes back with neither found no todo plugin."""
    from omp_tool_todo.state import HOST_ENTRY, checked_phases, current_phases

    def get(request: dict[str, Any]) -> None:
        request["phases"] = current_phases(ctx.session.branch_entries())

    def set_(request: dict[str, Any]) -> None:
        try:
            phases = checked_phases(request.get("set"))
        except ValueError as exc:
            request["error"] = str(exc)
            return
        api.append_entry(HOST_ENTRY, {"phases": phases})
        request["phases"] = phases

    ctx.state[BUS_KEY] = [api.events.on("todos.get", get), api.events.on("todos.set", set_)]


@omp.hookimpl
def omp_session_shutdown(ctx: Any) -> None:
    for unsubscribe in ctx.state.pop(BUS_KEY, []):
        unsubscribe()
