"""What the hook dispatcher costs per event (issue 9's benchmark).

Twenty plugins are loaded; each implements several hooks. One event hook
(``omp_turn_start``, an observer) and one combining hook (``omp_tool_call``,
first-block) are dispatched in a tight loop, with the handlers under their default time
limit, as a session would call them:

* none of the twenty implements the hook (target: under 20 us per event);
* all twenty implement it with a plain ``def`` (target: under 100 us per event);
* all twenty implement it with an ``async def`` (same target).

Also measured: what a ``context`` handler's copy of a 500-message conversation costs
per request when the handler reads every message (the worst case: each message is
deep-copied on first read; a handler that reads none copies none). Target: under 2 ms.

    .venv/bin/python bench/hook_dispatch.py [--events 20000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

TARGETS_US = {"none": 20.0, "sync": 100.0, "async": 100.0}
CONTEXT_TARGET_MS = 2.0


def make_plugin(kind: str) -> Any:
    import omp

    class Plugin:
        @omp.hookimpl
        def omp_session_start(self, event):
            return None

        @omp.hookimpl
        def omp_agent_end(self, event):
            return None

    if kind == "sync":

        def turn_start(self, event):
            return None

        def tool_call(self, event):
            return None

    elif kind == "async":

        async def turn_start(self, event):
            return None

        async def tool_call(self, event):
            return None

    else:
        return Plugin()
    Plugin.omp_turn_start = omp.hookimpl(turn_start)
    Plugin.omp_tool_call = omp.hookimpl(tool_call)
    turn_start.__name__, tool_call.__name__ = "omp_turn_start", "omp_tool_call"
    return Plugin()


def dispatcher(kind: str) -> Any:
    from omp.plugin.dispatch import HookDispatcher
    from omp.plugin.manager import new_plugin_manager

    pm = new_plugin_manager()
    for number in range(20):
        pm.register(make_plugin(kind), name=f"plugin-{number}")
    return HookDispatcher(pm, lambda *a: None)


async def per_event_us(kind: str, hook: str, events: int) -> float:
    from omp.agent.events import ToolCallEvent, TurnStartEvent

    d = dispatcher(kind)
    if hook == "omp_turn_start":
        event: Any = TurnStartEvent(turn_index=1)
    else:
        event = ToolCallEvent(tool_call_id="c", tool_name="read", input={"path": "x"})
    for _ in range(200):
        await d.call(hook, event)
    started = time.perf_counter()
    for _ in range(events):
        await d.call(hook, event)
    return (time.perf_counter() - started) / events * 1e6


def context_copy_ms(rounds: int) -> float:
    from omp.agent.messages import (
        AssistantMessage,
        TextContent,
        ToolCall,
        ToolResultMessage,
        UserMessage,
    )
    from omp.base.copying import CopyOnRead

    messages: list[Any] = []
    for number in range(125):
        messages.append(UserMessage(content=f"question {number} " * 20))
        messages.append(
            AssistantMessage(
                content=[
                    TextContent(text="Let me look. " * 30),
                    ToolCall(id=f"c{number}", name="read", arguments={"path": f"f{number}.py"}),
                ]
            )
        )
        messages.append(
            ToolResultMessage(
                tool_call_id=f"c{number}",
                tool_name="read",
                content=[TextContent(text="line\n" * 200)],
            )
        )
        messages.append(AssistantMessage(content=[TextContent(text="Found it. " * 20)]))
    assert len(messages) == 500
    times = []
    for _ in range(rounds * 20):
        started = time.perf_counter()
        view = CopyOnRead(messages)
        for _ in view:
            pass
        view.settled()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    print("hook dispatch, 20 plugins loaded, median of", args.rounds, "rounds")
    print(f"{'handlers':<10} {'hook':<16} {'us/event':>9} {'target':>7}  ok")
    misses = 0
    for kind in ("none", "sync", "async"):
        for hook in ("omp_turn_start", "omp_tool_call"):
            figures = [
                asyncio.run(per_event_us(kind, hook, args.events)) for _ in range(args.rounds)
            ]
            value = statistics.median(figures)
            ok = value < TARGETS_US[kind]
            misses += not ok
            label = {"none": "none", "sync": "20 def", "async": "20 async"}[kind]
            verdict = "yes" if ok else "NO"
            print(f"{label:<10} {hook:<16} {value:>9.2f} {TARGETS_US[kind]:>7.0f}  {verdict}")
    copy_ms = context_copy_ms(args.rounds)
    ok = copy_ms < CONTEXT_TARGET_MS
    misses += not ok
    print(
        f"context copy, 500 messages all read: {copy_ms:.3f} ms per request "
        f"(target {CONTEXT_TARGET_MS} ms)  {'yes' if ok else 'NO'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
