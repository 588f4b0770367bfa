"""The agent loop's semantics, driven in process with a list provider and test tools."""

from __future__ import annotations

import asyncio
import time

import omp
from doubles import texts
from omp.agent.messages import CustomMessage, UserMessage, content_text
from omp.agent.tools import Tool, ToolResult
from pydantic import BaseModel


class Text(BaseModel):
    text: str


class Nap(BaseModel):
    seconds: float
    label: str


def echo_tool(**kwargs):
    return Tool(name="echo", parameters=Text, execute=lambda cid, p, s, u, c: p.text, **kwargs)


def nap_tool(log, name="nap", exclusive=False):
    async def execute(call_id, params, signal, on_update, ctx):
        log.append(("start", params.label, time.monotonic()))
        await asyncio.sleep(params.seconds)
        log.append(("end", params.label, time.monotonic()))
        return f"{params.label} rested"

    return Tool(name=name, parameters=Nap, execute=execute, exclusive=exclusive)


def results(provider_request):
    return [m for m in provider_request.messages if m.role == "toolResult"]


def test_events_reach_hooks_and_subscribers_in_order(make_session, omp_harness):
    from omp.testing import HookRecorder

    recorder = HookRecorder()
    session, _ = make_session(
        [{"calls": [("echo", {"text": "hey"})]}, {"text": "all done"}],
        tools=[echo_tool()],
        plugins=[recorder],
    )
    log = omp_harness.run(session, "go")
    expected = [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_update",
        "message_update",
        "message_update",
        "message_end",
        "tool_execution_start",
        "tool_execution_end",
        "message_start",
        "message_end",
        "turn_end",
        "turn_start",
        "message_start",
    ]
    assert log.types()[: len(expected)] == expected
    assert log.types()[-2:] == ["turn_end", "agent_end"]
    hooked = [
        n.removeprefix("omp_")
        for n in recorder.names()
        if n
        not in (
            "omp_input",
            "omp_before_agent_start",
            "omp_context",
            "omp_tool_call",
            "omp_tool_result",
            "omp_session_start",
            "omp_session_shutdown",
            "omp_session_stop",
            "omp_resources_discover",
            "omp_compaction_service",
            "omp_before_request",
            "omp_context_overflow",
        )
    ]
    assert hooked == [t for t in log.types() if t != "queue_update"]
    assert log.final_text() == "all done"


def test_unknown_tool_and_invalid_arguments_become_readable_error_results(
    make_session, omp_harness
):
    session, provider = make_session(
        [{"calls": [("nope", {}), ("echo", {"txt": "typo"})]}, {"text": "ok"}], tools=[echo_tool()]
    )
    omp_harness.run(session, "go")
    first, second = results(provider.requests[1])
    assert first.is_error and "Tool 'nope' not found" in first.content[0].text
    assert "echo" in first.content[0].text  # the tools that do exist are named
    assert second.is_error
    assert second.content[0].text.startswith("Invalid arguments for tool echo: text: Field")


def test_shared_tools_run_concurrently_and_exclusive_ones_alone(make_session, omp_harness):
    log: list = []
    calls = [
        ("nap", {"seconds": 0.3, "label": "a"}),
        ("nap", {"seconds": 0.3, "label": "b"}),
        ("solo", {"seconds": 0.1, "label": "c"}),
        ("nap", {"seconds": 0.1, "label": "d"}),
    ]
    session, provider = make_session(
        [{"calls": calls}, {"text": "ok"}], tools=[nap_tool(log), nap_tool(log, "solo", True)]
    )
    omp_harness.run(session, "go")
    at = {(kind, label): t for kind, label, t in log}
    assert at[("start", "b")] < at[("end", "a")]  # a and b overlapped
    assert at[("start", "c")] >= max(at[("end", "a")], at[("end", "b")])
    assert at[("start", "d")] >= at[("end", "c")]
    order = [m.tool_call_id for m in results(provider.requests[1])]
    assert order == ["call_1_1", "call_1_2", "call_1_3", "call_1_4"]  # call order kept


