"""``omp agents [--json]``: the agents the ``task`` tool can spawn here, where each
comes from, and its model, tools and description."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omp import SubcommandContext

    from omp_tool_task.agents import AgentDefinition

USAGE = """usage: omp agents [--json]

The agents the task tool can spawn in this directory: name, source (project, user or
bundled), model, tools and description. The first found wins for a name: the
project's .omp/agents/ then .claude/agents/ (only in a trusted directory), the user's
~/.omp/agent/agents/, then the bundled ones; task.disabledAgents leaves some out.

  --json   one JSON object per agent and line, with the file it came from
"""


def _row(agent: AgentDefinition) -> dict[str, Any]:
    return {
        "name": agent.name,
        "source": agent.source,
        "model": agent.model,
        "tools": list(agent.tools) if agent.tools is not None else None,
        "thinkingLevel": agent.thinking_level,
        "spawns": agent.spawns if agent.spawns in (None, "*") else list(agent.spawns or ()),
        "description": agent.description,
        "path": str(agent.path) if agent.path else None,
    }


def run(args: list[str], ctx: SubcommandContext) -> int:
    """The subcommand: ``args`` are the words after ``agents``."""
    from omp_tool_task.agents import discover_agents

    if "--help" in args or "-h" in args:
        print(USAGE, end="")
        return 0
    unknown = [a for a in args if a != "--json"]
    if unknown:
        print(
            f"omp agents: unexpected argument {unknown[0]!r} (omp agents --help)", file=sys.stderr
        )
        return 2
    disabled = ctx.settings.get("task.disabledAgents") or []
    agents = discover_agents(ctx.cwd, ctx.agent_dir, ctx.trusted, [str(d) for d in disabled])
    if "--json" in args:
        for agent in agents.values():
            print(json.dumps(_row(agent), ensure_ascii=False))
        return 0
    if not agents:
        print("no agents (task.disabledAgents leaves none)")
        return 0
    width = max(len(name) for name in agents)
    for agent in agents.values():
        tools = ", ".join(agent.tools) if agent.tools is not None else "parent's tools"
        model = agent.model or "parent's model"
        print(f"{agent.name:<{width}}  {agent.source:<7}  model: {model}  tools: {tools}")
        print(f"{'':<{width}}  {agent.description}")
    return 0
