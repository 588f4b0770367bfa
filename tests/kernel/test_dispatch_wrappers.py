"""pluggy wrappers run around the whole hook call, as pluggy would run them (issue 9,
item 4): new-style ``wrapper=True`` and old-style ``hookwrapper=True``, around sync and
async handlers; hook-call monitoring sees every event hook call."""

from __future__ import annotations

import asyncio
import time

import omp
import pytest
from omp.agent.events import ToolCallEvent, TurnStartEvent
from omp.plugin.dispatch import HookDispatcher
from omp.plugin.manager import new_plugin_manager


class Errors(list):
    def __call__(self, plugin: str, hook: str, message: str) -> None:
        self.append((plugin, hook, message))


def dispatcher(*plugins: object) -> tuple[HookDispatcher, Errors]:
    pm = new_plugin_manager()
    for number, plugin in enumerate(plugins):
        pm.register(plugin, name=f"p{number}")
    errors = Errors()
    return HookDispatcher(pm, errors), errors


def tool_call(name: str = "bash") -> ToolCallEvent:
    return ToolCallEvent(tool_call_id="c1", tool_name=name, input={"command": "ls"})


class SlowAsyncCheck:
    @omp.hookimpl
    async def omp_tool_call(self, event):
        await asyncio.sleep(0.05)


class SyncCheck:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    @omp.hookimpl
    def omp_tool_call(self, event):
        self.log.append("handler")


class Timer:
    """The plugin an author writes to time every tool check, with a new-style wrapper."""

    def __init__(self, log: list[str] | None = None) -> None:
        self.timings: dict[str, float] = {}
        self.log = log if log is not None else []

    @omp.hookimpl(wrapper=True)
    def omp_tool_call(self, event):
        self.log.append("before")
        started = time.perf_counter()
        result = yield
        self.timings[event.tool_name] = time.perf_counter() - started
        self.log.append("after")
        return result


@pytest.mark.parametrize("handler", ["sync", "async"])
def test_a_new_style_wrapper_runs_around_the_whole_call(handler):
    log: list[str] = []
    timer = Timer(log)
    inner = SyncCheck(log) if handler == "sync" else SlowAsyncCheck()
    d, errors = dispatcher(inner, timer)
    assert asyncio.run(d.call("omp_tool_call", tool_call("grep"))) is None
    assert log[0] == "before" and log[-1] == "after"
    if handler == "sync":
        assert log == ["before", "handler", "after"]
    else:
        assert timer.timings["grep"] >= 0.04
    assert errors == []


def test_a_wrapper_can_change_the_result():
    class Veto:
        @omp.hookimpl(wrapper=True)
        def omp_tool_call(self, event):
            decision = yield
            if decision is None and event.tool_name == "bash":
                return {"block": True, "reason": "vetoed by wrapper"}
            return decision

    d, _ = dispatcher(SyncCheck([]), Veto())
    decision = asyncio.run(d.call("omp_tool_call", tool_call()))
    assert decision.block and decision.reason == "vetoed by wrapper"
    assert asyncio.run(d.call("omp_tool_call", tool_call("read"))) is None


def test_an_old_style_hookwrapper_sees_and_forces_the_outcome():
    seen = []

    class Old:
        @omp.hookimpl(hookwrapper=True)
        def omp_tool_call(self, event):
            outcome = yield
            seen.append(outcome.get_result())
            outcome.force_result({"block": True, "reason": "forced"})

    d, _ = dispatcher(SyncCheck([]), Old())
    decision = asyncio.run(d.call("omp_tool_call", tool_call()))
    assert seen == [None]
    assert decision.block and decision.reason == "forced"


def test_a_wrapper_sees_a_handler_exception_contained_as_a_block():
    class Raises:
        @omp.hookimpl
        def omp_tool_call(self, event):
            raise RuntimeError("boom")

    results = []

    class Watch:
        @omp.hookimpl(wrapper=True)
        def omp_tool_call(self, event):
            result = yield
            results.append(result)
            return result

    d, errors = dispatcher(Raises(), Watch())
    decision = asyncio.run(d.call("omp_tool_call", tool_call()))
    assert decision.block and results[0].block
    assert errors[0][:2] == ("p0", "tool_call")


def test_a_raising_wrapper_is_reported_and_a_tool_check_fails_closed():
    class Broken:
        @omp.hookimpl(wrapper=True)
        def omp_tool_call(self, event):
            yield
            raise RuntimeError("wrapper broke")

    d, errors = dispatcher(SyncCheck([]), Broken())
    decision = asyncio.run(d.call("omp_tool_call", tool_call()))
    assert decision.block and "p1 plugin failed" in decision.reason
    assert errors == [("p1", "tool_call", "RuntimeError: wrapper broke")]


def test_a_raising_observer_wrapper_is_reported_and_the_handlers_still_ran():
    calls = []

    class Handler:
        @omp.hookimpl
        def omp_turn_start(self, event):
            calls.append("handler")

    class Broken:
        @omp.hookimpl(hookwrapper=True)
        def omp_turn_start(self, event):
            raise RuntimeError("before the yield")
            yield  # pragma: no cover

    d, errors = dispatcher(Handler(), Broken())
    asyncio.run(d.call("omp_turn_start", TurnStartEvent()))
    assert calls == ["handler"]
    assert errors == [("p1", "turn_start", "RuntimeError: before the yield")]


def test_wrappers_nest_in_pluggy_order():
    log = []

    def wrapper(label, **marks):
        class Wrap:
            @omp.hookimpl(wrapper=True, **marks)
            def omp_turn_start(self, event):
                log.append(f"{label}:in")
                yield
                log.append(f"{label}:out")

        return Wrap()

    d, _ = dispatcher(wrapper("first-registered"), wrapper("tryfirst", tryfirst=True))
    asyncio.run(d.call("omp_turn_start", TurnStartEvent()))
    assert log == ["tryfirst:in", "first-registered:in", "first-registered:out", "tryfirst:out"]


def test_hook_call_monitoring_sees_async_event_hooks():
    seen = []

    class Handler:
        @omp.hookimpl
        async def omp_tool_call(self, event):
            return {"block": True, "reason": "no"}

    d, _ = dispatcher(Handler())
    d.pm.add_hookcall_monitoring(
        lambda name, impls, kwargs: seen.append(("before", name, len(impls))),
        lambda outcome, name, impls, kwargs: seen.append(("after", name, outcome.get_result())),
    )
    asyncio.run(d.call("omp_tool_call", tool_call()))
    assert seen[0] == ("before", "omp_tool_call", 1)
    assert seen[1][:2] == ("after", "omp_tool_call") and seen[1][2].reason == "no"
