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
    from omp.contrib import Command

    def show(args: str, ctx: Any) -> None:
        from omp_tool_todo.state import current_todos, render

        todos = current_todos(ctx.session.branch_entries())
        ctx.ui.notify(render(todos) if todos else "No todos yet.")

    return [Command("todos", "Show the agent's current todo list", show)]
