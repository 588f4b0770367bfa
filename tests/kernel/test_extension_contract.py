"""The extension contract, item by item (issue 9): what a plugin author ported from omp
expects to work."""

from __future__ import annotations

import omp
import pytest
from omp.agent.tools import Tool
from omp.base.errors import OmpError
from pydantic import BaseModel


class Empty(BaseModel):
    pass


def _tool(name: str, reply: str) -> Tool:
    return Tool(name=name, description=f"{name} tool", parameters=Empty, execute=lambda *a: reply)


def test_get_system_prompt_is_the_prompt_after_before_agent_start(make_session, omp_harness):
    seen: dict = {}

    class Pirate:
        @omp.hookimpl
        def omp_before_agent_start(self, event):
            return {"system_prompt": [*event.system_prompt, "Speak like a pirate."]}

        @omp.hookimpl
        def omp_turn_start(self, ctx):
            seen["prompt"] = ctx.get_system_prompt()

    session, provider = make_session([{"text": "arr"}], plugins=[Pirate()])
    omp_harness.run(session, "hello")
    assert seen["prompt"][-1] == "Speak like a pirate."
    assert provider.requests[0].system_prompt.endswith("Speak like a pirate.")


def test_tools_register_and_unregister_while_the_session_runs(make_session, omp_harness):
    calls: list[str] = []

    class Late:
        @omp.hookimpl
        def omp_session_start(self, api):
            api.register_tool(_tool("late", "late says hi"))

        @omp.hookimpl
        def omp_tool_call(self, event):
            calls.append(event.tool_name)

        @omp.hookimpl
        def omp_tool_result(self, event, api):
            if event.tool_name == "late":
                api.unregister_tool("late")

    session, provider = make_session(
        [{"calls": [("late", {})]}, {"calls": [("late", {})]}, {"text": "ok"}], plugins=[Late()]
    )
    log = omp_harness.run(session, "go")
    offered = [[t["name"] for t in request.tools] for request in provider.requests]
    assert "late" in offered[0] and "late" not in offered[1]
    assert calls == ["late"]  # the second call finds no such tool, so no hook runs
    results = ["".join(b.text for b in e.result["content"]) for e in log.of("tool_execution_end")]
    assert results[0] == "late says hi"
    assert "not found" in results[1]


def test_registering_a_tool_twice_or_a_non_tool_is_an_error(make_session):
    session, _ = make_session([])
    session.api.register_tool(_tool("once", "x"))
    with pytest.raises(OmpError, match="already registered"):
        session.api.register_tool(_tool("once", "x"))
    with pytest.raises(OmpError, match=r"takes an omp\.Tool,"):
        session.api.register_tool("not a tool")
    with pytest.raises(OmpError, match="no tool named"):
        session.api.unregister_tool("never")


def test_commands_register_and_unregister_while_the_session_runs(make_session, omp_harness):
    from omp.plugin.contrib import Command

    def hello(args, ctx):
        ctx.ui.notify(f"hello {args}")

    session, _ = make_session([])
    session.api.register_command(Command(name="hello", description="greets", handler=hello))
    log = omp_harness.run(session, "/hello there")
    assert [e.message for e in log.of("notice")] == ["hello there"]
    session.api.unregister_command("hello")
    assert "hello" not in session.api.get_commands()
    with pytest.raises(OmpError, match="no command named /hello"):
        session.api.unregister_command("hello")
    with pytest.raises(OmpError, match="not registered with register_command"):
        session.api.unregister_command("compact")  # a built-in stays


def test_tool_definitions_carry_renderers_approval_and_default_inactive():
    tool = Tool(
        name="t",
        parameters=Empty,
        execute=lambda *a: "x",
        hidden=True,
        requires_approval=True,
        render_call=lambda args, options: ["call"],
        render_result=lambda result, options: ["result"],
    )
    assert tool.hidden and tool.requires_approval
    assert tool.render_call({}, {}) == ["call"] and tool.render_result({}, {}) == ["result"]
