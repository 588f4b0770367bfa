"""The SDK: ``omp.runtime.sdk.create_session`` and the public ``AgentSession`` it returns, driven
as an embedder would, against the scripted provider (the harness only isolates the home
and agent directories)."""

from __future__ import annotations

import asyncio
import json

import omp
import pytest
from omp.base.errors import OmpError
from omp.runtime.sdk import create_session
from omp.runtime.sdk_session import AgentSession, SessionChange


def _open(harness, steps, **options):
    options.setdefault("cwd", harness.cwd)
    options.setdefault("session", "memory")
    return create_session(flags={"script": str(harness.script(steps))}, **options)


def test_an_in_memory_session_answers_a_prompt_and_streams_its_events(omp_harness):
    async def main():
        session = await _open(omp_harness, [{"text": "hello there"}, {"text": "again"}])
        assert isinstance(session, AgentSession)
        seen = []
        unsubscribe = session.subscribe(lambda event: seen.append(event.type))
        answer = await session.prompt("hi")
        unsubscribe()
        await session.prompt("more")
        await session.dispose()
        return session, answer, seen

    session, answer, seen = asyncio.run(main())
    assert answer.text == "hello there"
    assert session.session_file is None
    assert [m.role for m in session.messages] == ["user", "assistant", "user", "assistant"]
    assert seen.count("message_end") == 2 and seen[-1] == "agent_end"
    assert "turn_start" in seen and seen.count("agent_start") == 1


def test_async_with_disposes_and_a_disposed_session_says_so(omp_harness):
    async def main():
        async with _open(omp_harness, [{"text": "ok"}]) as session:
            await session.prompt("hi")
        with pytest.raises(OmpError, match=r"^the session was disposed$"):
            await session.prompt("again")

    asyncio.run(main())


def test_a_file_backed_session_continues_opens_by_path_and_resumes_by_id(omp_harness):
    steps = [{"text": "one"}, {"text": "two"}, {"text": "three"}, {"text": "four"}]

    async def main():
        async with _open(omp_harness, steps, session="new") as first:
            await first.prompt("first")
        async with _open(omp_harness, steps, session="continue") as second:
            assert second.session_file == first.session_file
            assert (await second.prompt("second")).text == "two"
        async with _open(omp_harness, steps, session=first.session_file) as third:
            assert len(third.messages) == 4
        async with _open(omp_harness, steps, session=first.session_id[:8]) as fourth:
            assert fourth.session_id == first.session_id
        return first

    first = asyncio.run(main())
    assert first.session_file.is_file()
    assert first.session_file.is_relative_to(omp_harness.agent_dir)
    lines = [json.loads(line) for line in first.session_file.read_text().splitlines()]
    texts = [e["message"]["content"] for e in lines if e.get("message", {}).get("role") == "user"]
    assert texts == ["first", "second"]


def test_follow_up_while_a_prompt_runs_is_answered_in_the_same_run(omp_harness):
    async def main():
        async with _open(omp_harness, [{"text": "first"}, {"text": "second"}]) as session:

            async def on_event(event):
                if event.type == "agent_start":
                    await session.follow_up("and then?")
                    with pytest.raises(OmpError, match="streaming_behavior"):
                        await session.prompt("too soon")

            session.subscribe(on_event)
            answer = await session.prompt("go")
            return answer, [m.role for m in session.messages]

    answer, roles = asyncio.run(main())
    assert answer.text == "second"
    assert roles == ["user", "assistant", "user", "assistant"]


def test_model_and_thinking_level_are_set_through_the_session(omp_harness):
    async def main():
        async with _open(omp_harness, [{"text": "ok"}], thinking="high") as session:
            assert session.thinking_level == "high"
            await session.set_thinking_level("low")
            await session.set_model("scripted/demo")
            with pytest.raises(OmpError, match="nosuch"):
                await session.set_model("nosuch/model")
            with pytest.raises(OmpError, match="unknown thinking level 'huge'"):
                await session.set_thinking_level("huge")
            return session.thinking_level, session.model.key

    assert asyncio.run(main()) == ("low", "scripted/demo")


def test_fork_goes_on_in_a_new_file_and_returns_the_forked_prompt(omp_harness):
    async def main():
        async with _open(omp_harness, [{"text": "a"}], session="new") as session:
            await session.prompt("edit me")
            before = session.session_file
            lines = [json.loads(line) for line in before.read_text().splitlines()]
            [user] = [e for e in lines if e.get("message", {}).get("role") == "user"]
            change = await session.fork(user["id"])
            return before, session.session_file, change, session.messages

    before, after, change, messages = asyncio.run(main())
    assert change == SessionChange(cancelled=False, editor_text="edit me")
    assert after != before and after.is_file()
    assert messages == []


