"""One child of a ``task`` call, start to end: the spawn hook, the child session
(``ctx.create_child_session``), its prompt, up to three reminders when it stops without
``yield``, the time limit and abort, and its SingleResult (omp's shape) — a child that
fails, times out or is aborted still gives one, so the others' results are never lost."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omp_tool_task.output import capped, structured_text
from omp_tool_task.params import Assignment
from omp_tool_task.progress import ChildProgress, ProgressReporter
from omp_tool_task.store import OutputStore
from omp_tool_task.yield_tool import YieldTool

MAX_YIELD_RETRIES = 3
REMINDER = (
    "<system-reminder>\nLast turn had no tool call: the task is not finished until you call "
    "`yield`. Reminder {n} of {max}.\nIf the assignment is incomplete, call the next tool you "
    "need. If it is done, call `yield` with your result in `data`; if a real blocker stops "
    "you, call `yield` with `error`.\n</system-reminder>"
)


@dataclass
class ChildPlan:
    """Everything decided before the child starts (by ``tool.py``)."""

    assignment: Assignment
    id: str
    agent: Any  # omp_tool_task.agents.AgentDefinition
    prompt: str
    tools: list[str]
    model: str | None
    cwd: Path | None = None
    keep_worktree: bool = False


class ChildRun:
    """Runs one plan; ``abort(reason)`` stops it at any point (before it starts too)."""

    def __init__(
        self,
        plan: ChildPlan,
        progress: ChildProgress,
        reporter: ProgressReporter,
        store: OutputStore,
        call_id: str,
    ) -> None:
        self.plan, self.progress, self.reporter, self.store = plan, progress, reporter, store
        self.call_id = call_id
        self.abort_reason: str | None = None
        self.child: Any = None
        self.patch: str | None = None
        self.yield_tool = YieldTool(plan.assignment.output_schema, plan.assignment.schema_mode)

    def abort(self, reason: str) -> None:
        if self.abort_reason is None:
            self.abort_reason = reason
        if self.child is not None:
            self.child.abort(reason)

    async def run(self, ctx: Any, limit: asyncio.Semaphore, max_runtime_ms: int) -> dict[str, Any]:
        started = time.monotonic()
        async with limit:
            if self.abort_reason is not None:
                return self._result(started, None, error=None)
            timer = None
            if max_runtime_ms > 0:
                loop = asyncio.get_running_loop()
                timer = loop.call_later(
                    max_runtime_ms / 1000, self.abort, f"timed out after {max_runtime_ms}ms"
                )
            try:
                if self.plan.assignment.isolated:
                    child, error = await self._isolated(ctx)
                else:
                    child, error = await self._drive(ctx)
            finally:
                if timer is not None:
                    timer.cancel()
            return self._result(started, child, error=error)

    async def _isolated(self, ctx: Any) -> tuple[Any, str | None]:
        """The child in a git worktree of the parent's state; its diff kept as the patch."""
        from omp_tool_task.isolation import IsolationError, isolated_worktree

        try:
            async with isolated_worktree(Path(ctx.cwd), keep=self.plan.keep_worktree) as tree:
                self.plan.cwd = tree.path
                child, error = await self._drive(ctx)
                self.patch = await tree.diff()
                return child, error
        except IsolationError as exc:
            return self.child, _one_line(exc)

    async def _drive(self, ctx: Any) -> tuple[Any, str | None]:
        """Start the child and run it to its end: (the child or None, an error or None)."""
        plan = self.plan
        try:
            blocked = await self._spawn_hook(ctx)
            if blocked is not None:
                return None, f"spawn blocked: {blocked}"
            child = await ctx.create_child_session(
                name=plan.id,
                system_prompt=plan.agent.system_prompt or None,
                tools=plan.tools,
                extra_tools=[self.yield_tool],
                model=plan.model,
                thinking_level=plan.agent.thinking_level,
                cwd=plan.cwd,
                session_init=self._init_fields(),
            )
        except Exception as exc:
            return None, _one_line(exc)
        self.child = child
        self.progress.session_file = _path_text(child)
        self.progress.status = "running"
        self.reporter.lifecycle(self.progress, "started")
        unsubscribe = child.subscribe(self._on_event)
        try:
            if self.abort_reason is not None:
                child.abort(self.abort_reason)
            else:
                await _prompt(child, plan.prompt)
                reminders = 0
                while self._should_remind(child) and reminders < MAX_YIELD_RETRIES:
                    reminders += 1
                    await _prompt(child, REMINDER.format(n=reminders, max=MAX_YIELD_RETRIES))
            return child, None
        except Exception as exc:
            return child, _one_line(exc)
        finally:
            unsubscribe()
            await _close(child)

    async def _spawn_hook(self, ctx: Any) -> str | None:
        """The plugins' word on this child (``omp_subagent_spawn``): why it is vetoed, or
        None; a rewrite of its task, model or tools is applied to the plan."""
        spawn = getattr(ctx, "subagent_spawn", None)
        if spawn is None:
            return None
        from omp import SubagentSpawnEvent

        plan = self.plan
        decision = await spawn(
            SubagentSpawnEvent(
                agent=plan.agent.name,
                task=plan.assignment.task,
                model=plan.model,
                tools=list(plan.tools),
                isolated=plan.assignment.isolated,
                depth=int(getattr(ctx, "session_depth", 0)) + 1,
                parent_session_id=str(getattr(ctx, "session_id", "")),
                index=plan.assignment.index,
            )
        )
        if decision is None:
            return None
        if decision.block:
            return decision.reason or "a plugin refused it"
        if decision.task is not None:
            plan.prompt = plan.prompt.removesuffix(plan.assignment.task) + decision.task
        if decision.model is not None:
            plan.model = decision.model
        if decision.tools is not None:
            plan.tools = list(decision.tools)
        return None

    def _init_fields(self) -> dict[str, Any]:
        plan = self.plan
        fields: dict[str, Any] = {
            "task": plan.prompt,
            "agent": plan.agent.name,
            "taskId": plan.id,
            "parentToolCallId": self.call_id,
        }
        if plan.agent.model:
            fields["modelRole"] = plan.agent.model
        spawns = plan.agent.spawns
        fields["spawns"] = list(spawns) if isinstance(spawns, tuple) else spawns
        if plan.assignment.output_schema is not None:
            fields["outputSchema"] = plan.assignment.output_schema
            fields["outputSchemaMode"] = plan.assignment.schema_mode
        return fields

    def _on_event(self, event: Any) -> None:
        if self.progress.observe(event):
            self.reporter.changed(self.progress)

    def _should_remind(self, child: Any) -> bool:
        if self.yield_tool.outcome is not None or self.abort_reason is not None:
            return False
        last = _last_answer(child)
        return last is not None and last.stop_reason not in ("error", "aborted")

    def _result(self, started: float, child: Any, *, error: str | None) -> dict[str, Any]:
        plan, outcome = self.plan, self.yield_tool.outcome
        last = _last_answer(child) if child is not None else None
        last_text = last.text if last is not None else ""
        schema = plan.assignment.output_schema
        structured: dict[str, Any] | None = None
        exit_code, output = 1, last_text
        if error is not None:
            output = error
        elif outcome is not None and outcome.status in ("valid", "invalid"):
            exit_code, output = 0, structured_text(outcome.data)
            structured = {"status": outcome.status, "data": outcome.data}
            if outcome.error:
                structured["error"] = outcome.error
        elif outcome is not None and outcome.status == "error":
            output = outcome.error or "the child reported a failure"
            if outcome.data is not None:
                structured = {"status": "invalid", "data": outcome.data, "error": outcome.error}
        elif outcome is not None or (schema is None and self.abort_reason is None):
            if last is not None and last.stop_reason == "error":
                output = last_text or last.error_message or "the model request failed"
            else:
                exit_code = 0
        elif self.abort_reason is None:
            structured = {"status": "unavailable", "error": "exited without calling yield"}
        if structured is not None:
            structured["mode"] = plan.assignment.schema_mode
        aborted = self.abort_reason is not None and outcome is None
        status = "aborted" if aborted else ("completed" if exit_code == 0 else "failed")
        self.progress.finish(status)
        self.reporter.lifecycle(self.progress, status)
        full, truncated = capped(child.redact(output) if child is not None else output)
        usage = _usage(child)
        result: dict[str, Any] = {
            "index": plan.assignment.index,
            "id": plan.id,
            "agent": plan.agent.name,
            "agentSource": plan.agent.source,
            "task": plan.assignment.task,
            "exitCode": exit_code,
            "output": full,
            "truncated": truncated,
            "durationMs": int((time.monotonic() - started) * 1000),
            "tokens": usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"],
            "requests": usage["requests"],
            "usage": usage,
        }
        if structured is not None:
            result["structuredOutput"] = structured
        if aborted:
            result["aborted"], result["abortReason"] = True, self.abort_reason
        if self.patch:
            result["patch"] = self.patch
        path = self.store.put_output(plan.id, full)
        if path is not None:
            result["outputPath"] = str(path)
        if child is not None:
            file = _path_text(child)
            if file:
                result["sessionFile"] = file
                self.store.put_transcript(plan.id, Path(file))
            else:
                self.store.put_transcript(plan.id, _transcript_of(child))
        return result


# -- the child session (an omp.AgentSession) ----------------------------------------------


async def _prompt(child: Any, text: str) -> None:
    """The child's next message, never taken for a slash or ``!``/``$`` command."""
    await child.prompt(text, source="extension", literal=True)


def _last_answer(child: Any) -> Any:
    for message in reversed(child.messages):
        if getattr(message, "role", "") == "assistant":
            return message
    return None


def _transcript_of(child: Any) -> Any:
    messages = [m.model_dump(mode="json") for m in child.messages]
    return lambda: messages


def _path_text(child: Any) -> str | None:
    return str(child.session_file) if child.session_file else None


def _usage(child: Any) -> dict[str, Any]:
    """The child's usage (its own children's included) as omp's usage keys."""
    if child is None:
        return {
            "input": 0,
            "output": 0,
            "cacheRead": 0,
            "cacheWrite": 0,
            "cost": 0.0,
            "requests": 0,
        }
    totals = child.usage_totals()
    return {
        "input": totals.input,
        "output": totals.output,
        "cacheRead": totals.cache_read,
        "cacheWrite": totals.cache_write,
        "cost": totals.cost,
        "requests": totals.requests,
    }


async def _close(child: Any) -> None:
    await child.dispose()


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
