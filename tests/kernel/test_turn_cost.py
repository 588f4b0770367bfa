"""A turn's work does not grow with the conversation (issue 10): counted by calls and
objects, not timed. Request N converts only the messages added since request N-1, and
the run's abort signal does not collect a listener for every turn."""

from __future__ import annotations

import omp.agent.loop
from omp.agent.messages import UserMessage
from omp.agent.tools import Tool
from pydantic import BaseModel
from test_loop import echo_tool

TURNS = 30


class Empty(BaseModel):
    pass


def tool_turns(count: int, record) -> list:
    """``count`` replies each calling ``echo``, then an answer; ``record(context)`` runs
    as each request is answered."""

    def reply(context):
        record(context)
        return {"calls": [("echo", {"text": "x"})]}

    return [reply] * count + [{"text": "done"}]


def test_each_request_converts_only_the_new_messages(make_session, omp_harness, monkeypatch):
    converted: list[int] = []
    real = omp.agent.loop.convert_to_llm

    def counting(messages):
        converted[-1] += len(messages)
        return real(messages)

    monkeypatch.setattr(omp.agent.loop, "convert_to_llm", counting)
    seen: list[int] = []
    session, _ = make_session(
        tool_turns(TURNS, lambda context: seen.append(len(context.messages))),
        tools=[echo_tool()],
    )

    original = omp.agent.loop.Agent._stream_assistant

    async def counted(self):
        converted.append(0)
        return await original(self)

    monkeypatch.setattr(omp.agent.loop.Agent, "_stream_assistant", counted)
    omp_harness.run(session, "go")
    assert seen[-1] == 1 + 2 * (TURNS - 1)  # the prompt, a call and its result per turn
    assert len(converted) == TURNS + 1
    assert max(converted[2:]) <= 2, converted  # the last call and its result


def test_a_changed_conversation_is_converted_afresh(make_session, omp_harness):
    """A context handler that changes an early message from the second request on:
    that request carries the changed message, not what was converted before."""
    changed = {"on": False}

    class Rewrite:
        @omp.hookimpl
        def omp_context(self, event):
            if changed["on"]:
                event.messages[0].content = "rewritten prompt"
            return {"messages": event.messages}

    def first(context):
        changed["on"] = True
        return {"calls": [("echo", {"text": "x"})]}

    session, provider = make_session(
        [first, {"text": "done"}], tools=[echo_tool()], plugins=[Rewrite()]
    )
    omp_harness.run(session, "go")
    assert provider.requests[0].messages[0].content != "rewritten prompt"
    assert provider.requests[1].messages[0].content == "rewritten prompt"
    assert isinstance(provider.requests[1].messages[0], UserMessage)


def test_the_runs_signal_keeps_no_listener_per_turn(make_session, omp_harness):
    listeners: list[int] = []
    holder: dict = {}

    def record(context):
        listeners.append(len(holder["session"].agent.signal._listeners))

    session, _ = make_session(tool_turns(TURNS, record), tools=[echo_tool(), noop_tool()])
    holder["session"] = session
    omp_harness.run(session, "go")
    assert len(listeners) == TURNS
    assert listeners[-1] == listeners[1], listeners


def noop_tool() -> Tool:
    return Tool(name="noop", parameters=Empty, execute=lambda cid, p, s, u, c: "ok")
