"""ACP: time from spawning ``omp acp`` to its answer to ``initialize``, the first
``session/new``, and a prompt turn's round trip (``session/prompt`` sent to its
response, with a scripted tool call and the streamed updates in between).

    .venv/bin/python bench/acp_bench.py [--runs N] [--turns N] [--json]

The client is the SDK's own (``acp.spawn_agent_process``). Every run gets a scratch
HOME and agent directory and the scripted provider, so no model is called. A report:
it exits 0 whatever it measures. Figures are min and median over ``--runs`` spawns;
later turns are timed within each run after the first. ``python -c "import acp"`` is
timed beside it: the SDK's plain import, which the plugin's loading (``omp_mode_acp.sdk``)
makes cheaper.
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

from acp import PROTOCOL_VERSION, schema, spawn_agent_process, text_block
from startup_and_turns import user_env

READ = {"name": "read", "arguments": {"path": "notes.txt"}}
SCRIPT = [
    {"after_tool": "read", "text": "The notes say hello.", "repeat": True},
    {"tool_calls": [READ], "repeat": True},
]
"""Every prompt: a read of notes.txt, then the answer."""


class QuietClient:
    def __init__(self) -> None:
        self.updates = 0

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates += 1

    async def request_permission(self, **kwargs: Any) -> Any:
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(outcome="selected", option_id="allow_once")
        )

    def on_connect(self, conn: Any) -> None:
        pass


async def one_run(root: Path, turns: int) -> dict[str, Any]:
    work, home, agent = root / "work", root / "home", root / "agent"
    for folder in (work, home, agent):
        folder.mkdir(parents=True, exist_ok=True)
    (work / "notes.txt").write_text("hello\n")
    script = root / "script.jsonl"
    script.write_text("".join(json.dumps(s) + "\n" for s in SCRIPT))
    env = {
        **user_env(),
        "HOME": str(home),
        "OMP_CODING_AGENT_DIR": str(agent),
        "OLLAMA_HOST": "127.0.0.1:9",
    }
    omp = str(Path(sys.executable).with_name("omp"))
    client = QuietClient()
    spawned = time.perf_counter()
    async with spawn_agent_process(
        client, omp, "acp", "--script", str(script), env=env, cwd=work
    ) as (conn, process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        initialized = time.perf_counter() - spawned
        initialize_cpu = cpu_seconds(process.pid)
        start = time.perf_counter()
        sid = (await conn.new_session(cwd=str(work), mcp_servers=[])).session_id
        new_session = time.perf_counter() - start
        times = []
        for index in range(turns + 1):
            start = time.perf_counter()
            await conn.prompt(
                session_id=sid, prompt=[text_block(f"what do the notes say? {index}")]
            )
            times.append(time.perf_counter() - start)
    return {
        "initialize": initialized,
        "initialize_cpu": initialize_cpu,
        "new_session": new_session,
        "first_turn": times[0],  # the first request, tool call and updates of the process
        "turns": times[1:],
        "updates": client.updates,
    }


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) a process has used so far, from /proc: on a busy
    machine wall times grow with the load, this does not much."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def plain_sdk_import(runs: int) -> list[float]:
    """Wall time of a bare ``python -c "import acp"``: the SDK as it imports by itself,
    the reference for what the plugin's loading saves."""
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import acp"], check=True)
        times.append(time.perf_counter() - began)
    return times


def _fmt(values: list[float]) -> str:
    return f"min {min(values) * 1000:7.1f} ms   median {statistics.median(values) * 1000:7.1f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory(prefix="omp-acp-bench-") as tmp:
        asyncio.run(one_run(Path(tmp) / "warm-up", 1))
        for index in range(args.runs):
            runs.append(asyncio.run(one_run(Path(tmp) / f"run-{index}", args.turns)))
    report = {
        "spawn_to_initialize_s": [r["initialize"] for r in runs],
        "cpu_to_initialize_s": [r["initialize_cpu"] for r in runs if r["initialize_cpu"]],
        "plain_sdk_import_s": plain_sdk_import(args.runs),
        "session_new_s": [r["new_session"] for r in runs],
        "first_turn_s": [r["first_turn"] for r in runs],
        "prompt_turn_s": [t for r in runs for t in r["turns"]],
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"omp acp, {args.runs} spawns, {args.turns} timed turns each (read tool + answer):")
    print(f"  spawn -> initialize answered   {_fmt(report['spawn_to_initialize_s'])}")
    if report["cpu_to_initialize_s"]:
        print(f"    CPU time used by then        {_fmt(report['cpu_to_initialize_s'])}")
    print(f"  (python -c 'import acp' alone  {_fmt(report['plain_sdk_import_s'])})")
    print(f"  session/new                    {_fmt(report['session_new_s'])}")
    print(f"  first session/prompt           {_fmt(report['first_turn_s'])}")
    print(f"  session/prompt round trip      {_fmt(report['prompt_turn_s'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
