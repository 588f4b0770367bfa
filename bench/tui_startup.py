"""Time from launching ``omp`` in a terminal to a drawn, ready prompt (issue 14).

    .venv/bin/python bench/tui_startup.py [--runs N] [--anchors DIR]

tmux (private socket, scratch HOME and agent directory, the scripted provider) runs
``omp``; the clock starts when tmux is asked to start it and stops when the pane shows
the editor's prompt with the footer under it (polled every 5 ms). The prompt is drawn
before the application's modules load (keys typed then wait in the terminal); a key
typed the moment it shows is timed until the editor shows it. Also timed, in the
same run so the ratios hold on a busy machine: ``omp --version`` of this project and,
when installed by ../shared/bench/install-anchors.sh (default ~/.cache/omp-anchors), the
TypeScript omp's ``--version``. Target: ready prompt under 0.4 s. Prints min and median.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from startup_and_turns import user_env

ROOT = Path(__file__).resolve().parent.parent
OMP = ROOT / ".venv" / "bin" / "omp"
TARGET = 0.4


def _env(scratch: Path) -> dict[str, str]:
    env = user_env((), ("_API_KEY",))
    env.update(
        HOME=str(scratch / "home"),
        OMP_CODING_AGENT_DIR=str(scratch / "agent"),
        OLLAMA_HOST="127.0.0.1:9",
    )
    for sub in ("home", "agent", "work"):
        (scratch / sub).mkdir(exist_ok=True)
    return env


def time_ready_prompt(scratch: Path, env: dict[str, str], script: Path) -> tuple[float, float]:
    """(launch to the drawn prompt, launch to a key typed at that moment shown in the
    editor: the application has taken over)."""
    tmux = shutil.which("tmux")
    socket = f"omp-bench-{uuid.uuid4().hex[:8]}"
    base = [tmux, "-L", socket, "-f", "/dev/null"]
    command = f"{OMP} --script {script}; sleep 60"
    start = time.perf_counter()
    subprocess.run(
        [*base, "new-session", "-d", "-x", "100", "-y", "30", "-c", str(scratch / "work"), command],
        env=env,
        check=True,
    )
    try:
        ready = _poll(
            base, env, start, lambda lines, screen: ">" in lines and "scripted/demo" in screen
        )
        subprocess.run([*base, "send-keys", "-l", "x"], env=env, check=True)
        echoed = _poll(base, env, start, lambda lines, screen: "> x" in lines)
        return ready, echoed
    finally:
        subprocess.run([*base, "kill-server"], env=env, capture_output=True)


def _poll(base: list[Any], env: dict[str, str], start: float, done: Any) -> float:
    while True:
        screen = subprocess.run(
            [*base, "capture-pane", "-p"], env=env, capture_output=True, text=True
        ).stdout
        if done([line.rstrip() for line in screen.splitlines()], screen):
            return time.perf_counter() - start
        if time.perf_counter() - start > 20:
            raise SystemExit(f"omp never got there; the pane shows:\n{screen}")
        time.sleep(0.005)


def time_command(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, capture_output=True, check=True)
    return time.perf_counter() - start


def _line(name: str, values: list[float]) -> str:
    return f"{name:<48} min {min(values):6.3f} s   median {statistics.median(values):6.3f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--anchors", default=str(Path.home() / ".cache" / "omp-anchors"))
    options = parser.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is not installed (bash scripts/setup installs it)", file=sys.stderr)
        return 2
    anchor_bin = Path(options.anchors) / "omp" / "node_modules" / ".bin"
    anchor = anchor_bin / "omp"
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        env = _env(scratch)
        script = scratch / "script.jsonl"
        script.write_text('{"repeat": true, "text": "ok"}\n', encoding="utf-8")
        anchor_env = {**env, "PATH": f"{anchor_bin}{os.pathsep}{env.get('PATH', '')}"}
        ready, echoed, version, anchor_version = [], [], [], []
        for _ in range(options.runs):
            drawn, typed = time_ready_prompt(scratch, env, script)
            ready.append(drawn)
            echoed.append(typed)
            version.append(time_command([str(OMP), "--version"], env))
            if anchor.exists():
                anchor_version.append(time_command([str(anchor), "--version"], anchor_env))
    print(_line("omp (this project): launch to ready prompt", ready))
    print(_line("omp (this project): launch to a typed key shown", echoed))
    print(_line("omp (this project): --version", version))
    if anchor_version:
        print(_line("TypeScript omp 18.2.3: --version", anchor_version))
    else:
        print(f"TypeScript omp: not installed under {options.anchors} (install-anchors.sh)")
    verdict = "met" if statistics.median(ready) < TARGET else "MISSED"
    print(f"target: ready prompt under {TARGET} s (median) - {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
