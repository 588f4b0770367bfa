"""What the ``eval`` tool costs (issue 28): plugins/eval on a real ipykernel.

Reported, through the tool itself (``EvalTool.execute`` with a session-like context):

- first-cell latency: a fresh session's first call (``x = 1``), which starts the kernel
  (interpreter choice, spawn, ZMQ handshake, set-up cell), median of the runs;
- warm round trip: a later call (``x += 1; print(x)``) on the running kernel, median and
  p90 over the calls;
- RSS of the idle kernel (its process group).

    .venv/bin/python bench/eval_bench.py [--runs 5] [--calls 50]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

from omp import AbortSignal, ArtifactStore
from omp.testing import settings_with
from omp_tool_eval.tool import STATE_KEY, EvalParams, EvalTool


def group_rss_mb(pgid: int) -> float:
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.getpgid(int(entry)) != pgid:
                continue
            with open(f"/proc/{entry}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except (OSError, ProcessLookupError):
            continue
    return total / 1024


async def one_run(root: Path, calls: int) -> tuple[float, list[float], float]:
    ctx = SimpleNamespace(
        cwd=str(root), state={}, artifacts=ArtifactStore(root / "a"), settings=settings_with({})
    )
    tool = EvalTool()

    async def call(code: str) -> float:
        started = time.perf_counter()
        result = await tool.execute(
            "b", EvalParams(cells=[{"code": code}]), AbortSignal(), None, ctx
        )
        assert not result.is_error, result.content[0].text
        return (time.perf_counter() - started) * 1000

    try:
        first = await call("x = 1")
        warm = [await call("x += 1; print(x)") for _ in range(calls)]
        rss = group_rss_mb(ctx.state[STATE_KEY].pid)
    finally:
        await ctx.state[STATE_KEY].shutdown()
    return first, warm, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()
    firsts: list[float] = []
    warm: list[float] = []
    rss: list[float] = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            first, times, mb = asyncio.run(one_run(Path(tmp), args.calls))
        firsts.append(first)
        warm += times
        rss.append(mb)
    p90 = statistics.quantiles(warm, n=10)[-1]
    print(
        f"first cell (kernel start): median {statistics.median(firsts):.0f} ms "
        f"(min {min(firsts):.0f}, max {max(firsts):.0f}) over {args.runs} runs"
    )
    print(
        f"warm round trip: median {statistics.median(warm):.1f} ms, p90 {p90:.1f} ms "
        f"over {len(warm)} calls"
    )
    print(f"idle kernel RSS: {statistics.median(rss):.0f} MB")
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
