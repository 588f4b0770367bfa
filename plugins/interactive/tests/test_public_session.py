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


def test_fork_and_resume_wait_for_the_answer_to_end(omp_harness, capsys):
    """Picking a session to fork or resume while an answer streams would switch the
    session under it: both say so in one notice and leave the session as it is."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    inner = omp_harness.session(builtins=["interactive"], script=[{"text": "slow", "delay": 30}])
    session = omp.AgentSession(inner)
    request = SimpleNamespace(prompts=["take your time"], pick_session=False)

    async def body() -> list[str]:
        started = asyncio.Event()
        session.subscribe(lambda event: started.set() if event.type == "turn_start" else None)
        with create_pipe_input() as pipe, create_app_session(pipe, DummyOutput()):
            app = InteractiveApp(session, request)
            notices: list[str] = []
            real_notify = app.notify
            app.notify = lambda message, level="info": (  # type: ignore[method-assign]
                notices.append(message),
                real_notify(message, level),
            )[-1]
            running = asyncio.ensure_future(app.run())
            await started.wait()
            before = session.session_id
            for command in ("/fork", "/resume"):  # a picker opened instead would wait for keys
                await asyncio.wait_for(app.commands.run(command), 10)
            assert session.session_id == before and session.is_streaming
            session.abort()
            await session.wait_for_idle()
            app.exit()
            await running
        await session.dispose()
        return notices

    notices = asyncio.run(body())
    assert "/fork waits for the answer to end (Esc stops it)" in notices
    assert "/resume waits for the answer to end (Esc stops it)" in notices
