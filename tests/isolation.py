"""The environment of an ``omp`` subprocess in a test: a private home and agent directory,
none of the developer's omp/pi settings or provider keys (a real key must never turn a
test into traffic), no local model, and the suite's hook-coverage trace passed on."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from omp.testing import PROVIDER_KEYS

_DROPPED = {*PROVIDER_KEYS, "OLLAMA_HOST"}


def isolated_env(root: Path, agent_dir: Path | None = None) -> dict[str, str]:
    """A copy of this process's environment for an ``omp`` run under ``root``:
    ``HOME`` is ``root/home``, the agent directory ``root/agent`` (or ``agent_dir``)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in _DROPPED and not k.startswith(("OMP_", "PI_"))
    }
    env.update(
        {
            "OMP_CODING_AGENT_DIR": str(agent_dir or root / "agent"),
            "HOME": str(root / "home"),
            "OLLAMA_HOST": "127.0.0.1:9",  # nothing listens there: no local model
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
        }
    )
    coverage_log = os.environ.get("OMP_HOOK_COVERAGE_LOG")
    if coverage_log:  # the suite's hook coverage (conftest.py)
        env["OMP_TRACE_PLUGINS"] = coverage_log
    return env


def omp_command() -> list[str]:
    """The console script next to this interpreter, else the one on PATH, else
    ``python -m omp``."""
    script = Path(sys.executable).with_name("omp")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    found = shutil.which("omp")
    return [found] if found else [sys.executable, "-m", "omp"]


def run_omp(
    root: Path,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 30,
    **options: Any,
) -> subprocess.CompletedProcess[str]:
    """``omp *args`` to its end in ``root/work`` with ``isolated_env(root)`` (and ``env``
    over it), stdin empty unless ``options`` (for subprocess.run) give one."""
    for sub in ("work", "agent", "home"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    if "stdin" not in options:
        options.setdefault("input", "")
    return subprocess.run(
        [*omp_command(), *args],
        cwd=root / "work",
        env={**isolated_env(root), **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        **options,
    )