def test_plugins_names_the_installed_plugins_and_tools_the_active_tools(omp_harness):
    class Seen:
        def __init__(self):
            self.started = 0

        @omp.hookimpl
        def omp_session_start(self, ctx):
            self.started += 1

    seen = Seen()

    async def main():
        async with _open(
            omp_harness,
            [{"text": "ok"}],
            plugins=["scripted", "read", "bash"],
            extra_plugins=[seen],
            tools=["read"],
        ) as session:
            await session.prompt("hi")
            return session._session.tools.active_names(), sorted(session._session.tools.names())

    active, every = asyncio.run(main())
    assert active == ["read"]
    assert every == ["bash", "read"]
    assert seen.started == 1


def test_settings_are_discovered_given_or_only_given(omp_harness):
    (omp_harness.agent_dir / "settings.json").write_text('{"defaultThinkingLevel": "high"}')

    async def level(**options):
        async with _open(omp_harness, [{"text": "ok"}], **options) as session:
            return session.thinking_level

    assert asyncio.run(level()) == "high"
    assert asyncio.run(level(settings={"steeringMode": "all"})) == "high"
    assert asyncio.run(level(discover_settings=False)) == "off"
    given = {"defaultThinkingLevel": "low"}
    assert asyncio.run(level(settings=given, discover_settings=False)) == "low"


@pytest.mark.parametrize(
    "options, message",
    [
        ({"model": "nosuch/model"}, "nosuch"),
        ({"plugins": ["scripted", "nope"]}, r"no installed plugin is named 'nope'"),
        ({"tools": ["nope"]}, r"unknown tool\(s\): nope"),
        ({"settings": {"defaultThinkingLevel": 3}}, "invalid value"),
        ({"cwd": "/nonexistent/omp-sdk"}, "is not a directory"),
        ({"thinking": "huge"}, "unknown thinking level"),
    ],
)
def test_bad_options_are_one_line_omp_errors(omp_harness, options, message):
    async def main():
        await _open(omp_harness, [{"text": "ok"}], **options)

    with pytest.raises(OmpError, match=message) as caught:
        asyncio.run(main())
    assert "\n" not in str(caught.value)


def test_an_unknown_flag_names_the_flags_there_are(omp_harness):
    async def main():
        await create_session(cwd=omp_harness.cwd, session="memory", flags={"scrpit": "x"})

    with pytest.raises(OmpError, match=r"unknown flag 'scrpit' \(plugin flags: .*script"):
        asyncio.run(main())


def test_abort_from_a_listener_ends_the_answer_and_keeps_the_reason(omp_harness):
    async def main():
        async with _open(omp_harness, [{"delay": 60, "text": "never"}]) as session:

            def on_event(event):
                if event.type == "message_start":
                    session.abort("enough")

            session.subscribe(on_event)
            answer = await session.prompt("go")
            await session.wait_for_idle()
            return answer, session.abort_reason

    answer, reason = asyncio.run(main())
    assert answer.stop_reason == "aborted"
    assert reason == "enough"


def test_usage_totals_count_the_answers(omp_harness):
    steps = [{"text": "a", "usage": {"input": 10, "output": 5}}, {"text": "b"}]

    async def main():
        async with _open(omp_harness, steps) as session:
            await session.prompt("one")
            await session.prompt("two")
            return session.usage_totals()

    totals = asyncio.run(main())
    assert totals.requests == 2
    assert totals.input >= 10 and totals.output >= 5
    assert totals.tokens == totals.input + totals.output + totals.cache_read + totals.cache_write


def test_steer_during_a_tool_reaches_the_model_after_that_tool(omp_harness):
    (omp_harness.cwd / "notes.txt").write_text("some notes\n")
    steps = [
        {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
        {"when": "stop reading", "text": "stopped as asked"},
    ]

    async def main():
        async with _open(omp_harness, steps, plugins=["scripted", "read"]) as session:

            async def on_event(event):
                if event.type == "tool_execution_start":
                    await session.steer("stop reading")

            session.subscribe(on_event)
            answer = await session.prompt("read my notes")
            return answer, [(m.role, getattr(m, "content", None)) for m in session.messages]

    answer, messages = asyncio.run(main())
    assert answer.text == "stopped as asked"
    assert [role for role, _ in messages] == [
        "user",
        "assistant",
        "toolResult",
        "user",
        "assistant",
    ]
    assert messages[3][1] == "stop reading"


def test_a_plugin_that_fails_to_register_is_a_warning_notice(omp_harness):
    class Broken:
        @omp.hookimpl
        def omp_register_tools(self, api):
            raise RuntimeError("no tools today")

    async def main():
        async with _open(omp_harness, [{"text": "ok"}], extra_plugins=[Broken()]) as session:
            notices = []
            session.subscribe(
                lambda e: notices.append((e.level, e.message)) if e.type == "notice" else None
            )
            await session.prompt("hi")
            return notices

    notices = asyncio.run(main())
    assert any(
        level == "warning" and "Broken" in text and "no tools today" in text
        for level, text in notices
    ), notices
