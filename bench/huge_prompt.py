"""Time and peak memory to refuse a prompt far larger than the model's window (issue 24,
item 9).

    .venv/bin/python bench/huge_prompt.py [--mb 10] [--runs 3] [--omp PATH] [--check]

``omp -p`` reads an N MB prompt (source-code-like text, piped on stdin as a user would)
and refuses it: the scripted model's window is 200,000 tokens. Beside it, a one-line
prompt answered by the script: what any run costs (start-up and all). Printed for each:
median wall time and peak RSS of the omp process (``os.wait4``) over ``--runs``.
Target: refusing 10 MB within 0.5 s and 100 MiB more than the one-line run. A report:
exits 0 whatever it measured, unless ``--check`` is given, then 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from startup_and_turns import find_omp, run_once, user_env

TARGET_S = 0.5
TARGET_MIB = 100
LINES = "def frobnicate(value):\n    return value * 42  # the answer\n"


def measure(cmd, env, cwd, stdin: Path, runs: int) -> tuple[float, float, str]:
    samples = [run_once(cmd, env, cwd, stdin) for _ in range(runs)]
    wall = statistics.median(s.wall for s in samples)
    rss_mib = statistics.median(s.maxrss for s in samples) / 1024
    return wall, rss_mib, samples[-1].stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=10, help="prompt size in MB (default 10)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each (default 3)")
    parser.add_argument("--omp", help="the omp executable (default: beside this python)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    omp = find_omp(args.omp)
    with tempfile.TemporaryDirectory(prefix="omp-bench-prompt-") as scratch:
        root = Path(scratch)
        for folder in ("work", "home", "agent"):
            (root / folder).mkdir()
        env = {
            **user_env(drop_suffixes=("_API_KEY",)),
            "HOME": str(root / "home"),
            "OMP_CODING_AGENT_DIR": str(root / "agent"),
        }
        script = root / "script.jsonl"
        script.write_text('{"text": "ok", "repeat": true}\n')
        small, huge = root / "small.txt", root / "huge.txt"
        small.write_text("say ok\n")
        size = int(args.mb * 1_000_000)
        huge.write_text((LINES * (size // len(LINES) + 1))[:size])
        cmd = [str(omp), "-p", "--no-session", "--script", str(script)]
        base_s, base_mib, _ = measure(cmd, env, root / "work", small, args.runs)
        wall, mib, err = measure(cmd, env, root / "work", huge, args.runs)
    refusal = next((line for line in err.splitlines() if "prompt is" in line), None)
    if refusal is None:
        print(f"bench: omp did not refuse the prompt: {err.strip()[-300:]}", file=sys.stderr)
        return 1
    print(f"one-line prompt:      {base_s:6.2f} s  {base_mib:6.1f} MiB peak RSS")
    print(f"{args.mb:g} MB prompt refused: {wall:6.2f} s  {mib:6.1f} MiB peak RSS")
    extra_s, extra_mib = wall - base_s, mib - base_mib
    print(f"refusal's own cost:   {extra_s:6.2f} s  {extra_mib:6.1f} MiB")
    print(f"  ({refusal[:120]})")
    missed = extra_s > TARGET_S or extra_mib > TARGET_MIB
    print(f"target: within {TARGET_S} s and {TARGET_MIB} MiB: {'MISSED' if missed else 'met'}")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
