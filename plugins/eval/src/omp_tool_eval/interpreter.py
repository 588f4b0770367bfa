"""Which Python the kernel runs in: the project's virtualenv when it can run ipykernel,
else omp's own interpreter."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

PROBE_TIMEOUT = 10.0


def kernel_python(cwd: str, environ: dict[str, str] | None = None) -> str:
    """The interpreter for a kernel working in ``cwd``: ``VIRTUAL_ENV``'s, then
    ``<cwd>/.venv``'s, then ``<cwd>/venv``'s, each only when it can import ipykernel;
    else ``sys.executable``."""
    env = os.environ if environ is None else environ
    candidates = []
    if env.get("VIRTUAL_ENV"):
        candidates.append(Path(env["VIRTUAL_ENV"]) / "bin" / "python")
    candidates += [Path(cwd) / ".venv" / "bin" / "python", Path(cwd) / "venv" / "bin" / "python"]
    for python in candidates:
        if python.is_file() and _is_other(python) and _has_ipykernel(str(python)):
            return str(python)
    return sys.executable


def _is_other(python: Path) -> bool:
    """Not omp's own interpreter (no probe needed for that one)."""
    try:
        return not python.samefile(sys.executable)
    except OSError:
        return True


@functools.lru_cache(maxsize=16)
def _has_ipykernel(python: str) -> bool:
    probe = "import importlib.util as u, sys; sys.exit(0 if u.find_spec('ipykernel') else 1)"
    try:
        done = subprocess.run(
            [python, "-c", probe],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=PROBE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0
