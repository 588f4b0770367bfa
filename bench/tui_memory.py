"""Memory of the interactive mode after a long session (issue 14).

    .venv/bin/python bench/tui_memory.py [--turns 500]

tmux (private socket, scratch HOME and agent directory) runs ``omp`` with the scripted
provider and ``--turns`` prompts on its command line, which the interactive mode sends
one after another, each answered with about 1 KB of Markdown (a heading, a list, a
code block) and every tenth with a bash tool call. Once the last answer is on the
screen, the process's resident memory (VmRSS) and its peak (VmHWM) are read from /proc.
Target: under 150 MiB after 500 turns.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from startup_and_turns import user_env

ROOT = Path(__file__).resolve().parent.parent
OMP = ROOT / ".venv" / "bin" / "omp"
TARGET_MIB = 150
ANSWER = (
    "## Step\n\nHere is what I found, with **emphasis** and `inline code`:\n\n"
    + "".join(f"- point {i}: the function handles the edge case correctly\n" for i in range(8))
    + "\n```python\ndef add(a, b):\n    return a + b\n\nprint(add(2, 3))\n```\n\nDone.\n"
)


def _script(path: Path) -> None:
    steps = [
        {"repeat": True, "after_tool": "bash", "text": ANSWER},
        {
            "repeat": True,
            "when": "tool turn",
            "tool_calls": [{"name": "bash", "arguments": {"command": "echo from-the-tool"}}],
        },
        {"repeat": True, "text": ANSWER},
    ]
    path.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")


def _memory(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) // 1024
    return fields


def _omp_pid(root: int) -> int:
    """The process under ``root`` (tmux's pane) that runs omp with the script."""
    stack = [root]
    while stack:
        pid = stack.pop()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if b"--script" in cmdline and not any(b"xargs" in part for part in cmdline[:1]):
            return pid
        children = Path(f"/proc/{pid}/task/{pid}/children")
        stack += [int(c) for c in children.read_text().split()] if children.exists() else []
    raise SystemExit("omp's process was not found under the tmux pane")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=500)
    options = parser.parse_args()
    tmux = shutil.which("tmux")
    if tmux is None:
        print("tmux is not installed (bash scripts/setup installs it)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        for sub in ("home", "agent", "work"):
            (scratch / sub).mkdir()
        env = user_env((), ("_API_KEY",))
        env.update(
            HOME=str(scratch / "home"),
            OMP_CODING_AGENT_DIR=str(scratch / "agent"),
            OLLAMA_HOST="127.0.0.1:9",
        )
        script = scratch / "script.jsonl"
        _script(script)
        prompts = [
            f"tool turn {n}" if n % 10 == 0 else f"turn {n}" for n in range(1, options.turns + 1)
        ]
        args = [str(OMP), "--script", str(script), *prompts, f"final marker {options.turns}"]
        argv_file = scratch / "argv"
        argv_file.write_text("\0".join(args))
        base = [tmux, "-L", f"omp-mem-{uuid.uuid4().hex[:8]}", "-f", "/dev/null"]
        command = f'xargs -0 -a {argv_file} sh -c \'exec "$0" "$@"\''
        start = time.perf_counter()
        subprocess.run(
            [
                *base,
                "new-session",
                "-d",
                "-x",
                "100",
                "-y",
                "30",
                "-c",
                str(scratch / "work"),
                command,
            ],
            env=env,
            check=True,
        )
        try:
            pid = int(
                subprocess.run(
                    [*base, "display", "-p", "#{pane_pid}"], env=env, capture_output=True, text=True
                ).stdout.strip()
            )
            sessions = scratch / "agent" / "sessions"
            while True:
                time.sleep(0.5)
                files = list(sessions.rglob("*.jsonl")) if sessions.exists() else []
                text = files[0].read_text(encoding="utf-8") if files else ""
                if text.count('"role":"assistant"') >= options.turns + options.turns // 10 + 1:
                    break
                if time.perf_counter() - start > 900:
                    raise SystemExit("the session did not finish in 15 minutes")
            time.sleep(1.0)
            elapsed = time.perf_counter() - start
            memory = _memory(_omp_pid(pid))
        finally:
            subprocess.run([*base, "kill-server"], env=env, capture_output=True)
    rss, peak = memory["VmRSS"], memory["VmHWM"]
    print(f"{options.turns} turns in {elapsed:.1f} s: resident {rss} MiB, peak {peak} MiB")
    verdict = "met" if rss < TARGET_MIB else "MISSED"
    print(f"target: under {TARGET_MIB} MiB after the session - {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
