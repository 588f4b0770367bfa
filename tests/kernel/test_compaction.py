"""Compaction through a running session: automatic at the threshold, manual with
/compact and ctx.compact(), the hooks that cancel, supply or shape it, and atomicity
(a failed or aborted summary leaves the session file byte-identical)."""

from __future__ import annotations

import json
from pathlib import Path

import omp
from doubles import Contribute, reply_events
from omp.agent.messages import content_text
from omp.agent.providers import AssistantStream, Model, Provider
from omp.agent.tools import Tool, ToolResult
from pydantic import BaseModel

GOAL = "Goal: rename the function frobnicate to polish in every module."


class Worker(Provider):
    """Works through ``steps`` (each a dict: text, calls); answers every summary request
    (recognised by its <conversation> block) with ``summary(conversation_text)``."""

    name = "test"
    api = "test"

    def __init__(self, steps, summary=None, window=4000) -> None:
        super().__init__([Model(provider="test", id="model", api="test", context_window=window)])
        self.steps = list(steps)
        self.summary = summary or _echo_goal
        self.requests: list = []
        self.summary_requests: list = []

    async def stream(self, model, context, options):
        out = AssistantStream(model)
        yield out.start()
        first = content_text(context.messages[0].content) if context.messages else ""
        if "<conversation>" in first:
            self.summary_requests.append(context)
            reply = self.summary(first)
        else:
            self.requests.append(context)
            reply = self.steps.pop(0) if self.steps else {"text": "done"}
        for event in reply_events(out, reply, len(self.requests)):
            yield event


def _echo_goal(conversation: str) -> dict:
    goal = next((line for line in conversation.splitlines() if "Goal:" in line), "")
    return {"text": f"## Goal\n{goal.split(': ', 1)[-1]}\n\n## Next Steps\n1. go on"}


class ReadParams(BaseModel):
    n: int = 0


class BigRead(Tool):
    name = "big_read"
    description = "Read a big file"
    parameters = ReadParams

    def execute(self, tool_call_id, params, signal, on_update, ctx):
        return ToolResult.text(f"chunk {params.n}: " + "lorem ipsum dolor " * 60)


def _settings(harness, **compaction) -> None:
    (harness.agent_dir / "settings.json").write_text(json.dumps({"compaction": compaction}))


def _session(harness, provider, *plugins, path=None, **options):
    return harness.session(
        [Contribute([provider], [BigRead()]), *plugins],
        model="test/model",
        session_path=path,
        **options,
    )


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _estimate(context) -> int:
    chars = len(context.system_prompt) + sum(
        len(content_text(m.content)) if m.role != "assistant" else len(m.text) + 40
        for m in context.messages
    )
    return chars // 4


def test_a_long_session_compacts_on_its_own_and_finishes(omp_harness, tmp_path):
    _settings(omp_harness, reserveTokens=1000, keepRecentTokens=600)
    steps = [{"calls": [("big_read", {"n": n})]} for n in range(12)] + [{"text": "renamed"}]
    provider = Worker(steps)
    path = tmp_path / "long.jsonl"
    session = _session(omp_harness, provider, path=path)
    log = omp_harness.run(session, GOAL)

    assert log.final_text() == "renamed"
    assert not [e for e in log.of("message_end") if e.message.role == "assistant" and
                e.message.stop_reason == "error"]  # fmt: skip
    starts, ends = log.of("auto_compaction_start"), log.of("auto_compaction_end")
    assert starts and {s.reason for s in starts} == {"threshold"}
    assert len(ends) == len(starts) and not any(e.aborted or e.error_message for e in ends)
    entries = _lines(path)
    compactions = [e for e in entries if e["type"] == "compaction"]
    assert compactions and "frobnicate to polish" in compactions[-1]["summary"]
    assert all(c["tokensBefore"] > 0 and c["firstKeptEntryId"] for c in compactions)
    # Every request stayed inside the window, and no tool result lost its call.
    for context in provider.requests:
        assert _estimate(context) < 4000
        called = {c.id for m in context.messages if m.role == "assistant" for c in m.tool_calls}
        results = [m for m in context.messages if m.role == "toolResult"]
        assert all(r.tool_call_id in called for r in results)
    # Every entry stays on disk: all 13 tool rounds are there.
    messages = [e for e in entries if e["type"] == "message"]
    assert sum(1 for e in messages if e["message"]["role"] == "toolResult") == 12
    # The session reloads as summary + kept tail.
    from omp.session.file import SessionFile

    reloaded = SessionFile.open(path, lock=False).build_context().messages
    assert reloaded[0].role == "compactionSummary"
    assert "frobnicate" in reloaded[0].summary


def test_the_summary_prompt_carries_what_must_survive(omp_harness, tmp_path):
    _settings(omp_harness, reserveTokens=1000, keepRecentTokens=600)
    steps = [{"calls": [("big_read", {"n": n})]} for n in range(12)] + [{"text": "ok"}]
    provider = Worker(steps)
    omp_harness.run(_session(omp_harness, provider), GOAL)
    request = provider.summary_requests[0]
    prompt = content_text(request.messages[0].content)
    assert GOAL in prompt and "[Tool result]" in prompt
    for needle in ("Goal", "Constraints", "Key Decisions", "Next Steps", "files"):
        assert needle.lower() in (request.system_prompt + prompt).lower(), needle
    assert request.tools == []


