"""Startup and agent-loop figures for omp, against the targets of the Python port.

    .venv/bin/python bench/startup_and_turns.py [--runs N] [--turns N] [--omp PATH] [--check]

Runs each command ``--runs`` times in a scratch HOME and OMP_CODING_AGENT_DIR and
prints min and median wall time and the peak RSS of the child (from ``os.wait4``).
A report: it exits 0 whatever it measured, unless ``--check`` is given, then 1 when a
target is missed. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HEAVY = ("pydantic", "httpx", "rich", "prompt_toolkit")

# Set by test runners and profiling sessions, never by a user's shell: without bytecode
# caches every start compiles omp's modules again, which is not what a user measures.
NOT_A_USERS = ("PYTHONDONTWRITEBYTECODE", "PYTHONPROFILEIMPORTTIME")


def user_env(
    drop_prefixes: tuple[str, ...] = ("OMP_", "PI_"), drop_suffixes: tuple[str, ...] = ()
) -> dict[str, str]:
    """This process's environment as a user's shell would pass it to omp: without the
    variables of ``NOT_A_USERS`` and those starting with ``drop_prefixes`` or ending
    with ``drop_suffixes`` (settings and keys that would change what is measured)."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(drop_prefixes)
        and not (drop_suffixes and k.endswith(drop_suffixes))
        and k not in NOT_A_USERS
    }


# Runs the real entry point as the console script does, then reports which heavy
# top-level packages it imported.
VERSION_PROBE = f"""\
import sys
from omp.cli.main import main
code = main(["--version"])
sys.stdout.flush()
heavy = {HEAVY!r}
print("IMPORTED:", ",".join(sorted(n for n in sys.modules if n.split(".")[0] in heavy)))
sys.exit(code)
"""


@dataclass
class Sample:
    wall: float
    """seconds"""
    maxrss: int
    """KiB (Linux ru_maxrss)"""
    code: int
    stdout: str
    stderr: str
    cpu: float = 0.0
    """seconds of CPU (user + system) the child used: steadier than wall on a busy machine"""


def run_once(cmd: list[str], env: dict[str, str], cwd: Path, stdin: Path | None = None) -> Sample:
    """Run ``cmd`` once (fed ``stdin``, else /dev/null); wall time from just before
    spawning to reaping, peak RSS of this one child from ``os.wait4``."""
    with (
        stdin.open("rb") if stdin else open(os.devnull, "rb") as feed,
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
    ):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdin=feed, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        return Sample(
            wall,
            usage.ru_maxrss,
            proc.returncode,
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
            usage.ru_utime + usage.ru_stime,
        )


def run_many(
    name: str, cmd: list[str], env: dict[str, str], cwd: Path, runs: int, before=None
) -> list[Sample]:
    samples = []
    for _ in range(runs):
        if before is not None:
            before()
        sample = run_once(cmd, env, cwd)
        if sample.code != 0:
            sys.exit(
                f"bench: {name}: {' '.join(cmd)} exited {sample.code}\n"
                f"{sample.stdout}{sample.stderr}"
            )
        samples.append(sample)
    return samples


def find_omp(explicit: str | None) -> Path:
    if explicit:
        return Path(explicit)
    beside = Path(sys.executable).parent / "omp"
    if beside.exists():
        return beside
    found = shutil.which("omp")
    if not found:
        sys.exit("bench: no omp executable found; pass --omp PATH")
    return Path(found)


