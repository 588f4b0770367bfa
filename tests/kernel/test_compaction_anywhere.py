"""``ctx.compact()`` is safe from anywhere: awaited from an event hook (turn_end,
agent_end), from a tool's execute, or from another task while the agent runs, it
completes, the session file holds the compaction, and the loop goes on with the
compacted conversation from its next safe point."""

from __future__ import annotations

import asyncio
import json

import omp
from omp.agent.tools import Tool, ToolResult
from omp.base.errors import OmpError
from pydantic import BaseModel
from test_compaction import GOAL, Worker, _lines, _session

GUARD_S = 30
"""A deadlock fails the test instead of hanging it."""


def _run(harness, session, *prompts, during=None):
    return asyncio.run(asyncio.wait_for(harness.arun(session, *prompts, during=during), GUARD_S))


class CompactFrom:
    """Awaits ctx.compact() from ``hook`` when the assistant has answered ``when``."""

    def __init__(self, hook: str, when: str) -> None:
        self.hook, self.when = hook, when
        self.results: list = []

    async def _maybe(self, message, ctx) -> None:
        if getattr(message, "text", None) == self.when and not self.results:
            self.results.append(await ctx.compact("keep the numbers"))

    @omp.hookimpl
    async def omp_turn_end(self, event, ctx):
        if self.hook == "turn_end":
            await self._maybe(event.message, ctx)

    @omp.hookimpl
    async def omp_agent_end(self, event, ctx):
        if self.hook == "agent_end" and event.messages:
            await self._maybe(event.messages[-1], ctx)


def _first_text(context) -> str:
    first = context.messages[0]
    return first.content if isinstance(first.content, str) else first.content[0].text


def _assert_compacted(path, provider, result) -> None:
    compactions = [e for e in _lines(path) if e["type"] == "compaction"]
    assert len(compactions) == 1
    assert result["summary"] == compactions[0]["summary"]
    assert result["summary"].startswith("## Goal")
    # the request after the compaction starts with its summary
    assert "rename the function frobnicate" in _first_text(provider.requests[-1])


def _compact_from_hook(omp_harness, tmp_path, hook: str) -> None:
    hooks = CompactFrom(hook, "three")
    provider = Worker([{"text": t} for t in ("one", "two", "three", "four")])
    path = tmp_path / f"{hook}.jsonl"
    session = _session(omp_harness, provider, hooks, path=path)
    log = _run(omp_harness, session, GOAL, "second", "third", "fourth")
    assert [e.message.text for e in log.of("turn_end")] == ["one", "two", "three", "four"]
    assert len(hooks.results) == 1
    assert not log.of("extension_error")
    _assert_compacted(path, provider, hooks.results[0])


def test_compact_awaited_from_turn_end(omp_harness, tmp_path):
    _compact_from_hook(omp_harness, tmp_path, "turn_end")


def test_compact_awaited_from_agent_end(omp_harness, tmp_path):
    _compact_from_hook(omp_harness, tmp_path, "agent_end")


class NoParams(BaseModel):
    pass


class Squeeze(Tool):
    name = "squeeze"
    description = "Compact the conversation"
    parameters = NoParams

    async def execute(self, tool_call_id, params, signal, on_update, ctx):
        result = await ctx.compact()
        return ToolResult.text(f"compacted to {result['tokens_after']} tokens")


def test_compact_awaited_from_a_tool_keeps_the_tool_and_its_result(omp_harness, tmp_path):
    steps = [{"text": "one"}, {"text": "two"}, {"calls": [("squeeze", {})]}, {"text": "after"}]
    provider = Worker(steps)
    path = tmp_path / "tool.jsonl"
    session = _session(omp_harness, provider, _tools(Squeeze()), path=path)
    log = _run(omp_harness, session, GOAL, "second", "squeeze it")
    (end,) = log.of("tool_execution_end")
    assert not end.is_error
    assert end.result["content"][0].text.startswith("compacted to")
    assert log.final_text() == "after"
    entries = _lines(path)
    kinds = [e["type"] for e in entries]
    assert kinds.count("compaction") == 1
    result_at = next(
        i for i, e in enumerate(entries) if e.get("message", {}).get("role") == "toolResult"
    )
    assert kinds.index("compaction") < result_at  # the result was written, after it
    last = provider.requests[-1]
    assert "rename the function frobnicate" in _first_text(last)
    assert last.messages[-1].role == "toolResult"
    assert last.messages[-1].content[0].text.startswith("compacted to")


