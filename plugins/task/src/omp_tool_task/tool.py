"""The ``task`` tool: splits work into children that run in parallel, each a child
session with its agent's prompt, tools and model, and returns their results as omp's
``<task-result>`` envelopes (details: omp's TaskToolDetails, with ``subagentUsage`` so
their cost rolls up into the parent's totals)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

from omp import SUBAGENT_USAGE_KEY, Tool, ToolResult

from omp_tool_task import render
from omp_tool_task.output import child_id, summary
from omp_tool_task.params import TaskCall, params_model, parse_call
from omp_tool_task.progress import ChildProgress, ProgressReporter
from omp_tool_task.runner import ChildPlan, ChildRun
from omp_tool_task.store import OutputStore, install
from omp_tool_task.yield_tool import NAME as YIELD

NAME = "task"
ID_KEY = "omp-tool-task.id"
"""ctx.state key: a child's own task id, the prefix of its children's ids."""
SPAWNS_KEY = "omp-tool-task.spawns"
"""ctx.state key: the agents a child may start (``*`` or names)."""
USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite", "cost", "requests")


class TaskTool(Tool):
    name = NAME
    label = "Task"
    render_call = staticmethod(render.render_call)
    render_result = staticmethod(render.render_result)

    def __init__(self) -> None:
        self.agents: dict[str, Any] = {}
        self.batch, self.isolation = True, False
        super().__init__(
            description=describe({}, batch=True),
            parameters=params_model(batch=True, isolation=False),
        )

    def configure(self, agents: Mapping[str, Any], *, batch: bool, isolation: bool) -> None:
        """Size the tool to the agents found and the settings (at session start): its
        description lists the agents, its parameters follow ``task.batch`` and
        ``task.isolation.mode``. One instance serves a runtime's sessions and their
        children, which share its settings and directory."""
        self.agents = dict(agents)
        self.batch, self.isolation = batch, isolation
        self.description = describe(self.agents, batch=batch)
        self.parameters = params_model(batch=batch, isolation=isolation)
        self._schema = None

    async def execute(  # type: ignore[override]
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        started = time.monotonic()
        try:
            call = parse_call(params)
            store = install(ctx)
            plans = [self._plan(call, a, ctx, store) for a in call.assignments]
        except ValueError as exc:
            return ToolResult.error(str(exc))
        settings = ctx.settings
        children = [
            ChildProgress(
                p.assignment.index, p.id, p.agent.name, p.agent.source, p.assignment.task, p.model
            )
            for p in plans
        ]
        reporter = ProgressReporter(children, call_id, on_update, ctx)
        runs = [
            ChildRun(p, c, reporter, store, call_id) for p, c in zip(plans, children, strict=True)
        ]
        limit = asyncio.Semaphore(max(1, int(settings.get("task.maxConcurrency", 32))))
        max_ms = int(settings.get("task.maxRuntimeMs", 0) or 0)
        work = [asyncio.ensure_future(run.run(ctx, limit, max_ms)) for run in runs]

        def abort_all() -> None:
            for run in runs:
                run.abort("cancelled by the parent")

        if signal is not None:
            signal.add_listener(abort_all)
        try:
            await asyncio.wait(work)
        except asyncio.CancelledError:
            # The parent was aborted: stop every child, keep what finished (the loop
            # keeps a tool's result when the tool returns one after an abort).
            abort_all()
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()
            await asyncio.wait(work)
        finally:
            if signal is not None:
                signal.remove_listener(abort_all)
            reporter.close()
        results = [task.result() for task in work]
        return ToolResult.text(summary(results), details(results, started))

    def _plan(self, call: TaskCall, assignment: Any, ctx: Any, store: OutputStore) -> ChildPlan:
        allowed = ctx.state.get(SPAWNS_KEY, "*")
        agent = self.agents.get(assignment.agent)
        if agent is None or (allowed != "*" and assignment.agent not in allowed):
            names = (
                sorted(self.agents) if allowed == "*" else sorted(set(allowed) & set(self.agents))
            )
            known = ", ".join(names) or "none"
            raise ValueError(f"unknown agent {assignment.agent!r} (available: {known})")
        prefix = ctx.state.get(ID_KEY)
        own_id = store.allocate(child_id(prefix, assignment.index, assignment.name))
        prompt = f"{call.context}\n\n{assignment.task}" if call.context.strip() else assignment.task
        settings = ctx.settings
        tools = child_tools(agent, ctx.api.get_active_tools())
        if may_spawn(agent, ctx):
            tools.append(NAME)
        return ChildPlan(
            assignment=assignment,
            id=own_id,
            agent=agent,
            prompt=prompt,
            tools=tools,
            model=agent_model(agent.model, ctx),
            keep_worktree=bool(settings.get("task.isolation.keep", False)),
        )


def may_spawn(agent: Any, ctx: Any) -> bool:
    """Whether a child of ``agent`` gets the ``task`` tool: its agent has ``spawns``
    (omp's: ``*`` any agent, or those listed; unset: none; ``spawns`` gives the child
    ``task`` even when its ``tools`` leave it out) and it is below
    ``task.maxRecursionDepth``."""
    depth = int(getattr(ctx, "session_depth", 0)) + 1
    limit = int(ctx.settings.get("task.maxRecursionDepth", 2))
    return bool(agent.spawns) and depth < limit


def child_tools(agent: Any, parent_active: list[str]) -> list[str]:
    """The agent's tools that the parent has (all the parent's when the agent names none),
    never ``task``/``yield`` (a child gets its own)."""
    wanted = parent_active if agent.tools is None else list(agent.tools)
    return [name for name in wanted if name in parent_active and name not in (NAME, YIELD)]


def agent_model(model: str | None, ctx: Any) -> str | None:
    """The model pattern for an agent's ``model``: a role (``smol``, ``@smol``,
    ``pi/smol``) is its configured pattern (``modelRoles``, ``--smol``...), a pattern
    itself; None (the parent's model) for none or a role nobody set."""
    if not model:
        return None
    return ctx.model_registry.expand_role(model)


def describe(agents: Mapping[str, Any], *, batch: bool) -> str:
    lines = [
        "Run subtasks as parallel subagents, each in its own context with its own tools, "
        "and get their results back. Give each child everything it needs: it sees only "
        + ("the shared `context` and its own `task`." if batch else "its `task`."),
        "Results come back as <task-result> blocks; long output is cut, with the full text "
        "at agent://<id> and the child's transcript at history://<id> (read them with `read`).",
        "",
        "Available agents:",
    ]
    lines += [f"- {name}: {agent.description}" for name, agent in sorted(agents.items())]
    return "\n".join(lines)


def details(results: list[dict[str, Any]], started: float) -> dict[str, Any]:
    """omp's TaskToolDetails, with the children's summed usage under ``subagentUsage``."""
    usage: dict[str, Any] = dict.fromkeys(USAGE_KEYS, 0)
    usage["cost"] = 0.0
    for result in results:
        for key in USAGE_KEYS:
            usage[key] += result["usage"].get(key, 0)
    return {
        "results": results,
        "totalDurationMs": int((time.monotonic() - started) * 1000),
        "usage": usage,
        SUBAGENT_USAGE_KEY: dict(usage),
    }
