"""``ast_grep`` over this repository's Python (kernel/ and plugins/) against the
``ast-grep`` CLI on the same patterns, when the CLI is installed.

Our figure is the tool end to end, as the agent loop calls it: a real runtime's
``ast_grep`` (file list from ``ctx.search("find")`` with the ignore rules, then
``ast-grep-py`` per file, then the result text). The CLI's is
``ast-grep run -p PAT -l python kernel plugins --json=compact`` (it honours .gitignore
too), wall time of the process. Both count every match; the counts must agree.

The CLI is the ``ast-grep-cli`` wheel's ``ast-grep`` (``pip install ast-grep-cli``; not a
dependency of omp nor of the test environment), found on PATH or given with ``--cli``.
Without it, only our figures are printed. A report, not a test: exits 0.

    .venv/bin/python bench/ast_bench.py [--runs 5] [--cli PATH] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCOPE = ["kernel", "plugins"]
PATTERNS = {
    "method call `$OBJ.get($$$ARGS)`": "$OBJ.get($$$ARGS)",
    "no literal word `$A == $A`": "$A == $A",
    "definition `def $F(self, $$$P): $$$B`": "def $F(self, $$$P): $$$B",
}


def ours(pattern: str, runs: int) -> dict[str, Any]:
    from omp import AbortSignal
    from omp.runtime.bootstrap import RUNTIME_KINDS, SessionOptions, load_runtime, open_session
    from omp_tool_ast.grep_tool import AstGrepParams, AstGrepTool

    runtime = load_runtime(
        cwd=ROOT,
        extension_paths=[],
        discover_extensions=False,
        entry_points=True,
        extra_plugins=[],
        kinds=RUNTIME_KINDS,
    )
    session = open_session(runtime, SessionOptions(no_session=True, flags={}))
    params = AstGrepParams(pat=pattern, path=";".join(SCOPE), lang="python")

    async def timed() -> tuple[list[float], dict[str, Any]]:
        times, details = [], {}
        for _ in range(runs):
            start = time.perf_counter()
            result = await AstGrepTool().execute(
                "bench", params, AbortSignal(), lambda _: None, session.context
            )
            times.append(time.perf_counter() - start)
            details = result.details
        return times, details

    times, details = asyncio.run(timed())
    return {
        "s": statistics.median(times),
        "matches": details["matchCount"],
        "files": details["filesSearched"],
    }


def cli(binary: str, pattern: str, runs: int) -> dict[str, Any]:
    command = [binary, "run", "-p", pattern, "-l", "python", *SCOPE, "--json=compact"]
    times, found = [], []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - start)
        found = json.loads(proc.stdout or "[]")
    return {"s": statistics.median(times), "matches": len(found)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cli", help="the ast-grep binary (default: ast-grep or sg on PATH)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    binary = args.cli or shutil.which("ast-grep") or shutil.which("sg")
    rows = []
    for label, pattern in PATTERNS.items():
        row: dict[str, Any] = {"query": label, "ours": ours(pattern, args.runs)}
        if binary:
            row["cli"] = cli(binary, pattern, args.runs)
            row["ratio"] = row["ours"]["s"] / row["cli"]["s"]
        rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    if not binary:
        print("the ast-grep CLI is absent (pip install ast-grep-cli): our figures only")
    for row in rows:
        line = (
            f"{row['query']}: ast_grep {row['ours']['s'] * 1000:.0f} ms, "
            f"{row['ours']['matches']} matches in {row['ours']['files']} files"
        )
        if "cli" in row:
            line += (
                f"; ast-grep CLI {row['cli']['s'] * 1000:.0f} ms, {row['cli']['matches']} "
                f"matches; ours/CLI {row['ratio']:.2f}"
            )
        print(line)


if __name__ == "__main__":
    main()
