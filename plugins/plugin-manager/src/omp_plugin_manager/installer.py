"""Installing into the environment omp runs in, always through an argument list.

``sys.executable -m pip``, or ``uv pip --python sys.executable`` when omp runs in a
uv-managed environment. Every install pins omp's own distributions at their installed
versions as constraints, so adding a plugin can never up- or downgrade omp or the
kernel underneath the user.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from omp import OmpError, python_module_command

from omp_plugin_manager.environment import Installed, builtin_names


@dataclass
class Outcome:
    ok: bool
    output: str
    command: list[str]


def _uv() -> str | None:
    """The uv binary when this environment was made by uv (its pyvenv.cfg says so)."""
    cfg = Path(sys.prefix) / "pyvenv.cfg"
    try:
        made_by_uv = any(
            line.split("=")[0].strip() == "uv" for line in cfg.read_text().splitlines()
        )
    except OSError:
        return None
    return shutil.which("uv") if made_by_uv else None


def base_command(action: str) -> list[str]:
    """``pip install`` / ``pip uninstall`` for this interpreter, as a list."""
    uv = _uv()
    if uv:
        return [uv, "pip", action, "--python", sys.executable]
    if importlib.util.find_spec("pip") is None:
        raise OmpError(
            f"pip is not available in the environment omp runs in ({sys.executable}); "
            f"add it with `{sys.executable} -m ensurepip`"
        )
    command = python_module_command("pip", action)
    return [*command, "--disable-pip-version-check"] if action == "install" else [*command, "-y"]


def shown(command: list[str]) -> str:
    import shlex

    return " ".join(shlex.quote(part) for part in command)


def constraints(dists: dict[str, Installed], leave_free: set[str]) -> list[str]:
    """``name==version`` for omp's own installed distributions (not those being added)."""
    return sorted(
        f"{dists[key].name}=={dists[key].version}"
        for key in builtin_names(dists)
        if key in dists and key not in leave_free
    )


def install(pip_args: list[str], pinned: list[str]) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="omp-plugin-") as tmp:
        constraint_file = Path(tmp, "constraints.txt")
        constraint_file.write_text("".join(f"{line}\n" for line in pinned), encoding="utf-8")
        command = [*base_command("install"), "-c", str(constraint_file), *pip_args]
        return _run(command)


def uninstall(names: list[str]) -> Outcome:
    return _run([*base_command("uninstall"), *names])


def _run(command: list[str]) -> Outcome:
    env = dict(os.environ)
    env.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    try:
        proc = subprocess.run(
            command, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL
        )
    except OSError as exc:
        raise OmpError(f"cannot run {command[0]}: {exc.strerror or exc}") from exc
    return Outcome(proc.returncode == 0, (proc.stdout + proc.stderr).strip(), command)


def pip_error(output: str) -> str:
    """pip's own explanation: its ERROR lines (and what follows them), else its tail."""
    lines = output.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(("ERROR", "error"))), None)
    kept = lines[start:] if start is not None else lines[-15:]
    return "\n".join(kept[:40])


def is_conflict(output: str) -> bool:
    text = output.lower()
    return (
        "resolutionimpossible" in text
        or "conflicting dependencies" in text
        or ("no solution found" in text)
    )