def test_abort_during_tools_gives_every_call_exactly_one_result(make_session, omp_harness):
    log: list = []
    calls = [
        ("nap", {"seconds": 5, "label": "a"}),
        ("nap", {"seconds": 5, "label": "b"}),
        ("solo", {"seconds": 5, "label": "c"}),
    ]
    session, provider = make_session(
        [{"calls": calls}, {"text": "never"}], tools=[nap_tool(log), nap_tool(log, "solo", True)]
    )

    async def abort_soon(s):
        await asyncio.sleep(0.3)
        s.context.abort()

    started = time.monotonic()
    events = omp_harness.run(session, "go", during=abort_soon)
    assert time.monotonic() - started < 3
    ends = events.of("tool_execution_end")
    assert sorted(e.tool_call_id for e in ends) == ["call_1_1", "call_1_2", "call_1_3"]
    assert all(e.is_error for e in ends)
    assert len(provider.requests) == 1  # no further model call after the abort
    stored = [m for m in session.agent.messages if m.role == "toolResult"]
    assert [m.tool_call_id for m in stored] == ["call_1_1", "call_1_2", "call_1_3"]
    assert events.types()[-1] == "agent_end"


def test_abort_cancels_the_provider_stream(make_session, omp_harness):
    session, _ = make_session([{"delay": 10, "text": "late"}])

    async def abort_soon(s):
        await asyncio.sleep(0.2)
        s.context.abort()

    started = time.monotonic()
    events = omp_harness.run(session, "go", during=abort_soon)
    assert time.monotonic() - started < 3
    final = events.of("message_end")[-1].message
    assert final.role == "assistant" and final.stop_reason == "aborted"


class Messenger:
    """A plugin whose tool sends a message with the given delivery when it runs."""

    def __init__(self, deliver_as: str, text: str = "from the plugin", **options) -> None:
        self.deliver_as, self.text, self.options = deliver_as, text, options

    @omp.hookimpl
    def omp_register_tools(self, api):
        def execute(call_id, params, signal, on_update, ctx):
            api.send_message(
                {"custom_type": "note", "content": f"{self.text} {params.text}"},
                deliver_as=self.deliver_as,
                **self.options,
            )
            return "sent"

        return [Tool(name="send", parameters=Text, execute=execute)]


def test_steering_after_a_tool_skips_the_rest_and_reaches_the_next_request(
    make_session, omp_harness
):
    session, provider = make_session(
        [{"calls": [("send", {"text": "1"}), ("echo", {"text": "later"})]}, {"text": "ok"}],
        tools=[echo_tool(exclusive=True)],
        plugins=[Messenger("steer")],
    )
    omp_harness.run(session, "go")
    sent, skipped = results(provider.requests[1])
    assert sent.content[0].text == "sent"
    assert skipped.is_error and skipped.content[0].text == "Skipped due to queued user message."
    assert texts(provider.requests[1])[-1] == "from the plugin 1"


def test_interrupt_mode_wait_lets_the_batch_finish(make_session, omp_harness):
    omp_harness.cwd.joinpath(".omp").mkdir()
    omp_harness.cwd.joinpath(".omp/settings.json").write_text('{"interruptMode": "wait"}')
    session, provider = make_session(
        [{"calls": [("send", {"text": "1"}), ("echo", {"text": "later"})]}, {"text": "ok"}],
        tools=[echo_tool(exclusive=True)],
        plugins=[Messenger("steer")],
    )
    omp_harness.run(session, "go")
    _, echoed = results(provider.requests[1])
    assert echoed.content[0].text == "later" and not echoed.is_error
    assert texts(provider.requests[1])[-1] == "from the plugin 1"


def test_follow_up_is_delivered_when_the_model_would_stop(make_session, omp_harness):
    session, provider = make_session(
        [{"calls": [("send", {"text": "2"})]}, {"text": "first answer"}, {"text": "second"}],
        plugins=[Messenger("followUp")],
    )
    events = omp_harness.run(session, "go")
    assert len(provider.requests) == 3
    assert texts(provider.requests[1])[-1] == "sent"  # not yet delivered after the tool
    assert texts(provider.requests[2])[-2:] == ["first answer", "from the plugin 2"]
    assert events.final_text() == "second"


def test_next_turn_messages_wait_for_the_next_prompt(make_session, omp_harness):
    session, provider = make_session(
        [{"calls": [("send", {"text": "3"})]}, {"text": "a"}, {"text": "b"}],
        plugins=[Messenger("nextTurn")],
    )
    omp_harness.run(session, "first", "second")
    assert "from the plugin 3" not in texts(provider.requests[1])
    assert texts(provider.requests[2])[-2:] == ["from the plugin 3", "second"]


