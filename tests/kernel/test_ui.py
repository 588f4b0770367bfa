"""The UI context: awaitable dialogs with timeout and cancel, decorations, and the
no-UI defaults of print and JSON modes (issue 9, item 6)."""

from __future__ import annotations

import asyncio
import time

import omp
import pytest
from omp.base.abort import AbortSignal
from omp.runtime.ui import UI, NullUI, StderrUI
from omp.testing import ScriptedUI


class Slow(UI):
    """A UI whose user takes ``delay`` seconds to pick the first option."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    async def _ask_select(self, title, options):
        await asyncio.sleep(self.delay)
        return options[0]

    async def _ask_confirm(self, title, message):
        await asyncio.sleep(self.delay)
        return True


@pytest.mark.parametrize("ui", [NullUI(), StderrUI()])
def test_without_a_ui_every_dialog_returns_its_default_at_once(ui):
    async def ask():
        started = time.monotonic()
        answers = (
            await ui.select("pick", ["a", "b"]),
            await ui.confirm("sure?"),
            await ui.input("name"),
            await ui.editor("text", "prefill"),
        )
        return answers, time.monotonic() - started

    answers, took = asyncio.run(ask())
    assert answers == (None, False, None, None)
    assert took < 0.5


def test_a_dialog_answers_when_the_user_does():
    assert asyncio.run(Slow(0.01).select("pick", ["a", "b"], timeout=5)) == "a"
    assert asyncio.run(Slow(0.01).confirm("sure?")) is True


def test_a_dialog_that_times_out_returns_its_default():
    started = time.monotonic()
    assert asyncio.run(Slow(30).confirm("sure?", timeout=0.05)) is False
    assert asyncio.run(Slow(30).select("pick", ["a"], timeout=0.05)) is None
    assert time.monotonic() - started < 5


def test_an_aborted_dialog_returns_its_default():
    async def ask():
        signal = AbortSignal()
        asyncio.get_running_loop().call_later(0.05, signal.abort)
        return await Slow(30).select("pick", ["a"], signal=signal)

    started = time.monotonic()
    assert asyncio.run(ask()) is None
    assert time.monotonic() - started < 5


def test_a_dialog_cancelled_from_outside_is_cancelled():
    async def ask():
        task = asyncio.ensure_future(Slow(30).confirm("sure?"))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(ask())


def test_decorations_are_kept_and_read_back():
    ui = NullUI()
    ui.set_status("git", "main")
    ui.set_widget("todo", ["1. x"])
    ui.set_working_message("thinking hard")
    ui.set_title("my session")
    ui.set_editor_text("draft")
    ui.set_tools_expanded(True)
    assert ui.statuses == {"git": "main"} and ui.widgets == {"todo": ["1. x"]}
    assert ui.working_message == "thinking hard" and ui.title == "my session"
    assert ui.get_editor_text() == "draft" and ui.get_tools_expanded() is True
    ui.set_status("git", None)
    ui.set_widget("todo", None)
    assert ui.statuses == {} and ui.widgets == {}


class PermissionGate:
    """omp's permission-gate example, ported: ask before a dangerous shell command;
    without a UI to ask, block it."""

    DANGEROUS = ("rm -rf", "sudo ", "chmod 777")

    def __init__(self, timeout: float = 30) -> None:
        self.timeout = timeout

    @omp.hookimpl
    async def omp_tool_call(self, event, ctx):
        if event.tool_name != "bash":
            return None
        command = str(event.input.get("command", ""))
        if not any(word in command for word in self.DANGEROUS):
            return None
        if not ctx.has_ui:
            return {"block": True, "reason": "Dangerous command blocked (no UI to confirm)"}
        allowed = await ctx.ui.confirm(
            "Dangerous command", f"Allow: {command}?", timeout=self.timeout
        )
        if not allowed:
            return {"block": True, "reason": "Blocked by user"}
        return None


DANGER = [
    {"tool_calls": [{"name": "bash", "arguments": {"command": "rm -rf build-output"}}]},
    {"text": "done"},
]


def _result_text(log) -> str:
    [end] = log.of("tool_execution_end")
    return "".join(block.text for block in end.result["content"])


@pytest.mark.parametrize(
    "answers, blocked_by",
    [
        (None, "Dangerous command blocked (no UI to confirm)"),
        ([False], "Blocked by user"),
        ([ScriptedUI.TIMEOUT], "Blocked by user"),  # nobody answered within the timeout
        ([True], None),
    ],
)
def test_the_permission_gate_asks_and_blocks_where_there_is_no_ui(omp_harness, answers, blocked_by):
    (omp_harness.cwd / "build-output").mkdir()
    gate = PermissionGate(timeout=0.2)
    session = omp_harness.session([gate], script=DANGER, ui_answers=answers)
    log = omp_harness.run(session, "clean up")
    text = _result_text(log)
    if blocked_by:
        assert text == blocked_by
        assert (omp_harness.cwd / "build-output").exists()
    else:
        assert not (omp_harness.cwd / "build-output").exists(), text
    if answers:
        assert session.ui.requests == [("confirm", "Dangerous command")]