def test_compact_from_another_task_while_the_agent_runs(omp_harness, tmp_path):
    steps = [{"text": "one"}, {"text": "two"}, {"calls": [("slow", {})]}, {"text": "after"}]
    provider = Worker(steps)
    started, release = asyncio.Event(), asyncio.Event()

    async def slow(*args):
        started.set()
        await release.wait()  # still running while the compaction is made
        return "slow done"

    tool = Tool(name="slow", description="slow", parameters=NoParams, execute=slow)
    path = tmp_path / "task.jsonl"
    session = _session(omp_harness, provider, _tools(tool), path=path)
    prompts, results = [], []

    async def during(session):
        prompts.append(None)
        if len(prompts) == 3:
            await started.wait()
            results.append(await session.compact())
            release.set()

    log = _run(omp_harness, session, GOAL, "second", "third", during=during)
    assert log.final_text() == "after"
    assistants = [e.message for e in log.of("message_end") if e.message.role == "assistant"]
    assert [m.stop_reason for m in assistants] == ["stop", "stop", "toolUse", "stop"]
    _assert_compacted(path, provider, results[0])


def _tools(tool: Tool):
    class Tools:
        @omp.hookimpl
        def omp_register_tools(self, api):
            return [tool]

    return Tools()


class CompactWhileCompacting:
    def __init__(self) -> None:
        self.errors: list[str] = []

    @omp.hookimpl
    async def omp_session_before_compact(self, event, ctx):
        try:
            await ctx.compact()
        except OmpError as exc:
            self.errors.append(str(exc))


def test_compact_from_a_compaction_hook_is_refused_not_a_deadlock(omp_harness, tmp_path):
    hooks = CompactWhileCompacting()
    provider = Worker([{"text": "one"}, {"text": "two"}])
    path = tmp_path / "nested.jsonl"
    session = _session(omp_harness, provider, hooks, path=path)
    _run(omp_harness, session, GOAL, "second", "/compact")
    assert hooks.errors == ["a compaction is being made: its own hooks cannot wait for another one"]
    assert [e["type"] for e in _lines(path)].count("compaction") == 1


class SummaryWaits(Worker):
    """Writes the summary only once ``release`` is set."""

    def __init__(self, steps) -> None:
        super().__init__(steps)
        self.release = asyncio.Event()

    async def stream(self, model, context, options):
        if "<conversation>" in _first_text(context):
            await self.release.wait()
        async for event in super().stream(model, context, options):
            yield event


def test_a_compaction_outlives_a_caller_that_timed_out(omp_harness, tmp_path):
    # the turn_end handler awaiting it is cancelled by its hook timeout; the compaction
    # it started is not (only an abort stops one), and the loop goes on with it
    settings = {"hookTimeouts": {"turn_end": 200}}
    (omp_harness.agent_dir / "settings.json").write_text(json.dumps(settings))
    hooks = CompactFrom("turn_end", "two")
    provider = SummaryWaits([{"text": t} for t in ("one", "two", "three")])
    path = tmp_path / "outlives.jsonl"
    session = _session(omp_harness, provider, hooks, path=path)

    def on_event(event):
        if event.type == "extension_error" and event.event.endswith("turn_end"):
            provider.release.set()

    session.subscribe(on_event)
    log = _run(omp_harness, session, GOAL, "second", "third")
    assert hooks.results == []  # its caller was cancelled
    assert [e.event.removeprefix("omp_") for e in log.of("extension_error")] == ["turn_end"]
    compactions = [e for e in _lines(path) if e["type"] == "compaction"]
    assert len(compactions) == 1
    assert "rename the function frobnicate" in _first_text(provider.requests[-1])