def queue_two(session, deliver):
    async def queue(s):
        await asyncio.sleep(0.05)
        for n in (1, 2):
            s.send_message({"custom_type": "q", "content": f"queued {n}"}, deliver, False)

    return queue


def test_steering_mode_one_at_a_time_delivers_one_per_turn(make_session, omp_harness):
    log: list = []
    session, provider = make_session(
        [{"calls": [("nap", {"seconds": 0.3, "label": "x"})]}, {"text": "a"}, {"text": "b"}],
        tools=[nap_tool(log)],
    )
    omp_harness.run(session, "go", during=queue_two(session, "steer"))
    assert texts(provider.requests[1])[-1] == "queued 1"
    assert texts(provider.requests[2])[-2:] == ["a", "queued 2"]


def test_steering_mode_all_delivers_everything_at_once(make_session, omp_harness):
    omp_harness.cwd.joinpath(".omp").mkdir()
    omp_harness.cwd.joinpath(".omp/settings.json").write_text('{"steeringMode": "all"}')
    log: list = []
    session, provider = make_session(
        [{"calls": [("nap", {"seconds": 0.3, "label": "x"})]}, {"text": "a"}], tools=[nap_tool(log)]
    )
    omp_harness.run(session, "go", during=queue_two(session, "steer"))
    assert len(provider.requests) == 2
    assert texts(provider.requests[1])[-2:] == ["queued 1", "queued 2"]


def test_follow_up_mode_all(make_session, omp_harness):
    omp_harness.cwd.joinpath(".omp").mkdir()
    omp_harness.cwd.joinpath(".omp/settings.json").write_text('{"followUpMode": "all"}')
    session, provider = make_session([{"delay": 0.3, "text": "a"}, {"text": "b"}])
    omp_harness.run(session, "go", during=queue_two(session, "followUp"))
    assert len(provider.requests) == 2
    assert texts(provider.requests[1])[-2:] == ["queued 1", "queued 2"]


def test_ui_only_custom_messages_never_reach_the_provider(make_session, omp_harness):
    class Notes:
        @omp.hookimpl
        def omp_before_agent_start(self, event):
            return {
                "message": {
                    "custom_type": "ui",
                    "content": "for your eyes only",
                    "exclude_from_context": True,
                }
            }

    session, provider = make_session([{"text": "a"}], plugins=[Notes()])
    omp_harness.run(session, "go")
    assert "for your eyes only" not in " ".join(texts(provider.requests[0]))
    kept = [m for m in session.agent.messages if isinstance(m, CustomMessage)]
    assert kept and kept[0].content == "for your eyes only"


def test_context_hook_changes_apply_to_one_request_only(make_session, omp_harness):
    class Inject:
        @omp.hookimpl
        def omp_context(self, event):
            return {"messages": [*event.messages, UserMessage(content="injected")]}

    session, provider = make_session([{"text": "a"}], plugins=[Inject()])
    omp_harness.run(session, "go")
    assert texts(provider.requests[0])[-1] == "injected"
    assert all(getattr(m, "content", None) != "injected" for m in session.agent.messages)


def test_untyped_tool_results_are_coerced(make_session, omp_harness):
    odd = Tool(
        name="odd",
        parameters=Text,
        execute=lambda *a: {
            "content": [{"type": "text", "text": "ok"}, object(), 7],
            "details": {"when": object()},
        },
    )
    fine = Tool(
        name="fine", parameters=Text, execute=lambda *a: ToolResult.text("fine", details={"n": 1})
    )
    session, provider = make_session(
        [{"calls": [("odd", {"text": ""}), ("fine", {"text": ""})]}, {"text": "ok"}],
        tools=[odd, fine],
    )
    omp_harness.run(session, "go")
    odd_result, fine_result = results(provider.requests[1])
    assert odd_result.content[0].text == "ok"
    assert "2 malformed content block(s) dropped" in odd_result.content[1].text
    assert isinstance(odd_result.details["when"], str)
    assert fine_result.details == {"n": 1} and not fine_result.is_error


def test_a_raising_tool_becomes_an_error_result(make_session, omp_harness):
    def explode(*args):
        raise OSError("disk on fire")

    session, provider = make_session(
        [{"calls": [("boom", {"text": ""})]}, {"text": "ok"}],
        tools=[Tool(name="boom", parameters=Text, execute=explode)],
    )
    omp_harness.run(session, "go")
    (result,) = results(provider.requests[1])
    assert result.is_error and "disk on fire" in result.content[0].text


