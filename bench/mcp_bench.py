"""What MCP servers cost a session (issue 16's benchmark).

1. Added startup: in fresh ``omp -p`` processes (so the SDK's import, 0.3-1.5 s, counts
   as it does for a user), the time from the session's start to its first model request,
   with no MCP server and with 3 stdio servers configured (the test suite's demo server
   on the official SDK, which takes longer than the startup gate to come up), runs
   alternated. Target: the first prompt is not delayed by more than the startup gate
   (``mcp.startupGateMs``, 250 ms); the servers join in the background.
2. Per-call overhead: an in-process session whose provider answers at once calls one
   tool per request; the time from ``tool_execution_start`` to ``tool_execution_end``
   of an MCP tool (``mcp__demo__shout`` on a local stdio server) against an in-process
   tool doing the same work (upper-casing its argument). Target: under 2 ms more.

    .venv/bin/python bench/mcp_bench.py [--calls 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from startup_and_turns import user_env

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "plugins" / "mcp" / "tests" / "demo_server.py"
GATE_MS = 250
CALL_TARGET_MS = 2.0


def make_provider(tool: str, calls: int) -> Any:
    from omp.agent.providers import AssistantStream, Model, Provider

    class Instant(Provider):
        name = "bench"
        api = "bench"

        def __init__(self) -> None:
            super().__init__([Model(provider="bench", id="m", api="bench", context_window=10**7)])
            self.requests = 0
            self.first_at: float | None = None

        async def stream(self, model, context, options):
            self.requests += 1
            if self.first_at is None:
                self.first_at = time.perf_counter()
            out = AssistantStream(model)
            yield out.start()
            if self.requests <= calls:
                yield out.toolcall_start(f"c{self.requests}", tool)
                yield out.toolcall_delta(json.dumps({"text": f"call {self.requests}"}))
                yield out.toolcall_end()
            else:
                yield out.text_start()
                yield out.text_delta("done")
                yield out.text_end()
            yield out.done()

    return Instant()


def echo_tool() -> Any:
    from omp.agent.tools import Tool
    from pydantic import BaseModel

    class Params(BaseModel):
        text: str

    async def execute(call_id, params, signal, on_update, ctx):
        return params.text.upper()

    return Tool(name="echo", description="upper-case", parameters=Params, execute=execute)


def configure(agent_dir: Path, servers: int) -> None:
    entry = {"command": sys.executable, "args": [str(DEMO), "stdio"]}
    config = {"mcpServers": {f"demo{i}" if i else "demo": entry for i in range(servers)}}
    (agent_dir / "mcp.json").write_text(json.dumps(config), encoding="utf-8")


TIMING = """
import time
from pathlib import Path
import omp

marks = {}

@omp.hookimpl(tryfirst=True)  # before any plugin's start-up work, the MCP plugin's too
def omp_session_start(event):
    marks.setdefault("start", time.monotonic())

@omp.hookimpl
def omp_context(event):
    if "first" not in marks:
        marks["first"] = time.monotonic()
        Path(%r).write_text(str((marks["first"] - marks["start"]) * 1000))
"""


def first_request_ms(root: Path, agent: Path) -> float:
    """A fresh ``omp -p``: ms from its session's start to its first model request."""
    out = root / "first-request-ms"
    extension = root / "timing.py"
    extension.write_text(TIMING % str(out), encoding="utf-8")
    script = root / "script.jsonl"
    script.write_text(json.dumps({"text": "ok"}) + "\n", encoding="utf-8")
    env = {**user_env(), "OMP_CODING_AGENT_DIR": str(agent), "HOME": str(root / "home")}
    omp = Path(sys.executable).with_name("omp")
    command = [str(omp), "-p", "--script", str(script), "-e", str(extension), "hi"]
    proc = subprocess.run(
        command, cwd=root / "work", env=env, capture_output=True, text=True, timeout=120
    )
    if proc.returncode != 0:
        raise SystemExit(f"omp failed: {proc.stderr.strip()}")
    return float(out.read_text())


def run_session(cwd: Path, tool: str, calls: int) -> tuple[float, list[float]]:
    """(ms from start to the first request, ms per tool call)."""
    import omp
    from omp.runtime.bootstrap import RUNTIME_KINDS, SessionOptions, load_runtime, open_session

    provider = make_provider(tool, calls)

    class Contribute:
        @omp.hookimpl
        def omp_register_providers(self, api):
            return [provider]

        @omp.hookimpl
        def omp_register_tools(self, api):
            return [echo_tool()]

    runtime = load_runtime(cwd=cwd, extra_plugins=[Contribute()], kinds=RUNTIME_KINDS)
    session = open_session(runtime, SessionOptions(model="bench/m", no_session=True))
    starts: dict[str, float] = {}
    per_call: list[float] = []

    def watch(event: Any) -> None:
        if event.type == "tool_execution_start":
            starts[event.tool_call_id] = time.perf_counter()
        elif event.type == "tool_execution_end":
            per_call.append((time.perf_counter() - starts[event.tool_call_id]) * 1000)

    session.subscribe(watch)

    async def drive() -> float:
        began = time.perf_counter()
        await session.start()
        await session.prompt("go")
        await session.shutdown()
        return ((provider.first_at or began) - began) * 1000

    first_request = asyncio.run(drive())
    return first_request, per_call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        os.environ["HOME"] = str(root / "home")
        os.environ["OMP_CODING_AGENT_DIR"] = str(root / "agent")
        agent, cwd = root / "agent", root / "work"
        agent.mkdir()
        cwd.mkdir()
        (root / "home").mkdir()
        plain = root / "agent-plain"
        plain.mkdir()
        configure(plain, 0)
        configure(agent, 3)
        first_request_ms(root, plain)  # warm-up: the page cache
        without, with_three = [], []
        for _ in range(args.rounds):
            without.append(first_request_ms(root, plain))
            with_three.append(first_request_ms(root, agent))
        run_session(cwd, "echo", 2)  # warm-up: imports
        configure(agent, 1)
        (agent / "settings.json").write_text('{"mcp": {"startupGateMs": 30000}}')
        builtin, mcp = [], []
        for _ in range(args.rounds):
            builtin += run_session(cwd, "echo", args.calls)[1]
            mcp += run_session(cwd, "mcp__demo__shout", args.calls)[1]
    added = statistics.median(with_three) - statistics.median(without)
    verdict = "meets" if added <= GATE_MS else "misses"
    print(
        f"startup, median of {args.rounds} fresh omp -p runs each "
        "(session start to the first request):"
    )
    print(f"  no MCP server: {statistics.median(without):.1f} ms")
    print(f"  3 stdio servers: {statistics.median(with_three):.1f} ms")
    print(f"  added: {added:.1f} ms ({verdict} the {GATE_MS} ms startup gate)")
    b, m = statistics.median(builtin), statistics.median(mcp)
    verdict = "meets" if m - b < CALL_TARGET_MS else "misses"
    print(f"per call, median of {len(mcp)} calls (tool_execution_start to _end):")
    print(f"  in-process tool: {b:.3f} ms")
    print(f"  MCP tool over stdio: {m:.3f} ms")
    print(f"  overhead: {m - b:.3f} ms ({verdict} the {CALL_TARGET_MS:g} ms target)")


if __name__ == "__main__":
    main()
