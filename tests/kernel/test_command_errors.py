"""A slash command that fails is its plugin's failure: an ``extension_error`` naming the
plugin and the command, one line for the user, and the session goes on (issue 25,
gap 9)."""

from __future__ import annotations

import asyncio

import omp
import pytest
from omp.base.errors import OmpError
from omp.plugin.contrib import Command
from omp.testing import EventLog


class Broken:
    @omp.hookimpl
    def omp_register_commands(self, api):
        def boom(args, ctx):
            raise RuntimeError(f"kaboom {args}\nsecond line")

        async def refuse(args, ctx):
            raise OmpError("nothing to refuse")

        return [Command("boom", "fails", boom), Command("refuse", "refuses", refuse)]


def test_a_failing_command_is_reported_as_its_plugins_error(make_session, omp_harness):
    session, provider = make_session([{"text": "still here"}], plugins=[Broken()])
    log = EventLog()
    session.subscribe(log.append)
    seen: dict = {}

    async def scenario():
        await session.start()
        await session.prompt("/boom now")  # returns: the failure is reported
        seen["abort_message"] = session.abort_message
        await session.prompt("hello")
        await session.shutdown()

    asyncio.run(scenario())
    [error] = log.of("extension_error")
    assert (error.extension_name, error.event) == ("Broken", "command /boom")
    assert error.error == "RuntimeError: kaboom now"
    assert seen["abort_message"] == "/boom failed: RuntimeError: kaboom now"
    assert log.final_text() == "still here"  # the session goes on
    assert len(provider.requests) == 1  # the command never reached the model


def test_a_command_refusing_its_input_is_the_users_error_not_a_plugin_failure(
    make_session, omp_harness
):
    session, _ = make_session([], plugins=[Broken()])
    log: list = []
    session.subscribe(log.append)
    with pytest.raises(OmpError, match="nothing to refuse"):
        asyncio.run(session.prompt("/refuse"))
    assert [e for e in log if e.type == "extension_error"] == []


def test_a_command_of_a_plugin_module_names_that_plugin(make_session, omp_harness):
    import types

    module = types.ModuleType("omp_test_broken_commands")

    def fail(args, ctx):
        raise ValueError("bad")

    fail.__module__ = module.__name__
    module.omp_register_commands = omp.hookimpl(lambda api: [Command("fail", "x", fail)])
    session, _ = make_session([], plugins=[module])
    log = omp_harness.run(session, "/fail")
    [error] = log.of("extension_error")
    assert error.extension_name == "omp_test_broken_commands"
    assert error.event == "command /fail" and error.error == "ValueError: bad"
