"""Per-session plugin state and the per-session api: two sessions in one process never
see each other's state, and a tool reaches the api through ctx (issue 9, item 7)."""

from __future__ import annotations

import asyncio

import omp
from omp.agent.tools import Tool
from pydantic import BaseModel


class Note(BaseModel):
    text: str


class Counter:
    """A stateful plugin with no module globals: a tool that counts its own calls per
    session and records each in that session's file through ctx.api."""

    @omp.hookimpl
    def omp_register_tools(self):
        def execute(call_id, params, signal, update, ctx):
            state = ctx.state.setdefault("counter", {"notes": []})
            state["notes"].append(params.text)
            ctx.api.append_entry("counter-note", {"text": params.text})
            return f"{len(state['notes'])} notes: {', '.join(state['notes'])}"

        return [Tool(name="note", description="Keep a note.", parameters=Note, execute=execute)]

    @omp.hookimpl
    def omp_session_start(self, ctx):
        ctx.state["counter"] = {"notes": []}


def _step(n: int) -> dict:
    """Request ``n`` of either session, told apart by the text since the model's last
    reply: the prompt ("go a"), then the tool's previous result ("... a1", "... a2")."""
    choices = []
    for word in ("a", "b"):
        when = f"go {word}" if n == 1 else f"{word}{n - 1}"
        if n < 3:
            call = {"name": "note", "arguments": {"text": f"{word}{n}"}}
            choices.append({"when": when, "tool_calls": [call], "delay": 0.05})
        else:
            choices.append({"when": when, "text": f"{word} done"})
    return {"choose": choices}


SCRIPT = [_step(1), _step(2), _step(3)]


def test_two_concurrent_sessions_keep_their_own_state_and_entries(omp_harness):
    runtime = omp_harness.runtime([Counter()])
    first = omp_harness.session(runtime=runtime, script=SCRIPT, no_session=False)
    second = omp_harness.session(runtime=runtime, script=SCRIPT, no_session=False)

    async def both():
        return await asyncio.gather(
            omp_harness.arun(first, "go a"), omp_harness.arun(second, "go b")
        )

    logs = asyncio.run(both())
    for word, log, session in (("a", logs[0], first), ("b", logs[1], second)):
        results = [
            "".join(b.text for b in e.result["content"]) for e in log.of("tool_execution_end")
        ]
        assert results == [f"1 notes: {word}1", f"2 notes: {word}1, {word}2"]
        entries = [
            e["data"]["text"]
            for e in session.session_file.entries
            if e.get("type") == "custom" and e.get("customType") == "counter-note"
        ]
        assert entries == [f"{word}1", f"{word}2"]


class Empty(BaseModel):
    pass


def _tool(name: str) -> Tool:
    return Tool(name=name, description=f"{name} tool", parameters=Empty, execute=lambda *a: name)


class Scoped:
    """Registers a tool and a command per session and one tool for the process, keeps
    state in ctx.state (the session's) and api.process_state (the process's)."""

    @omp.hookimpl
    def omp_register_tools(self, api):
        api.process_state["scoped-loads"] = api.process_state.get("scoped-loads", 0) + 1
        return [_tool("from_hook")]

    @omp.hookimpl
    def omp_register_commands(self, api):
        from omp.plugin.contrib import Command

        def add(args, ctx):
            ctx.api.register_tool(_tool(f"session_{args}"))
            ctx.api.register_command(Command(f"cmd_{args}", "per session", lambda a, c: None))
            if args == "1":
                ctx.api.register_tool(_tool("process_wide"), scope="process")
            ctx.state["scoped"] = args
            ctx.api.process_state.setdefault("scoped-adds", []).append(args)

        async def new(args, ctx):
            await ctx.new_session()

        return [Command("add", "add tools", add), Command("new", "new session", new)]


def _names(session) -> set[str]:
    return {t["name"] for t in session.api.get_all_tools()}


def test_runtime_tools_and_state_end_with_their_session(omp_harness):
    session = omp_harness.session([Scoped()])
    seen: dict = {}

    async def scenario():
        await session.start()
        await session.prompt("/add 1")
        seen["during"] = _names(session), set(session.api.get_commands())
        await session.prompt("/new")
        seen["after"] = _names(session), set(session.api.get_commands())
        seen["state"] = dict(session.plugin_state)
        await session.prompt("/add 2")  # the same names can be registered again
        await session.shutdown()

    asyncio.run(scenario())
    tools, commands = seen["during"]
    assert {"from_hook", "session_1", "process_wide"} <= tools and "cmd_1" in commands
    tools, commands = seen["after"]
    assert {"from_hook", "process_wide"} <= tools
    assert "session_1" not in tools and "cmd_1" not in commands
    assert "scoped" not in seen["state"]  # ctx.state is the session's
    assert {"session_2", "process_wide"} <= _names(session)
    assert session.api.process_state["scoped-adds"] == ["1", "2"]  # the process's
    assert session.api.process_state["scoped-loads"] == 1


def test_process_state_is_shared_by_the_sessions_of_a_process(omp_harness):
    runtime = omp_harness.runtime([Scoped()])
    first = omp_harness.session(runtime=runtime)
    second = omp_harness.session(runtime=runtime)
    first.plugin_state["mine"] = 1
    first.api.process_state["shared"] = 1
    assert second.api.process_state["shared"] == 1
    assert "mine" not in second.plugin_state
    assert runtime.api.process_state is first.api.process_state


def test_an_unknown_tool_scope_is_an_error(omp_harness):
    import pytest
    from omp.base.errors import OmpError

    session = omp_harness.session([Scoped()])
    with pytest.raises(OmpError, match="scope must be 'session' or 'process'"):
        session.api.register_tool(_tool("x"), scope="forever")
