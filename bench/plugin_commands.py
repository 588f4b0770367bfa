"""``omp plugin list`` / ``doctor`` with 30 plugins installed, and what the number of
installed plugins costs ``omp --version`` and ``omp --help``.

    .venv/bin/python bench/plugin_commands.py [--plugins 30] [--runs 5]

Builds a throwaway virtual environment offline (build/wheelhouse, see scripts/setup):
the kernel, the scripted provider, the read tool, the print mode and the plugin manager,
editable from this checkout. Measures each command (median of ``--runs`` after a
warm-up), then renders ``--plugins`` plugins from plugin-template/ with
``omp plugin new``, installs them (editable, one pip call) and measures again.
Targets (issue 11): list and doctor under 0.5 s with 30 plugins; --version and --help
at most 5 ms slower per added plugin.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from startup_and_turns import user_env

REPO = Path(__file__).resolve().parents[1]
WHEELHOUSE = REPO / "build" / "wheelhouse"
PROJECTS = ["kernel", "plugins/scripted", "plugins/read", "plugins/print-mode"]
PROJECTS += ["plugins/plugin-manager"]
COMMANDS = {
    "--version": ["--version"],
    "--help": ["--help"],
    "plugin list": ["plugin", "list"],
    "plugin doctor": ["plugin", "doctor"],
}


def _env(root: Path, venv: Path) -> dict[str, str]:
    env = user_env(("PIP_", "OMP_", "PI_"))
    for folder in ("home", "agent", "work"):
        (root / folder).mkdir(exist_ok=True)
    env.update(
        HOME=str(root / "home"),
        OMP_CODING_AGENT_DIR=str(root / "agent"),
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(WHEELHOUSE),
        PIP_CONFIG_FILE=os.devnull,
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        VIRTUAL_ENV=str(venv),
        PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    return env


def _run(cmd: list[str], env: dict[str, str], cwd: Path) -> None:
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    if proc.returncode not in (0, 1) or (proc.returncode and "doctor" not in cmd):
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")


def _time(cmd: list[str], env: dict[str, str], cwd: Path, runs: int) -> float:
    _run(cmd, env, cwd)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        _run(cmd, env, cwd)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _measure(omp: Path, env: dict[str, str], cwd: Path, runs: int) -> dict[str, float]:
    return {name: _time([str(omp), *args], env, cwd, runs) for name, args in COMMANDS.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plugins", type=int, default=30)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    if not any(WHEELHOUSE.glob("hatchling-*.whl")):
        sys.exit("build/wheelhouse is not prepared: run bash scripts/setup")
    with tempfile.TemporaryDirectory(prefix="omp-bench-plugins-") as tmp:
        root = Path(tmp)
        venv = root / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        env = _env(root, venv)
        python, omp, work = venv / "bin" / "python", venv / "bin" / "omp", root / "work"
        pip = [str(python), "-m", "pip", "install", "-q"]
        _run([*pip, "hatchling", "editables"], env, root)
        _run(
            [*pip, "--no-build-isolation", *[a for p in PROJECTS for a in ("-e", str(REPO / p))]],
            env,
            root,
        )
        before = _measure(omp, env, work, options.runs)
        names = [f"bench-plugin-{n:02d}" for n in range(options.plugins)]
        for name in names:
            _run([str(omp), "plugin", "new", name, "--dir", str(root / "plugins")], env, work)
        editable = [a for name in names for a in ("-e", str(root / "plugins" / name))]
        _run([*pip, "--no-build-isolation", *editable], env, root)
        after = _measure(omp, env, work, options.runs)
    base = len(PROJECTS) - 1
    print(f"median of {options.runs} runs; {base} plugins, then {base + options.plugins}")
    print(f"{'command':<15}{'before':>10}{'after':>10}{'per plugin':>13}")
    for name in COMMANDS:
        per = (after[name] - before[name]) / max(options.plugins, 1) * 1000
        print(f"{name:<15}{before[name]:>9.3f}s{after[name]:>9.3f}s{per:>10.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