def test_manual_compact_command_with_instructions(omp_harness, tmp_path):
    seen = []

    def summary(conversation):
        seen.append(conversation)
        return {"text": "short summary"}

    provider = Worker([{"text": "one"}, {"text": "two"}, {"text": "three"}], summary)
    path = tmp_path / "manual.jsonl"
    session = _session(omp_harness, provider, path=path)
    log = omp_harness.run(session, GOAL, "second", "/compact focus on the rename", "after")
    assert "focus on the rename" in seen[0]
    entries = _lines(path)
    compaction = next(e for e in entries if e["type"] == "compaction")
    assert compaction["summary"].startswith("short summary")
    # The prompt after the compaction sees the summary, then the kept tail.
    last = provider.requests[-1]
    assert "short summary" in content_text(last.messages[0].content)
    assert log.final_text() == "three"
    assert not log.of("auto_compaction_start")  # manual: no auto events


def test_a_failed_summary_leaves_the_file_byte_identical(omp_harness, tmp_path):
    provider = Worker([{"text": "one"}, {"text": "two"}], lambda _: {"error": "HTTP 500 boom"})
    path = tmp_path / "failed.jsonl"
    session = _session(omp_harness, provider, path=path)
    omp_harness.run(session, GOAL, "second")
    before = path.read_bytes()
    session = _session(omp_harness, provider, path=path)
    log = omp_harness.run(session, "/compact")
    assert path.read_bytes() == before
    assert any("compaction failed" in n.message and "boom" in n.message for n in log.of("notice"))


def test_an_aborted_summary_changes_nothing(omp_harness, tmp_path):
    import asyncio

    class Slow(Worker):
        async def stream(self, model, context, options):
            first = content_text(context.messages[0].content)
            if "<conversation>" in first:
                await asyncio.sleep(10)
            async for event in super().stream(model, context, options):
                yield event

    provider = Slow([{"text": "one"}, {"text": "two"}])
    path = tmp_path / "aborted.jsonl"
    omp_harness.run(_session(omp_harness, provider, path=path), GOAL, "second")
    before = path.read_bytes()
    session = _session(omp_harness, provider, path=path)

    async def abort_soon(session):
        await asyncio.sleep(0.2)
        session.abort()

    omp_harness.run(session, "/compact", during=abort_soon)
    assert path.read_bytes() == before


class Hooks:
    def __init__(self, cancel=False, supply=None, context=None, prompt=None):
        self.cancel, self.supply = cancel, supply
        self.context, self.prompt = context, prompt
        self.seen: list = []

    @omp.hookimpl
    def omp_session_before_compact(self, event):
        self.seen.append(("before", event.reason, event.preparation["first_kept_entry_id"]))
        if self.cancel:
            return {"cancel": True}
        if self.supply:
            return {"compaction": {"summary": self.supply}}
        return None

    @omp.hookimpl
    def omp_session_compacting(self, event):
        self.seen.append(("compacting", len(event.messages)))
        patch = {}
        if self.context:
            patch["context"] = self.context
        if self.prompt:
            patch["prompt"] = self.prompt
        return patch or None

    @omp.hookimpl
    def omp_session_compact(self, event):
        self.seen.append(("compact", event.from_extension, event.compaction_entry["type"]))


def test_session_before_compact_can_cancel(omp_harness, tmp_path):
    hooks = Hooks(cancel=True)
    provider = Worker([{"text": "one"}, {"text": "two"}])
    path = tmp_path / "cancel.jsonl"
    session = _session(omp_harness, provider, hooks, path=path)
    omp_harness.run(session, GOAL, "second", "/compact")
    assert not [e for e in _lines(path) if e["type"] == "compaction"]
    assert provider.summary_requests == []
    assert [s[0] for s in hooks.seen] == ["before"]


def test_session_before_compact_can_supply_the_compaction(omp_harness, tmp_path):
    hooks = Hooks(supply="the plugin's own summary")
    provider = Worker([{"text": "one"}, {"text": "two"}])
    path = tmp_path / "supply.jsonl"
    session = _session(omp_harness, provider, hooks, path=path)
    omp_harness.run(session, GOAL, "second", "/compact")
    compaction = next(e for e in _lines(path) if e["type"] == "compaction")
    assert compaction["summary"] == "the plugin's own summary"
    assert compaction["fromExtension"] is True
    assert provider.summary_requests == []
    assert hooks.seen[-1] == ("compact", True, "compaction")


def test_session_compacting_adds_context_and_replaces_the_prompt(omp_harness, tmp_path):
    hooks = Hooks(context=["The user prefers tabs."], prompt="Summarise in one line.")
    provider = Worker([{"text": "one"}, {"text": "two"}])
    session = _session(omp_harness, provider, hooks)
    omp_harness.run(session, GOAL, "second", "/compact")
    prompt = content_text(provider.summary_requests[0].messages[0].content)
    assert "The user prefers tabs." in prompt and "Summarise in one line." in prompt
    assert "## Constraints" not in prompt  # the default instructions were replaced
    assert [s[0] for s in hooks.seen] == ["before", "compacting", "compact"]
    assert hooks.seen[-1] == ("compact", False, "compaction")


