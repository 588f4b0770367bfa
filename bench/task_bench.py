"""What subagents cost (issue 26): the ``task`` tool's children, in process, against the
scripted provider.

Each measurement runs in a fresh interpreter (so peak RSS is its own): one in-process
session with every installed plugin and a session file; its prompt makes the model call
``task`` with N children, each of which calls ``read`` on a small file T times and then
``yield``s. A small bench plugin (``extra_plugins``) timestamps the parent's
``tool_execution_start`` of the call and each child's turns. Reported:

- spawn to first request: from the task call's start to its child's first turn (one
  child; the task tool's own work, the child session and its file, the child's
  session_start), median of the runs;
- memory per child: (peak RSS while N=16 children run - RSS when the call starts) / 16;
- wall time of the task call with 1, 4 and 16 children of T=20 turns each, median;
- with 16 children running (each step 20 ms slower, so they are all alive): how long
  ``session.steer()`` takes to return, the event loop's worst lag meanwhile (a 5 ms
  ticker), and from ``session.abort()`` to the prompt's return (every child aborted,
  the task call's result kept).

    .venv/bin/python bench/task_bench.py [--runs 3] [--turns 20]

Targets: spawn to first request well under 50 ms (the kernel's child sessions reuse the
loaded runtime); steer and abort under 100 ms with 16 children running.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SPAWN_TARGET_MS = 50.0
CONTROL_TARGET_MS = 100.0


def _rss_kib() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def write_script(path: Path, children: int, turns: int, small: Path, delay: float) -> None:
    read: dict[str, Any] = {"tool_calls": [{"name": "read", "arguments": {"path": str(small)}}]}
    if delay:
        read["delay"] = delay
    tasks = [{"name": f"Child{i}", "task": f"CHILD-WORK {i}"} for i in range(children)]
    parent_done = {"after_tool": "task", "text": "parent done"}
    steps: list[dict[str, Any]] = [
        {"choose": [{"when": "CHILD-WORK", **read}, {"tool_calls": [task_call(tasks)]}]}
    ]
    steps += [{"choose": [parent_done, read]} for _ in range(turns - 1)]
    steps.append(
        {"choose": [parent_done, {"tool_calls": [{"name": "yield", "arguments": {"data": "ok"}}]}]}
    )
    steps.append({"text": "done", "repeat": True})
    path.write_text("\n".join(json.dumps(s) for s in steps) + "\n", encoding="utf-8")


def task_call(tasks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"name": "task", "arguments": {"context": "bench", "tasks": tasks}}


class Clock:
    """The bench plugin: when the task call started, each child's first turn, peak RSS
    while children run."""

    def __init__(self) -> None:
        self.call_started: float | None = None
        self.rss_at_call = 0
        self.peak_rss = 0
        self.first_turn: dict[str, float] = {}
        self.child_turns = 0
        self.all_started = asyncio.Event()
        self.expected = 0

    def omp_tool_execution_start(self, event: Any, ctx: Any) -> None:
        if event.tool_name == "task" and ctx.session_depth == 0:
            self.call_started = time.perf_counter()
            self.rss_at_call = _rss_kib()

    def omp_turn_start(self, event: Any, ctx: Any) -> None:
        if ctx.session_depth == 0:
            return
        self.child_turns += 1
        self.peak_rss = max(self.peak_rss, _rss_kib())
        self.first_turn.setdefault(ctx.session_id, time.perf_counter())
        if len(self.first_turn) >= self.expected:
            self.all_started.set()


def _plugin(clock: Clock) -> Any:
    import omp

    class BenchPlugin:
        @omp.hookimpl
        def omp_tool_execution_start(self, event: Any, ctx: Any) -> None:
            clock.omp_tool_execution_start(event, ctx)

        @omp.hookimpl
        def omp_turn_start(self, event: Any, ctx: Any) -> None:
            clock.omp_turn_start(event, ctx)

    return BenchPlugin()


async def _ticker(lags: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        began = time.perf_counter()
        await asyncio.sleep(0.005)
        lags.append(time.perf_counter() - began - 0.005)


def child_run(root: Path, children: int, turns: int, control: bool) -> dict[str, Any]:
    """One measurement in this process (``--child-run``), through the public SDK."""
    import omp

    small = root / "work" / "small.txt"
    small.parent.mkdir(parents=True, exist_ok=True)
    small.write_text("a small file\n" * 20, encoding="utf-8")
    script = root / "script.jsonl"
    write_script(script, children, turns, small, 0.02 if control else 0.0)
    clock = Clock()
    clock.expected = children
    figures: dict[str, Any] = {}

    async def drive() -> None:
        session = await omp.create_session(
            cwd=root / "work", extra_plugins=[_plugin(clock)], flags={"script": str(script)}
        )
        began = time.perf_counter()
        run = asyncio.ensure_future(session.prompt("go"))
        if control:
            await asyncio.wait_for(clock.all_started.wait(), 60)
            lags: list[float] = []
            stop = asyncio.Event()
            ticker = asyncio.ensure_future(_ticker(lags, stop))
            t0 = time.perf_counter()
            await session.steer("change of plan")
            figures["steer_ms"] = (time.perf_counter() - t0) * 1000
            await asyncio.sleep(0.1)
            t0 = time.perf_counter()
            session.abort()
            await run
            figures["abort_ms"] = (time.perf_counter() - t0) * 1000
            stop.set()
            await ticker
            figures["loop_lag_ms"] = max(lags) * 1000 if lags else 0.0
        else:
            await run
        figures["wall_s"] = time.perf_counter() - began
        await session.dispose()

    asyncio.run(drive())
    if clock.call_started is not None and clock.first_turn:
        figures["spawn_ms"] = (min(clock.first_turn.values()) - clock.call_started) * 1000
    figures["children_started"] = len(clock.first_turn)
    figures["child_turns"] = clock.child_turns
    if not control:  # each child: T reads, then yield
        assert clock.child_turns == children * (turns + 1), (clock.child_turns, children, turns)
    figures["rss_at_call_kib"] = clock.rss_at_call
    figures["peak_rss_kib"] = clock.peak_rss
    figures["maxrss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return figures


def measure(children: int, turns: int, control: bool = False) -> dict[str, Any]:
    argv = [sys.executable, __file__, "--child-run", str(children), "--turns", str(turns)]
    if control:
        argv.append("--control")
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise SystemExit(f"measurement failed ({children} children):\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--child-run", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--control", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        os.environ["HOME"] = str(root / "home")
        os.environ["OMP_CODING_AGENT_DIR"] = str(root / "agent")
        for name in ("OMP_MODEL", "OMP_SCRIPT", "OMP_SETTINGS"):
            os.environ.pop(name, None)
        if args.child_run is not None:
            print(json.dumps(child_run(root, args.child_run, args.turns, args.control)))
            return
        measure(1, 2)  # warm-up: bytecode and page caches
        walls: dict[int, list[float]] = {}
        spawns: list[float] = []
        per_child: list[float] = []
        for _ in range(args.runs):
            for n in (1, 4, 16):
                got = measure(n, args.turns)
                walls.setdefault(n, []).append(got["wall_s"])
                if n == 1:
                    spawns.append(got["spawn_ms"])
                if n == 16:
                    per_child.append((got["peak_rss_kib"] - got["rss_at_call_kib"]) / 16 / 1024)
        controls = [measure(16, args.turns, control=True) for _ in range(args.runs)]
        spawn = statistics.median(spawns)
        verdict = "meets" if spawn <= SPAWN_TARGET_MS else "misses"
        print(
            f"spawn to first request (1 child): {spawn:.1f} ms median of {args.runs} "
            f"({verdict} the {SPAWN_TARGET_MS:g} ms target)"
        )
        print(f"memory per child (16 children running): {statistics.median(per_child):.2f} MiB")
        for n, values in walls.items():
            turns = n * args.turns
            wall = statistics.median(values)
            print(
                f"{n:>2} children x {args.turns} turns: {wall:.2f} s wall "
                f"({wall / turns * 1000:.2f} ms per child turn)"
            )
        for key, label in (
            ("steer_ms", "steer() returns"),
            ("loop_lag_ms", "worst event-loop lag"),
            ("abort_ms", "abort() to the prompt's return"),
        ):
            value = statistics.median(c[key] for c in controls)
            verdict = "meets" if value <= CONTROL_TARGET_MS else "misses"
            print(
                f"16 children running, {label}: {value:.1f} ms ({verdict} {CONTROL_TARGET_MS:g} ms)"
            )


if __name__ == "__main__":
    main()
