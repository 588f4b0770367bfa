"""Replacing a tool another plugin registers (issue 25, gap 2): only a tool that declares
``overrides`` replaces one; it wins whatever order the plugins load in, and the tool it
replaced stays reachable for delegation. An undeclared clash is refused naming both."""

from __future__ import annotations

import asyncio

import omp
import pytest
from omp.agent.tools import Tool
from pydantic import BaseModel


class Query(BaseModel):
    q: str = ""


class Base:
    """A plugin registering the ``lookup`` tool."""

    @omp.hookimpl
    def omp_register_tools(self, api):
        return [Tool(name="lookup", parameters=Query, execute=lambda *a: "base answer")]


class Guard:
    """A plugin replacing ``lookup``: it refuses secrets and delegates the rest."""

    @omp.hookimpl
    def omp_register_tools(self, api):
        def execute(call_id, params, signal, on_update, ctx):
            if "secret" in params.q:
                return omp.agent.tools.ToolResult.error("blocked by guard")
            original = ctx.api.get_tool("lookup", overridden=True)
            inner = original.execute(call_id, params, signal, on_update, ctx)
            return f"guarded: {inner}"

        return [Tool(name="lookup", parameters=Query, execute=execute, overrides="lookup")]


class Other:
    """A plugin registering another ``lookup`` without declaring an override."""

    @omp.hookimpl
    def omp_register_tools(self, api):
        return [Tool(name="lookup", parameters=Query, execute=lambda *a: "other answer")]


def _lookups(omp_harness, plugins, *queries):
    calls = [
        {"name": "lookup", "arguments": {"q": q}, "id": f"c{i}"} for i, q in enumerate(queries)
    ]
    session = omp_harness.session(
        plugins, script=[{"tool_calls": calls}, {"text": "done"}], builtins=[]
    )
    log = omp_harness.run(session, "go")
    ends = sorted(log.of("tool_execution_end"), key=lambda e: e.tool_call_id)
    return [(text_of(e.result), e.is_error) for e in ends], session


def text_of(result) -> str:
    return "".join(block.text for block in result["content"])


def test_an_undeclared_clash_is_refused_in_one_line_naming_both_plugins(omp_harness):
    runtime = omp_harness.runtime([Base(), Other()], builtins=[])
    [problem] = [p for p in runtime.contributions.problems if "lookup" in p]
    assert "\n" not in problem
    assert "tool 'lookup' is registered by both Base and Other" in problem
    assert "Other's is refused" in problem and "overrides='lookup'" in problem
    # The agent stays usable with the tool of the plugin that loaded first.
    results, _ = _lookups(omp_harness, [Base(), Other()], "x")
    assert results == [("base answer", False)]


@pytest.mark.parametrize("order", ["base first", "guard first"])
def test_a_declared_override_wins_whatever_the_load_order(omp_harness, order):
    plugins = [Base(), Guard()] if order == "base first" else [Guard(), Base()]
    runtime = omp_harness.runtime(plugins, builtins=[])
    assert not [p for p in runtime.contributions.problems if "lookup" in p]
    results, session = _lookups(omp_harness, plugins, "public", "my secret")
    assert results == [("guarded: base answer", False), ("blocked by guard", True)]
    assert session.api.get_tool("lookup") is not session.api.get_tool("lookup", overridden=True)
    assert session.api.get_tool("nothing", overridden=True) is None


def test_an_override_delegates_to_the_built_in_read_tool(omp_harness):
    from omp_tool_read.tool import ReadParams

    class ReadGuard:
        @omp.hookimpl
        def omp_register_tools(self, api):
            def execute(call_id, params, signal, on_update, ctx):
                if params.path.endswith(".env"):
                    return omp.agent.tools.ToolResult.error("read-guard: .env files are private")
                return ctx.api.get_tool("read", overridden=True).execute(
                    call_id, params, signal, on_update, ctx
                )

            return [Tool(name="read", parameters=ReadParams, execute=execute, overrides="read")]

    (omp_harness.cwd / "notes.txt").write_text("hello notes\n")
    (omp_harness.cwd / ".env").write_text("KEY=hunter2\n")
    calls = [
        {"name": "read", "arguments": {"path": "notes.txt"}, "id": "notes"},
        {"name": "read", "arguments": {"path": ".env"}, "id": "env"},
    ]
    session = omp_harness.session(
        [ReadGuard()], script=[{"tool_calls": calls}, {"text": "ok"}], builtins=["read"]
    )
    log = omp_harness.run(session, "go")
    ends = {e.tool_call_id: e for e in log.of("tool_execution_end")}
    assert "hello notes" in text_of(ends["notes"].result) and not ends["notes"].is_error
    assert text_of(ends["env"].result) == "read-guard: .env files are private"
    assert "hunter2" not in str([e.result for e in ends.values()])


def test_two_overrides_of_one_tool_are_refused_naming_both(omp_harness):
    class Guard2(Guard):
        pass

    runtime = omp_harness.runtime([Base(), Guard(), Guard2()], builtins=[])
    [problem] = [p for p in runtime.contributions.problems if "lookup" in p]
    assert "tool 'lookup' is overridden by both Guard and Guard2; Guard2's is refused" in problem


def test_an_override_must_keep_the_name_it_replaces(omp_harness):
    class Renamed:
        @omp.hookimpl
        def omp_register_tools(self, api):
            return [Tool(name="find2", parameters=Query, execute=str, overrides="lookup")]

    runtime = omp_harness.runtime([Base(), Renamed()], builtins=[])
    [problem] = [p for p in runtime.contributions.problems if "find2" in p]
    assert "tool 'find2' of plugin Renamed declares overrides='lookup'" in problem
    assert {r.name: r.status for r in runtime.host.records}["Renamed"] == "degraded"
    assert [t.name for t in runtime.contributions.of("tools")] == ["lookup"]


def test_an_override_registered_while_the_session_runs_replaces_and_gives_back(omp_harness):
    class LateGuard:
        @omp.hookimpl
        def omp_session_start(self, event, ctx):
            ctx.api.register_tool(Guard().omp_register_tools(None)[0])

    session = omp_harness.session([Base(), LateGuard()], script=[{"text": "ok"}], builtins=[])
    asyncio.run(session.start())
    base = session.api.get_tool("lookup", overridden=True)
    assert base is not None and session.api.get_tool("lookup").overrides == "lookup"
    session.api.unregister_tool("lookup")
    assert session.api.get_tool("lookup") is base
    assert session.api.get_tool("lookup", overridden=True) is None
    assert "lookup" in session.api.get_active_tools()
    try:
        session.api.register_tool(Tool(name="lookup", parameters=Query, execute=str))
    except omp.base.errors.OmpError as exc:
        assert "declare overrides='lookup'" in str(exc)
    else:
        raise AssertionError("an undeclared second 'lookup' must be refused")
