"""What a client in front of the public ``omp.AgentSession`` tunes and runs besides
prompting (``omp.runtime.sdk_controls``): queue modes, automatic compaction and retry,
queueing without starting a prompt, slash commands, the prompt's source, a new
session's parent. Driven as an embedder would, against the scripted provider."""

from __future__ import annotations

import asyncio

import omp
import pytest
from omp import Command, OmpError


class Recorder:
    """Records the input hooks' sources and offers two slash commands."""

    def __init__(self) -> None:
        self.sources: list[str] = []
        self.ran: list[str] = []

    @omp.hookimpl
    def omp_input(self, event):
        self.sources.append(event.source)

    @omp.hookimpl
    def omp_register_commands(self, api):
        def good(args, ctx):
            self.ran.append(args)

        def broken(args, ctx):
            raise RuntimeError("it broke")

        return [Command("good", "works", good), Command("broken", "fails", broken)]


def _open(harness, steps, **options):
    options.setdefault("cwd", harness.cwd)
    options.setdefault("session", "memory")
    options.setdefault("plugins", ["scripted"])
    return omp.create_session(flags={"script": str(harness.script(steps))}, **options)


def test_queue_modes_and_automatic_compaction_and_retry_are_set_for_the_session(omp_harness):
    async def main():
        async with await _open(omp_harness, [{"text": "ok"}]) as session:
            defaults = (session.steering_mode, session.follow_up_mode, session.interrupt_mode)
            flags = (session.auto_compaction_enabled, session.auto_retry_enabled)
            session.steering_mode = "all"
            session.follow_up_mode = "all"
            session.interrupt_mode = "wait"
            session.auto_compaction_enabled = False
            session.auto_retry_enabled = False
            with pytest.raises(OmpError, match="unknown steering mode 'sometimes'"):
                session.steering_mode = "sometimes"  # type: ignore[assignment]
            return defaults, flags, session

    defaults, flags, session = asyncio.run(main())
    assert defaults == ("one-at-a-time", "one-at-a-time", "immediate")
    assert flags == (True, True)
    assert (session.steering_mode, session.follow_up_mode, session.interrupt_mode) == (
        "all",
        "all",
        "wait",
    )
    assert session.settings.get("compaction.enabled") is False
    assert session.settings.get("retry.enabled") is False


def test_a_queued_message_waits_for_the_next_prompt_and_rpc_is_its_source(omp_harness):
    recorder = Recorder()

    async def main():
        steps = [{"text": "first"}, {"text": "second"}]
        async with await _open(omp_harness, steps, extra_plugins=[recorder]) as session:
            session.queue("also this", deliver_as="followUp")
            queued = [m.content for m in session.queued_messages]
            await session.prompt("hi", source="rpc")
            users = [m for m in session.messages if m.role == "user"]
            return queued, [omp.content_text(m.content) for m in users]

    queued, users = asyncio.run(main())
    assert queued == ["also this"]
    assert users == ["hi", "also this"]
    assert recorder.sources == ["rpc"]


def test_run_command_runs_a_slash_command_and_says_why_it_failed(omp_harness):
    recorder = Recorder()
    errors = []

    async def main():
        async with await _open(omp_harness, [{"text": "ok"}], extra_plugins=[recorder]) as session:
            session.subscribe(lambda e: errors.append(e) if e.type == "extension_error" else None)
            await session.run_command("good", "some args")
            with pytest.raises(OmpError, match=r"^/broken failed: .*it broke"):
                await session.run_command("broken")
            with pytest.raises(OmpError, match="no slash command /missing"):
                await session.run_command("missing")

    asyncio.run(main())
    assert recorder.ran == ["some args"]
    assert [e.error for e in errors] == ["RuntimeError: it broke"]


def test_a_new_session_records_its_parent(omp_harness):
    parent = omp_harness.root / "parent.jsonl"

    async def main():
        async with await _open(omp_harness, [{"text": "ok"}], session="new") as session:
            change = await session.new(parent_session=parent)
            return change, session.header

    change, header = asyncio.run(main())
    assert change.cancelled is False
    assert header["parentSession"] == str(parent)
