"""The harness's CPU per tool-calling turn, in process, and where it goes (issue 25).

One in-process session - every installed plugin, the real ``read`` tool on a small
file, a session file - runs one prompt in which the model calls ``read`` N times and
then answers. The model is the scripted provider (``--script``), or with ``--provider
peer`` the openai-completions provider against turns_vs_anchors' local SSE peer (on a
thread of this process: its own time, about a tenth of a millisecond a request, is
taken off). Reported: CPU per turn (the process's CPU over the run divided by N; the
median of several runs), and with ``--profile`` the functions with the most cumulative
and own time under cProfile for one run.

    .venv/bin/python bench/loop_profile.py [--turns 200] [--runs 5] [--provider scripted|peer]
        [--profile [--top 25]]

Target: 2 ms of harness CPU per turn (the issue's figure today: about 3.7 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_MS = 2.0


def write_script(path: Path, turns: int, small_file: Path) -> None:
    step = {"tool_calls": [{"name": "read", "arguments": {"path": str(small_file)}}]}
    lines = [json.dumps(step)] * turns + [json.dumps({"text": "done"})]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def small_file(root: Path) -> Path:
    small = root / "work" / "small.txt"
    small.parent.mkdir(parents=True, exist_ok=True)
    small.write_text("a small file\n" * 20, encoding="utf-8")
    return small


def build_session(root: Path, turns: int, peer: Any) -> Any:
    from omp.runtime.bootstrap import RUNTIME_KINDS, SessionOptions, load_runtime, open_session

    session_path = root / f"session-{time.monotonic_ns()}.jsonl"
    if peer is not None:
        from turns_vs_anchors import MODEL, PROVIDER

        peer.start_run(turns)
        options = SessionOptions(session_path=str(session_path), model=f"{PROVIDER}/{MODEL}")
    else:
        script = root / f"script-{turns}.jsonl"
        write_script(script, turns, small_file(root))
        options = SessionOptions(session_path=str(session_path), flags={"script": str(script)})
    runtime = load_runtime(cwd=root / "work", kinds=RUNTIME_KINDS)
    return open_session(runtime, options)


def run_once(
    root: Path, turns: int, peer: Any = None, profiler: cProfile.Profile | None = None
) -> float:
    """CPU seconds of one prompt of ``turns`` tool calls (session start and the peer's
    own time excluded)."""
    session = build_session(root, turns, peer)

    async def drive() -> float:
        await session.start()
        began = time.process_time()
        if profiler is not None:
            profiler.enable()
        await session.prompt("read the file again and again")
        if profiler is not None:
            profiler.disable()
        spent = time.process_time() - began
        await session.shutdown()
        return spent

    spent = asyncio.run(drive())
    results = sum(1 for m in session.agent.messages if m.role == "toolResult")
    assert results == turns, f"expected {turns} tool results, got {results}"
    return spent - (sum(peer.busy) if peer is not None else 0.0)


def start_peer(root: Path) -> Any:
    import threading

    from turns_vs_anchors import Peer, models_json

    peer = Peer(small_file(root))
    threading.Thread(target=peer.serve_forever, daemon=True).start()
    agent = Path(os.environ["OMP_CODING_AGENT_DIR"])
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "models.json").write_text(models_json(peer.base_url), encoding="utf-8")
    return peer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--provider", choices=("scripted", "peer"), default="scripted")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        os.environ["HOME"] = str(root / "home")
        os.environ["OMP_CODING_AGENT_DIR"] = str(root / "agent")
        for name in ("OMP_MODEL", "OMP_SCRIPT", "OMP_SETTINGS"):
            os.environ.pop(name, None)
        peer = start_peer(root) if args.provider == "peer" else None
        run_once(root, 5, peer)  # warm-up: imports and caches
        spent = [run_once(root, args.turns, peer) for _ in range(args.runs)]
        per_turn = statistics.median(spent) / args.turns * 1000
        verdict = "meets" if per_turn <= TARGET_MS else "misses"
        print(
            f"{args.turns} turns ({args.provider}), median of {args.runs} runs: "
            f"{per_turn:.2f} ms CPU per turn ({verdict} the {TARGET_MS:g} ms target; "
            f"runs {min(spent):.3f}-{max(spent):.3f} s)"
        )
        if args.profile:
            profiler = cProfile.Profile()
            run_once(root, args.turns, peer, profiler)
            for key in ("cumulative", "tottime"):
                out = io.StringIO()
                stats = pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(key)
                stats.print_stats(args.top)
                print(f"-- by {key} --")
                print(out.getvalue().split("\n", 6)[-1].rstrip())


if __name__ == "__main__":
    main()
