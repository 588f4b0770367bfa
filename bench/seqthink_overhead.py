"""What the sequential-thinking plugin adds to each tool call (issue 3's benchmark).

Runs 1,000 scripted tool calls (10 assistant messages of 100 calls of a no-op tool)
in process, with the plugin disabled, enabled with no threshold, and enabled with a
threshold already met by one thought, alternating the variants over several rounds.
Reports the median wall time per variant and the added cost per tool call against the
plugin-off run. Target: under 50 microseconds per call.

    .venv/bin/python bench/seqthink_overhead.py [--rounds 7] [--calls 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from startup_and_turns import user_env

TARGET_US = 50.0


class NoopTools:
    """An in-process plugin with one async tool that does nothing, to keep noise low."""

    def __init__(self) -> None:
        import omp

        self.omp_register_tools = omp.hookimpl(self._tools)
        self.omp_register_tools.__name__ = "omp_register_tools"

    @staticmethod
    def _tools(api):
        from omp.agent.tools import Tool
        from pydantic import BaseModel

        class Empty(BaseModel):
            pass

        async def execute(call_id, params, signal, on_update, ctx):
            return "ok"

        return [Tool(name="noop", parameters=Empty, execute=execute)]


def write_script(path: Path, calls: int, per_message: int, think_first: bool) -> None:
    steps = []
    if think_first:
        steps.append(
            {
                "tool_calls": [
                    {
                        "name": "sequential_thinking",
                        "arguments": {
                            "thought": "plan",
                            "thoughtNumber": 1,
                            "totalThoughts": 1,
                            "nextThoughtNeeded": False,
                        },
                    }
                ]
            }
        )
    for _ in range(calls // per_message):
        steps.append({"tool_calls": [{"name": "noop", "arguments": {}}] * per_message})
    steps.append({"text": "done"})
    path.write_text("".join(json.dumps(s) + "\n" for s in steps))


def run_once(root: Path, variant: str, script: Path, script_thinking: Path) -> float:
    from omp.runtime.bootstrap import RUNTIME_KINDS, SessionOptions, load_runtime, open_session

    env = {**user_env(), "OMP_CODING_AGENT_DIR": str(root / "agent"), "HOME": str(root)}
    flags: dict = {"script": str(script)}
    if variant == "off":
        env["OMP_DISABLED_PLUGINS"] = "sequential_thinking"
    elif variant == "on, threshold met":
        flags = {"script": str(script_thinking), "seq-thoughts": 1}
    runtime = load_runtime(cwd=root, extra_plugins=[NoopTools()], kinds=RUNTIME_KINDS, env=env)
    session = open_session(
        runtime, SessionOptions(no_session=True, flags=flags, model="scripted/demo")
    )

    async def body() -> float:
        await session.start()
        started = time.perf_counter()
        await session.prompt("go")
        elapsed = time.perf_counter() - started
        await session.shutdown()
        assert session.agent.messages[-1].text == "done", "the scripted run did not finish"
        return elapsed

    return asyncio.run(body())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--check", action="store_true", help="exit 1 if over the target")
    args = parser.parse_args()
    variants = ["off", "on, no threshold", "on, threshold met"]
    times: dict[str, list[float]] = {v: [] for v in variants}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        script, thinking = root / "plain.jsonl", root / "thinking.jsonl"
        write_script(script, args.calls, 100, think_first=False)
        write_script(thinking, args.calls, 100, think_first=True)
        run_once(root, "off", script, thinking)  # warm-up: imports, caches
        for _ in range(args.rounds):
            for variant in variants:
                times[variant].append(run_once(root, variant, script, thinking))
    base = statistics.median(times["off"])
    print(
        f"{args.calls} scripted tool calls, median of {args.rounds} rounds (python "
        f"{sys.version.split()[0]})"
    )
    print(f"{'variant':<22}{'median wall':>14}{'per call':>12}{'added per call':>17}")
    worst = 0.0
    for variant in variants:
        median = statistics.median(times[variant])
        added = (median - base) / args.calls * 1e6
        if variant != "off":
            worst = max(worst, added)
        print(
            f"{variant:<22}{median * 1000:>11.1f} ms{median / args.calls * 1e6:>9.1f} us"
            f"{added:>14.1f} us"
        )
    verdict = "PASS" if worst < TARGET_US else "FAIL"
    print(f"added cost per tool call: {worst:.1f} us (target < {TARGET_US:.0f} us): {verdict}")
    return 1 if args.check and verdict == "FAIL" else 0


if __name__ == "__main__":
    raise SystemExit(main())