def test_ctx_compact_from_a_command(omp_harness, tmp_path):
    from omp.plugin.contrib import Command

    results = []

    class Cmd:
        @omp.hookimpl
        def omp_register_commands(self, api):
            async def run(args, ctx):
                results.append(await ctx.compact("keep the numbers"))

            return [Command("squeeze", "compact", run)]

    provider = Worker([{"text": "one"}, {"text": "two"}])
    session = _session(omp_harness, provider, Cmd())
    omp_harness.run(session, GOAL, "second", "/squeeze")
    assert results and results[0]["summary"].startswith("## Goal")
    assert results[0]["tokens_before"] > 0
    assert "keep the numbers" in content_text(provider.summary_requests[0].messages[0].content)


def test_nothing_to_compact_says_so(omp_harness):
    provider = Worker([])
    session = _session(omp_harness, provider)
    log = omp_harness.run(session, "/compact")
    assert any("nothing to compact" in n.message for n in log.of("notice"))
    assert provider.summary_requests == []


def test_a_prompt_larger_than_the_window_is_refused(omp_harness):
    provider = Worker([{"text": "never"}], window=1000)
    session = _session(omp_harness, provider)
    log = omp_harness.run(session, "word " * 5000)
    assert provider.requests == []
    errors = [n.message for n in log.of("notice") if n.level == "error"]
    assert errors and "1,000" in errors[0] and "larger than" in errors[0]
    assert session.abort_message


def test_a_prompt_larger_than_the_window_can_be_attached(omp_harness, tmp_path):
    _settings(omp_harness, oversizedPrompt="attach")
    provider = Worker([{"text": "read it"}], window=1000)
    session = _session(omp_harness, provider, path=tmp_path / "attach.jsonl")
    log = omp_harness.run(session, "word " * 5000)
    assert log.final_text() == "read it"
    sent = content_text(provider.requests[0].messages[-1].content)
    assert "read" in sent and len(sent) < 1000
    path = sent.split("`")[1]
    assert Path(path).read_text() == "word " * 5000


def test_the_usage_check_before_each_request_does_not_walk_the_conversation():
    """It runs before every request: at turn 1,000 it must not touch every message."""
    from omp.agent.messages import AssistantMessage, CompactionSummaryMessage, Usage, UserMessage
    from omp_compaction.compaction import _fresh_usage

    class Watched(list):
        reads = 0

        def __iter__(self):
            Watched.reads += len(self)
            return super().__iter__()

        def __getitem__(self, index):
            Watched.reads += 1
            return super().__getitem__(index)

    old = AssistantMessage(content=[], usage=Usage(input=900, output=10), timestamp=1)
    summary = CompactionSummaryMessage(summary="s", tokens_before=900, timestamp=2)
    history = [UserMessage(content=f"q{n}", timestamp=3) for n in range(2000)]
    recent = AssistantMessage(content=[], usage=Usage(input=50, output=5), timestamp=4)
    messages = Watched([summary, old, *history, recent])
    assert _fresh_usage(messages) == (len(messages) - 1, 55)
    assert Watched.reads < 10
    stale = Watched([summary, *history, old])
    assert _fresh_usage(stale) == (-1, 0)


class TwoModels(Worker):
    """The worker's model plus a cheap ``test/summariser``; records which model each
    summary request went to."""

    def __init__(self, steps) -> None:
        super().__init__(steps)
        self.models.append(Model(provider="test", id="summariser", api="test"))
        self.summary_models: list[str] = []

    async def stream(self, model, context, options):
        if context.messages and "<conversation>" in content_text(context.messages[0].content):
            self.summary_models.append(model.id)
        async for event in super().stream(model, context, options):
            yield event


def test_a_configured_compaction_model_writes_the_summary(omp_harness, tmp_path):
    _settings(omp_harness, model="test/summariser")
    provider = TwoModels([{"text": "one"}, {"text": "two"}])
    path = tmp_path / "model.jsonl"
    omp_harness.run(_session(omp_harness, provider, path=path), GOAL, "second", "/compact")
    assert provider.summary_models == ["summariser"]
    assert "frobnicate" in next(e for e in _lines(path) if e["type"] == "compaction")["summary"]


def test_an_unknown_compaction_model_is_one_line_and_writes_nothing(omp_harness, tmp_path):
    _settings(omp_harness, model="test/no-such-model")
    provider = TwoModels([{"text": "one"}, {"text": "two"}])
    path = tmp_path / "unknown.jsonl"
    omp_harness.run(_session(omp_harness, provider, path=path), GOAL, "second")
    before = path.read_bytes()
    log = omp_harness.run(_session(omp_harness, provider, path=path), "/compact")
    assert path.read_bytes() == before and provider.summary_models == []
    (notice,) = [n.message for n in log.of("notice") if "compaction failed" in n.message]
    assert "test/no-such-model" in notice and "\n" not in notice
