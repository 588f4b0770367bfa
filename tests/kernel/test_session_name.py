"""A session's name from any handler (pi's setSessionName/getSessionName): the api and
ctx of every hook and tool set and read it, persisted as a ``session_info`` entry that
listings show (issue 25, gap 12)."""

from __future__ import annotations

import asyncio

import omp
import pytest
from omp.agent.tools import Tool
from omp.base.errors import OmpError, RuntimeNotReadyError
from omp.session.listing import session_info
from pydantic import BaseModel


class Title(BaseModel):
    title: str


class Namer:
    """Names the session after its first turn (an event hook, through api) and lets the
    model rename it (a tool, through ctx); records what it reads back."""

    seen: list = []

    @omp.hookimpl
    def omp_register_tools(self, api):
        with pytest.raises(RuntimeNotReadyError):
            api.set_session_name("too early")

        def rename(call_id, params, signal, update, ctx):
            return f"named {ctx.set_session_name(params.title)!r}"

        return [Tool(name="rename", description="Rename", parameters=Title, execute=rename)]

    @omp.hookimpl
    def omp_turn_end(self, api, ctx):
        if api.get_session_name() is None:
            api.set_session_name("  first   turn  ")
        Namer.seen.append(ctx.get_session_name())


def test_any_handler_names_the_session_and_the_file_keeps_it(make_session, omp_harness):
    Namer.seen = []
    path = omp_harness.cwd / "named.jsonl"
    session, _ = make_session(
        [{"text": "hi"}, {"calls": [("rename", {"title": "Auth refactor"})]}, {"text": "ok"}],
        plugins=[Namer()],
        session_path=str(path),
    )
    log = omp_harness.run(session, "one", "two")
    assert Namer.seen == ["first turn", "Auth refactor", "Auth refactor"]
    [result] = log.of("tool_execution_end")
    assert result.result["content"][0].text == "named 'Auth refactor'"
    names = [e["name"] for e in session.session_file.entries if e["type"] == "session_info"]
    assert names == ["first turn", "Auth refactor"]
    assert session_info(path).name == "Auth refactor"


def test_an_empty_name_is_refused(make_session):
    session, _ = make_session([])
    asyncio.run(session.start())
    with pytest.raises(OmpError, match="a session name cannot be empty"):
        session.api.set_session_name("   ")
    with pytest.raises(OmpError, match="a session name cannot be empty"):
        session.context.set_session_name("")
    assert session.api.get_session_name() is None
