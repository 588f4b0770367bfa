"""No plugin handler can end or freeze the agent (issue 8, item 5): SystemExit,
KeyboardInterrupt and CancelledError raised by a handler are contained and reported,
handlers have a timeout, and a real cancellation still goes through."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import omp
import pytest
from omp.agent.events import ToolCallEvent, TurnStartEvent
from omp.plugin.dispatch import HookDispatcher, HookTimeouts
from omp.plugin.manager import new_plugin_manager


class Errors(list):
    def __call__(self, plugin: str, hook: str, message: str) -> None:
        self.append((plugin, hook, message))


def dispatcher(*plugins: object, timeout: float = 5.0, per_hook=None):
    pm = new_plugin_manager()
    for number, plugin in enumerate(plugins):
        pm.register(plugin, name=f"p{number}")
    errors = Errors()
    timeouts = HookTimeouts(default=timeout, per_hook=per_hook or {})
    return HookDispatcher(pm, errors, timeouts=timeouts), errors


def tool_call() -> ToolCallEvent:
    return ToolCallEvent(tool_call_id="c1", tool_name="bash", input={"command": "rm -rf /"})


class Counter:
    def __init__(self) -> None:
        self.calls = 0

    @omp.hookimpl
    def omp_turn_start(self, event):
        self.calls += 1


@pytest.mark.parametrize(
    "raised",
    [SystemExit(3), KeyboardInterrupt(), asyncio.CancelledError(), GeneratorExit()],
    ids=["SystemExit", "KeyboardInterrupt", "CancelledError", "GeneratorExit"],
)
def test_a_tool_call_handler_raising_a_base_exception_blocks_and_is_reported(raised):
    class Exits:
        @omp.hookimpl
        def omp_tool_call(self, event):
            raise raised

    d, errors = dispatcher(Exits())
    decision = asyncio.run(d.call("omp_tool_call", tool_call()))
    assert decision.block
    assert "p0 plugin failed" in decision.reason
    assert [(p, h) for p, h, _ in errors] == [("p0", "tool_call")]
    assert type(raised).__name__ in errors[0][2]


@pytest.mark.parametrize(
    "raised", [SystemExit(3), KeyboardInterrupt(), asyncio.CancelledError()], ids=str
)
def test_an_observer_raising_a_base_exception_is_reported_and_the_others_run(raised):
    class Raises:
        @omp.hookimpl
        async def omp_turn_start(self, event):
            raise raised

    counter = Counter()
    d, errors = dispatcher(counter, Raises())
    asyncio.run(d.call("omp_turn_start", TurnStartEvent(turn_index=0)))
    assert counter.calls == 1
    assert errors and errors[0][:2] == ("p1", "turn_start")


def test_an_async_handler_that_never_returns_times_out_and_blocks_the_tool():
    class Forever:
        @omp.hookimpl
        async def omp_tool_call(self, event):
            await asyncio.Event().wait()

    d, errors = dispatcher(Forever(), timeout=0.2)
    started = time.monotonic()
    decision = asyncio.run(d.call("omp_tool_call", tool_call()))
    assert time.monotonic() - started < 2
    assert decision.block and "did not finish within 0.2 s" in decision.reason
    assert "did not finish within 0.2 s" in errors[0][2]


def test_a_sync_handler_that_blocks_times_out_and_the_run_goes_on():
    class Sleeps:
        @omp.hookimpl
        def omp_turn_start(self, event):
            time.sleep(60)

    counter = Counter()
    d, errors = dispatcher(counter, Sleeps(), timeout=0.3)
    started = time.monotonic()
    asyncio.run(d.call("omp_turn_start", TurnStartEvent(turn_index=0)))
    assert time.monotonic() - started < 3
    assert counter.calls == 1
    assert errors[0][:2] == ("p1", "turn_start")
    assert "did not finish within 0.3 s" in errors[0][2]


TIMED_PLAIN_HANDLER = """
import asyncio, threading
import omp
from omp.plugin.dispatch import HookDispatcher, HookTimeouts
from omp.agent.events import TurnStartEvent
from omp.plugin.manager import new_plugin_manager

class Quick:
    @omp.hookimpl
    def omp_turn_start(self, event):
        return None

pm = new_plugin_manager()
pm.register(Quick(), name="p1")
errors = []
d = HookDispatcher(pm, lambda *e: errors.append(e), timeouts=HookTimeouts(default=5.0))
asyncio.run(d.call("omp_turn_start", TurnStartEvent(turn_index=0)))
print(threading.active_count(), len(errors))
"""


def test_timing_plain_handlers_keeps_no_thread_that_wakes_for_the_gil():
    """A thread waking to check the clock waits for the GIL, and every release of the
    GIL by the main thread meanwhile pays for waking it (on this project's machines,
    about 50 us of each 1 ms grep): a plain handler's clock is a timer instead."""
    done = subprocess.run(
        [sys.executable, "-c", TIMED_PLAIN_HANDLER], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "0"]  # the main thread alone; no error


def test_a_per_hook_timeout_overrides_the_default():
    class Slow:
        @omp.hookimpl
        async def omp_tool_call(self, event):
            await asyncio.sleep(0.4)
            return {"block": True, "reason": "checked slowly"}

    d, errors = dispatcher(Slow(), timeout=0.1, per_hook={"tool_call": 5.0})
    decision = asyncio.run(d.call("omp_tool_call", tool_call()))
    assert decision.reason == "checked slowly" and not errors


def test_time_spent_in_a_dialog_does_not_count_against_the_handler(omp_harness):
    """A handler that asks the user legitimately waits longer than the hook timeout."""
    from omp.runtime.ui import NullUI

    class SlowUser(NullUI):
        async def _ask_confirm(self, title, message):
            await asyncio.sleep(0.6)
            return True

    class Asks:
        @omp.hookimpl
        async def omp_tool_call(self, event, ctx):
            if not await ctx.ui.confirm("Run it?", event.input["command"]):
                return {"block": True, "reason": "denied"}

    session = omp_harness.session(plugins=[Asks()])
    session.ui = SlowUser()
    session.dispatcher.timeouts = HookTimeouts(default=0.2)
    decision = asyncio.run(session.call_hook("omp_tool_call", tool_call()))
    assert decision is None


def test_a_real_cancellation_is_not_swallowed():
    class Waits:
        @omp.hookimpl
        async def omp_turn_start(self, event):
            await asyncio.sleep(30)

    d, errors = dispatcher(Waits())

    async def main():
        task = asyncio.ensure_future(d.call("omp_turn_start", TurnStartEvent(turn_index=0)))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert errors == []
