"""Entry module of omp-tool-task: only the hooks, cheap to import (``omp --help`` loads it).

The ``task`` tool is registered like any tool (so ``--tools``, ``--no-tools`` and
``set_active_tools`` decide whether the model sees it) and sized at session start to the
settings and the agents found. A child gets ``task`` while it may still spawn, and the
``yield`` tool it returns its result with (from the task tool, for it alone). Every
session reads its children's output and transcripts as ``agent://<id>`` and
``history://<id>``."""

from __future__ import annotations

from typing import Any

import omp
from omp import SettingSpec


@omp.hookimpl
def omp_register_settings(api: Any) -> list[SettingSpec]:
    return [
        SettingSpec(
            "task.batch", "boolean", True, "task takes {context, tasks: [...]} (else one task)"
        ),
        SettingSpec(
            "task.maxConcurrency",
            "integer",
            32,
            "children of one task call running at once",
            minimum=1,
        ),
        SettingSpec(
            "task.maxRecursionDepth",
            "integer",
            2,
            "session depth at which the task tool is no longer offered (children of children...)",
            minimum=0,
        ),
        SettingSpec(
            "task.maxRuntimeMs", "integer", 0, "a child's time limit in ms (0: none)", minimum=0
        ),
        SettingSpec(
            "task.isolation.mode",
            "string",
            "none",
            "worktree: the task tool offers isolated children in a git worktree",
            choices=("none", "worktree"),
        ),
        SettingSpec("task.isolation.keep", "boolean", False, "keep an isolated child's worktree"),
        SettingSpec("task.disabledAgents", "array", [], "agents the task tool does not offer"),
    ]


@omp.hookimpl
def omp_register_tools(api: Any) -> list[Any]:
    from omp_tool_task.tool import TaskTool

    return [TaskTool()]


def _agents(args: list[str], ctx: omp.SubcommandContext) -> int:
    from omp_tool_task.agents_cmd import run

    return run(args, ctx)


@omp.hookimpl
def omp_register_subcommands(api: Any) -> list[omp.Subcommand]:
    return [omp.Subcommand("agents", "List the agents the task tool can spawn here", _agents)]


@omp.hookimpl
def omp_session_init(event: Any, ctx: Any) -> None:
    """A child made by the task tool: its id (its children's ids start with it) and the
    agents it may start, from what the tool put in its session_init entry."""
    from omp_tool_task.tool import ID_KEY, SPAWNS_KEY

    entry = event.entry
    if isinstance(entry.get("taskId"), str):
        ctx.state[ID_KEY] = entry["taskId"]
        spawns = entry.get("spawns")
        ctx.state[SPAWNS_KEY] = spawns if spawns == "*" else tuple(spawns or ())


@omp.hookimpl
def omp_session_start(ctx: Any, api: Any) -> None:
    from omp_tool_task.store import install

    install(ctx)
    if int(getattr(ctx, "session_depth", 0)) > 0:
        return
    from pathlib import Path

    from omp_tool_task.agents import discover_agents
    from omp_tool_task.tool import TaskTool

    tool = api.get_tool("task")
    if not isinstance(tool, TaskTool):
        return
    disabled = tuple(ctx.settings.get("task.disabledAgents") or ())
    agent_dir = Path(api.agent_dir) if api.agent_dir else None

    def warn(line: str) -> None:
        ctx.ui.notify(line, "warning")

    agents = discover_agents(Path(ctx.cwd), agent_dir, ctx.is_project_trusted, disabled, warn=warn)
    tool.configure(
        agents,
        batch=bool(ctx.settings.get("task.batch", True)),
        isolation=ctx.settings.get("task.isolation.mode", "none") == "worktree",
    )
    if not agents or int(ctx.settings.get("task.maxRecursionDepth", 2)) <= 0:
        api.set_active_tools([name for name in api.get_active_tools() if name != "task"])
