"""The interactive mode is a client of the public ``omp.AgentSession``, as ACP, print and
json are: the CLI hands it that session, and the application runs on it (a scripted
answer drawn, the footer counting its tokens) without reaching into the kernel's own
session object."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import omp
from omp_mode_interactive.app import InteractiveApp
from omp_mode_interactive.render.width import strip_ansi
from omp_mode_interactive.terminal_ui import TerminalUI


def test_the_interactive_mode_asks_for_the_public_session(omp_harness):
    runtime = omp_harness.runtime(builtins=["interactive", "scripted"])
    mode = runtime.modes["interactive"]
    assert mode.public_session
    assert mode.make_ui is None  # its terminal UI is attached by the mode itself


def test_the_application_answers_a_prompt_on_the_public_session(omp_harness, capsys):
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    inner = omp_harness.session(
        builtins=["interactive"], script=[{"text": "hello from the public session"}]
    )
    session = omp.AgentSession(inner)
    request = SimpleNamespace(prompts=["say hello"], pick_session=False)

    async def body() -> tuple[int, str]:
        ended = asyncio.Event()
        session.subscribe(lambda event: ended.set() if event.type == "agent_end" else None)
        with create_pipe_input() as pipe, create_app_session(pipe, DummyOutput()):
            app = InteractiveApp(session, request)
            running = asyncio.ensure_future(app.run())
            await ended.wait()
            await session.wait_for_idle()
            await app.commands.run("/session")
            footer = strip_ansi(app.footer_text())
            app.exit()
            code = await running
        await session.dispose()
        return code, footer

    code, footer = asyncio.run(body())
    printed = strip_ansi(capsys.readouterr().out)
    assert code == 0
    assert "say hello" in printed and "hello from the public session" in printed
    assert f"id: {session.session_id}" in printed and "messages: 1 assistant, 1 user" in printed
    assert "scripted/demo" in footer
    assert isinstance(session.context.ui, TerminalUI)  # plugins' dialogs open in the app
