"""The combination rules of the async dispatcher, one test per rule."""

from __future__ import annotations

import asyncio

import omp
import pytest
from omp.agent.events import (
    ContextEvent,
    SessionBeforeSwitchEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnStartEvent,
    UserBashEvent,
)
from omp.agent.messages import TextContent, UserMessage
from omp.plugin.dispatch import HookDispatcher, rule_of
from omp.plugin.manager import new_plugin_manager


class Recorder:
    def __init__(self) -> None:
        self.errors: list[tuple[str, str, str]] = []

    def __call__(self, plugin: str, hook: str, message: str) -> None:
        self.errors.append((plugin, hook, message))


def dispatcher(*plugins: tuple[str, object]) -> tuple[HookDispatcher, Recorder]:
    pm = new_plugin_manager()
    for name, plugin in plugins:
        pm.register(plugin, name=name)
    recorder = Recorder()
    return HookDispatcher(pm, recorder), recorder


def call(d: HookDispatcher, hook: str, event: object) -> object:
    return asyncio.run(d.call(hook, event))


def tool_call_event() -> ToolCallEvent:
    return ToolCallEvent(tool_call_id="c1", tool_name="bash", input={"command": "ls"})


class Allow:
    def __init__(self) -> None:
        self.seen = 0

    @omp.hookimpl
    def omp_tool_call(self, event):
        self.seen += 1


class Block:
    def __init__(self, reason: str) -> None:
        self.reason = reason

    @omp.hookimpl
    async def omp_tool_call(self, event):
        return {"block": True, "reason": self.reason}


def test_first_block_wins_and_later_handlers_are_skipped():
    late = Allow()
    # registered last = called first (pluggy LIFO); `late` is registered first -> called last
    d, _ = dispatcher(("late", late), ("second", Block("second")), ("first", Block("first")))
    decision = call(d, "omp_tool_call", tool_call_event())
    assert decision.block and decision.reason == "first"
    assert late.seen == 0


def test_tryfirst_runs_before_later_registrations():
    class Early:
        @omp.hookimpl(tryfirst=True)
        def omp_tool_call(self, event):
            return {"block": True, "reason": "early"}

    d, _ = dispatcher(("early", Early()), ("other", Block("other")))
    assert call(d, "omp_tool_call", tool_call_event()).reason == "early"


def test_a_raising_tool_call_handler_blocks_the_tool():
    class Broken:
        @omp.hookimpl
        def omp_tool_call(self, event):
            raise RuntimeError("policy database unreachable")

    d, recorder = dispatcher(("allow", Allow()), ("broken", Broken()))
    decision = call(d, "omp_tool_call", tool_call_event())
    assert decision.block
    assert "broken" in decision.reason and "policy database unreachable" in decision.reason
    assert recorder.errors == [("broken", "tool_call", "RuntimeError: policy database unreachable")]


def test_tool_call_input_revisions_chain_into_later_handlers():
    class Rewrite:
        @omp.hookimpl(tryfirst=True)
        def omp_tool_call(self, event):
            return {"input": {"command": event.input["command"] + " -la"}}

    class Check:
        seen = None

        @omp.hookimpl
        def omp_tool_call(self, event):
            Check.seen = event.input["command"]

    d, _ = dispatcher(("check", Check()), ("rewrite", Rewrite()))
    decision = call(d, "omp_tool_call", tool_call_event())
    assert not decision.block and decision.input == {"command": "ls -la"}
    assert Check.seen == "ls -la"


def test_tool_result_chains_partial_patches():
    class Redact:
        @omp.hookimpl(tryfirst=True)
        def omp_tool_result(self, event):
            text = event.content[0].text.replace("secret", "[redacted]")
            return {"content": [TextContent(text=text)]}

    class MarkError:
        seen_text = None

        @omp.hookimpl
        async def omp_tool_result(self, event):
            MarkError.seen_text = event.content[0].text
            return {"is_error": True}

    d, _ = dispatcher(("mark", MarkError()), ("redact", Redact()))
    event = ToolResultEvent(
        tool_call_id="c1",
        tool_name="read",
        input={},
        content=[TextContent(text="the secret is 42")],
        details={"path": "x"},
    )
    outcome = call(d, "omp_tool_result", event)
    assert MarkError.seen_text == "the [redacted] is 42"
    assert outcome.event.content[0].text == "the [redacted] is 42"
    assert outcome.event.is_error is True
    assert outcome.event.details == {"path": "x"}  # omitted by both patches: kept
    assert event.content[0].text == "the secret is 42"  # the caller's event is untouched


