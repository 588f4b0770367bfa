"""How fast the pure-Python search backend (plugins/search) is on a large tree (issue 5).

Builds a tree of at least 100 MB in a temp dir from copies of the Python standard
library (``sysconfig.get_paths()["stdlib"]``, copied into copy0/, copy1/, ... without
site-packages, __pycache__ and files over 4 MiB - the backend skips those, and the one
such file, libpython's static archive, would otherwise be half the tree), then times,
median of several runs after one warm-up, through the backend functions directly (no
agent loop):

* grep for a literal (``def __init__``) and for a regex (``class \\w+Error\\(``), each
  counting matching lines in every file (outputMode "count", so the whole tree is
  searched, as ``rg -c`` does);
* grep for a regex with no literal to look for first (``[A-Z]{12}``: every file goes
  through the regex engine), one with a word boundary (``\\bself\\.\\w+ = None\\b``:
  RE2 on ASCII files, Python's ``re`` in the worker process on the others) and one
  with a lookbehind (``(?<=def )__init__\\(``: Python's ``re`` in the worker for the
  files an RE2 superset of it matches);
* find ``**/*.py``.

Where ``rg`` is on PATH the same queries run with ripgrep (``rg -c --hidden``,
``rg --files --hidden -g '*.py'``; hidden files included because omp's tools include
them), with its default threads and with ``-j1``, and the ratio ours/rg is printed.
Match counts of both are printed side by side. A report, not a test: exits 0.

    .venv/bin/python bench/search_tree.py [--mb 100] [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from typing import Any

MAX_FILE = 4 * 1024 * 1024
LITERAL = "def __init__"
REGEX = r"class \w+Error\("
REGEXES = {
    "grep regex, no literal": r"[A-Z]{12}",
    "grep regex \\b": r"\bself\.\w+ = None\b",
    "grep regex lookbehind": r"(?<=def )__init__\(",
}


def build_tree(dest: str, min_bytes: int) -> tuple[int, int, int]:
    """Copies of the stdlib under ``dest`` until ``min_bytes``; (bytes, files, copies)."""
    stdlib = sysconfig.get_paths()["stdlib"]
    total = files = copies = 0
    while total < min_bytes:
        target = os.path.join(dest, f"copy{copies}")
        for folder, dirs, names in os.walk(stdlib):
            dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "__pycache__"))
            rel = os.path.relpath(folder, stdlib)
            out = os.path.normpath(os.path.join(target, rel))
            os.makedirs(out, exist_ok=True)
            for name in names:
                src = os.path.join(folder, name)
                if os.path.islink(src) or not os.path.isfile(src):
                    continue
                size = os.path.getsize(src)
                if size > MAX_FILE:
                    continue
                shutil.copyfile(src, os.path.join(out, name))
                total += size
                files += 1
        copies += 1
    return total, files, copies


def timed(fn: Callable[[], Any], runs: int) -> tuple[float, Any]:
    fn()  # warm-up: page cache, imports, compiled patterns
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def ours(root: str, runs: int) -> dict[str, tuple[float, str]]:
    from omp_tool_search import backend

    def grep(pattern: str) -> Callable[[], str]:
        def run() -> str:
            answer = backend.grep({"pattern": pattern, "outputMode": "count", "limit": 10**9}, root)
            return f"{answer.matches} lines in {answer.files_matched} files"

        return run

    def find() -> str:
        return f"{backend.find({'pattern': '**/*.py', 'limit': 10**9}, root).total} files"

    return {
        "grep literal": timed(grep(LITERAL), runs),
        "grep regex": timed(grep(REGEX), runs),
        **{name: timed(grep(pattern), runs) for name, pattern in REGEXES.items()},
        "find **/*.py": timed(find, runs),
    }


def ripgrep(rg: str, root: str, runs: int, threads: list[str]) -> dict[str, tuple[float, str]]:
    def count(args: list[str]) -> Callable[[], str]:
        def run() -> str:
            out = subprocess.run(
                [rg, *threads, *args], cwd=root, capture_output=True, text=True, check=False
            ).stdout.splitlines()
            if args[0] == "--files":
                return f"{len(out)} files"
            lines = sum(int(line.rsplit(":", 1)[1]) for line in out if ":" in line)
            return f"{lines} lines in {len(out)} files"

        return run

    return {
        "grep literal": timed(count(["-c", "--hidden", "-F", LITERAL]), runs),
        "grep regex": timed(count(["-c", "--hidden", REGEX]), runs),
        **{
            name: timed(count(["-c", "--hidden", "--engine", "auto", pattern]), runs)
            for name, pattern in REGEXES.items()
        },
        "find **/*.py": timed(count(["--files", "--hidden", "-g", "*.py"]), runs),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100, help="least tree size in MB")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per query (median)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "plugins", "search", "src"))

    with tempfile.TemporaryDirectory(prefix="omp-search-bench-") as tmp:
        start = time.perf_counter()
        size, files, copies = build_tree(tmp, args.mb * 1_000_000)
        built = time.perf_counter() - start
        report: dict[str, Any] = {
            "tree": {"bytes": size, "files": files, "copies": copies, "build_s": built},
            "ours": ours(tmp, args.runs),
        }
        rg = shutil.which("rg")
        if rg:
            report["rg"] = ripgrep(rg, tmp, args.runs, [])
            report["rg -j1"] = ripgrep(rg, tmp, args.runs, ["-j1"])

    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    tree = report["tree"]
    print(
        f"tree: {tree['bytes'] / 1e6:.1f} MB, {tree['files']} files "
        f"({tree['copies']} copies of the stdlib, built in {tree['build_s']:.1f} s); "
        f"median of {args.runs} runs"
    )
    columns = ["ours"] + [k for k in ("rg", "rg -j1") if k in report]
    for query, (seconds, found) in report["ours"].items():
        print(f"\n{query}")
        print(f"  {'ours':<7} {seconds:8.3f} s   {found}")
        for name in columns[1:]:
            rg_seconds, rg_found = report[name][query]
            ratio = seconds / rg_seconds if rg_seconds else float("inf")
            print(f"  {name:<7} {rg_seconds:8.3f} s   {rg_found}   ours/{name} = {ratio:.1f}x")
    if not rg:
        print("\nrg (ripgrep) is not on PATH: no comparison (apt-get install ripgrep)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