def test_tool_updates_stream_before_the_end(make_session, omp_harness):
    def chatty(call_id, params, signal, on_update, ctx):
        for n in range(3):
            on_update(f"line {n}")
        return "finished"

    session, _ = make_session(
        [{"calls": [("chatty", {"text": ""})]}, {"text": "ok"}],
        tools=[Tool(name="chatty", parameters=Text, execute=chatty)],
    )
    events = omp_harness.run(session, "go")
    kinds = [e.type for e in events if e.type.startswith("tool_execution")]
    assert kinds == ["tool_execution_start"] + ["tool_execution_update"] * 3 + [
        "tool_execution_end"
    ]
    updates = [e.partial_result["content"][0]["text"] for e in events.of("tool_execution_update")]
    assert updates == ["line 0", "line 1", "line 2"]


def test_provider_error_ends_the_run_with_an_error_message(make_session, omp_harness):
    session, _ = make_session([{"error": "rate limited by upstream"}])
    events = omp_harness.run(session, "go")
    final = events.of("message_end")[-1].message
    assert final.stop_reason == "error" and final.error_message == "rate limited by upstream"
    assert events.types()[-1] == "agent_end"


def test_cancelling_the_run_during_tools_answers_every_call_once(make_session):
    """What a signal does to a run (omp.runtime.signals cancels its task): the call that finished
    keeps its result, the running and the waiting ones are answered as aborted, each
    once, in the conversation and in the session file, before the run unwinds."""
    import pytest
    from omp.agent.loop import ABORTED_TEXT

    log: list = []
    calls = [
        ("nap", {"seconds": 0, "label": "quick"}),
        ("nap", {"seconds": 30, "label": "slow"}),
        ("solo", {"seconds": 30, "label": "later"}),
    ]
    session, _ = make_session(
        [{"calls": calls}, {"text": "never"}], tools=[nap_tool(log), nap_tool(log, "solo", True)]
    )
    ends: list = []
    session.subscribe(lambda e: ends.append(e) if e.type == "tool_execution_end" else None)

    async def main() -> None:
        run = asyncio.ensure_future(session.prompt("go"))
        while not {("end", "quick"), ("start", "slow")} <= {entry[:2] for entry in log}:
            assert not run.done(), run
            await asyncio.sleep(0.01)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run

    asyncio.run(main())
    stored = [m for m in session.agent.messages if m.role == "toolResult"]
    assert [(m.tool_call_id, m.is_error, content_text(m.content)) for m in stored] == [
        ("call_1_1", False, "quick rested"),
        ("call_1_2", True, ABORTED_TEXT),
        ("call_1_3", True, ABORTED_TEXT),
    ]
    written = [e["message"] for e in session.session_file.entries if e["type"] == "message"]
    assert [m["toolCallId"] for m in written if m["role"] == "toolResult"] == [
        "call_1_1",
        "call_1_2",
        "call_1_3",
    ]
    assert sorted(e.tool_call_id for e in ends) == ["call_1_1", "call_1_2", "call_1_3"]


def test_a_call_left_without_a_result_is_sent_answered(make_session, omp_harness):
    """A conversation holding a call without its result (a session killed during a
    tool) never reaches a provider that way: the call is answered with an error result
    right after it, and a later real result is still sent as it is."""
    from omp.agent.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage

    session, provider = make_session([{"text": "ok"}, {"text": "ok again"}])
    killed = AssistantMessage(
        content=[ToolCall(id="a", name="bash"), ToolCall(id="b", name="read")], model="m"
    )
    answered = ToolResultMessage(
        tool_call_id="b", tool_name="read", content=[TextContent(text="kiwi")]
    )
    session.agent.messages = [UserMessage(content="run it"), killed, answered]
    omp_harness.run(session, "go on", "and on")

    for request in provider.requests:
        sent = [(m.role, getattr(m, "tool_call_id", None)) for m in request.messages]
        assert sent[:5] == [
            ("user", None),
            ("assistant", None),
            ("toolResult", "b"),
            ("toolResult", "a"),
            ("user", None),
        ]
        synthetic = request.messages[3]
        assert synthetic.is_error and "interrupted" in content_text(synthetic.content)
    assert [m.role for m in session.agent.messages[:3]] == ["user", "assistant", "toolResult"]