def test_context_chain_sees_previous_changes():
    class AddNote:
        @omp.hookimpl(tryfirst=True)
        def omp_context(self, event):
            return {"messages": [*event.messages, UserMessage(content="note")]}

    class Count:
        count = None

        @omp.hookimpl
        def omp_context(self, event):
            Count.count = len(event.messages)

    d, _ = dispatcher(("count", Count()), ("note", AddNote()))
    outcome = call(d, "omp_context", ContextEvent(messages=[UserMessage(content="hi")]))
    assert Count.count == 2
    assert [m.content for m in outcome.event.messages] == ["hi", "note"]


def plugin_with(hook: str, body) -> object:
    """An object implementing ``hook`` with ``body(event)``."""
    impl = omp.hookimpl(lambda event: body(event))
    impl.__name__ = hook
    return type("P", (), {hook: staticmethod(impl)})()


SESSION_BEFORE = [
    "omp_session_before_switch",
    "omp_session_before_branch",
    "omp_session_before_compact",
    "omp_session_before_tree",
]


@pytest.mark.parametrize("hook", SESSION_BEFORE)
def test_first_cancel_wins_for_session_before_hooks(hook):
    calls = []

    def record(name, result):
        def body(event):
            calls.append(name)
            return result

        return body

    d, _ = dispatcher(
        ("never", plugin_with(hook, record("never", {"cancel": True}))),
        ("cancel", plugin_with(hook, record("cancel", {"cancel": True}))),
        ("pass", plugin_with(hook, record("pass", None))),
    )
    decision = call(d, hook, SessionBeforeSwitchEvent(reason="new"))
    assert decision.cancel
    assert calls == ["pass", "cancel"]


@pytest.mark.parametrize(
    "hook, supplied",
    [("omp_session_before_compact", "compaction"), ("omp_session_before_tree", "summary")],
)
def test_a_custom_compaction_or_summary_also_wins(hook, supplied):
    d, _ = dispatcher(("custom", plugin_with(hook, lambda e: {supplied: {"summary": "s"}})))
    decision = call(d, hook, SessionBeforeSwitchEvent(reason="new"))
    assert getattr(decision, supplied) == {"summary": "s"} and not decision.cancel


def test_no_cancel_means_no_decision():
    class Pass:
        @omp.hookimpl
        def omp_session_before_switch(self, event):
            return {"cancel": False}

    d, _ = dispatcher(("pass", Pass()))
    assert call(d, "omp_session_before_switch", SessionBeforeSwitchEvent(reason="new")) is None


@pytest.mark.parametrize("hook", ["omp_user_bash", "omp_user_python", "omp_search"])
def test_first_result_replaces_execution(hook):
    d, _ = dispatcher(
        ("second", plugin_with(hook, lambda e: {"result": {"output": "second"}})),
        ("first", plugin_with(hook, lambda e: {"result": {"output": "faked", "exitCode": 0}})),
        ("none", plugin_with(hook, lambda e: None)),
    )
    result = call(d, hook, UserBashEvent(command="ls", cwd="/"))
    assert result.result == {"output": "faked", "exitCode": 0}


def test_a_raising_observer_is_reported_and_the_others_still_run():
    seen = []

    class Broken:
        @omp.hookimpl(tryfirst=True)
        async def omp_turn_start(self, event):
            raise ValueError("boom")

    class Fine:
        @omp.hookimpl
        def omp_turn_start(self, event, ctx):
            seen.append((event.turn_index, ctx))

    d, recorder = dispatcher(("fine", Fine()), ("broken", Broken()))
    assert call(d, "omp_turn_start", TurnStartEvent(turn_index=3)) is None
    assert seen == [(3, None)]
    assert recorder.errors == [("broken", "turn_start", "ValueError: boom")]


OBSERVERS = sorted(
    name
    for name in dir(__import__("omp.plugin.specs").plugin.specs)
    if name.startswith("omp_")
    and not name.startswith("omp_register_")
    and rule_of(name) == "observer"
)


@pytest.mark.parametrize("hook", OBSERVERS)
def test_every_observer_hook_runs_all_handlers_and_reports_failures(hook):
    seen = []

    def fail(event):
        raise RuntimeError("observer failed")

    d, recorder = dispatcher(
        ("ok", plugin_with(hook, lambda e: seen.append("ok") or "ignored")),
        ("bad", plugin_with(hook, fail)),
    )
    assert call(d, hook, TurnStartEvent()) is None
    assert seen == ["ok"]
    assert recorder.errors == [("bad", hook.removeprefix("omp_"), "RuntimeError: observer failed")]


def test_a_malformed_chain_result_is_reported_and_ignored():
    class Wrong:
        @omp.hookimpl
        def omp_context(self, event):
            return 42

    d, recorder = dispatcher(("wrong", Wrong()))
    outcome = call(d, "omp_context", ContextEvent(messages=[]))
    assert outcome.event.messages == []
    assert recorder.errors[0][:2] == ("wrong", "context")