def python_of(omp: Path) -> str:
    """The interpreter of a console script (its #! line), else this one."""
    try:
        first = omp.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return sys.executable
    if first.startswith("#!") and "python" in first:
        return first[2:].strip().split()[0]
    return sys.executable


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per command (default 5)")
    parser.add_argument("--turns", type=int, default=50, help="tool-call turns (default 50)")
    parser.add_argument("--omp", help="the omp executable (default: beside this python)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    omp = find_omp(args.omp)
    python = python_of(omp)
    scratch = Path(tempfile.mkdtemp(prefix="omp-bench-"))
    try:
        return _bench(args, omp, python, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _bench(args: argparse.Namespace, omp: Path, python: str, scratch: Path) -> int:
    home, agent, work = scratch / "home", scratch / "agent", scratch / "work"
    for d in (home, agent, work):
        d.mkdir()
    env = user_env()
    env.update(HOME=str(home), OMP_CODING_AGENT_DIR=str(agent))

    (work / "small.txt").write_text(
        "".join(f"line {i}: a small file for the benchmark\n" for i in range(1, 21)),
        encoding="utf-8",
    )
    script = work / "turns.jsonl"
    steps = [
        {"tool_calls": [{"name": "read", "arguments": {"path": "small.txt"}, "id": f"c{i}"}]}
        for i in range(args.turns)
    ]
    steps.append({"text": f"done after {args.turns} reads"})
    script.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    session = work / "session.jsonl"

    def fresh_session() -> None:
        session.unlink(missing_ok=True)

    # Warm-up: bytecode caches and the page cache, as a user's second run would have.
    for warm in ([str(omp), "--version"], [str(omp), "--help"]):
        run_once(warm, env, work)

    version = run_many("--version", [str(omp), "--version"], env, work, args.runs)
    probe = run_once([python, "-c", VERSION_PROBE], env, work)
    imported = ""
    for line in probe.stdout.splitlines():
        if line.startswith("IMPORTED:"):
            imported = line.partition(":")[2].strip()
    if probe.code != 0 or not probe.stdout.startswith("omp "):
        sys.exit(f"bench: the --version probe failed:\n{probe.stdout}{probe.stderr}")

    helps = run_many("--help", [str(omp), "--help"], env, work, args.runs)
    help_text = helps[0].stdout

    turns_cmd = [
        str(omp),
        "-p",
        "go",
        "--model",
        "scripted/demo",
        "--script",
        str(script),
        "--session",
        str(session),
    ]
    run_once(turns_cmd, env, work)  # warm-up: the heavier modules' bytecode
    turns = run_many("turns", turns_cmd, env, work, args.runs, before=fresh_session)
    answer = turns[-1].stdout.strip()
    entries = session.read_text(encoding="utf-8").splitlines() if session.exists() else []
    tool_results = 0
    for entry in entries:
        message = json.loads(entry).get("message")
        tool_results += isinstance(message, dict) and message.get("role") == "toolResult"

    def walls(samples: list[Sample]) -> tuple[float, float]:
        values = [s.wall for s in samples]
        return min(values), statistics.median(values)

    def peak_mib(samples: list[Sample]) -> float:
        return max(s.maxrss for s in samples) / 1024

    rows: list[tuple[str, str, str, bool]] = []

    def row_time(metric: str, target: float, samples: list[Sample]) -> None:
        lo, med = walls(samples)
        rows.append(
            (metric, f"<= {target:.2f} s", f"min {lo:.3f} s, median {med:.3f} s", med <= target)
        )

    row_time("omp --version wall", 0.10, version)
    rows.append(
        (
            "omp --version imports",
            "none of " + ", ".join(HEAVY),
            imported or "none",
            not imported,
        )
    )
    row_time("omp --help wall", 0.30, helps)
    rows.append(
        (
            "omp --help lists plugin flags",
            "--script shown",
            "--script shown" if "--script" in help_text else "missing",
            "--script" in help_text,
        )
    )
    row_time(f"{args.turns} turns (print, session file) wall", 1.30, turns)
    rows.append(
        (
            f"{args.turns} turns peak RSS",
            "<= 120 MiB",
            f"{peak_mib(turns):.1f} MiB",
            peak_mib(turns) <= 120,
        )
    )
    expected = f"done after {args.turns} reads"
    rows.append(
        (
            f"{args.turns} turns completed",
            f"answer, {args.turns} tool results saved",
            f"answer {'ok' if answer == expected else repr(answer)}, "
            f"{tool_results} tool results saved",
            answer == expected and tool_results == args.turns,
        )
    )

    print(f"omp: {omp}  python: {python}  runs: {args.runs}")
    print(f"(peak RSS: --version {peak_mib(version):.1f} MiB, --help {peak_mib(helps):.1f} MiB)")
    widths = [
        max(len(r[i]) for r in [*rows, ("metric", "target", "measured", False)]) for i in range(3)
    ]
    header = ("metric", "target", "measured", "result")
    line = "  ".join(h.ljust(w) for h, w in zip(header, [*widths, 6], strict=True))
    print(line)
    print("-" * len(line))
    for metric, target, measured, ok in rows:
        cells = [metric.ljust(widths[0]), target.ljust(widths[1]), measured.ljust(widths[2])]
        print("  ".join([*cells, "PASS" if ok else "FAIL"]))

    if args.json:
        print(json.dumps([dict(zip(header, [*r[:3], r[3]], strict=True)) for r in rows]))
    failed = [r for r in rows if not r[3]]
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
