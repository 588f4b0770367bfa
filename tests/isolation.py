"""The environment of an ``omp`` subprocess in a test: a private home and agent directory,
none of the developer's omp/pi settings or provider keys (a real key must never turn a
test into traffic), no local model, and the suite's hook-coverage trace passed on."""

from __future__ import annotations

import os
from pathlib import Path

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
    if coverage_log:  # the suite's hook coverage (tests/conftest.py)
        env["OMP_TRACE_PLUGINS"] = coverage_log
    return env
