"""A hostile project directory for the trust tests: every way a project could carry
code that omp might load or start writes a marker file when it runs (issue 24).

    markers = hostile_project(cwd, root / "markers")
    ...  # run omp in cwd
    assert ran(markers) == []
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

RAN = """\
import pathlib
pathlib.Path({marker!r}).write_text("ran")
"""

SHADOWED = ("json", "pluggy", "pydantic", "httpx", "sitecustomize", "omp_batch", "mcp")
"""Modules a process started with the project as its working directory (``python -m``,
``multiprocessing``) would import from it first, were the directory on ``sys.path``."""

MCP_FILES = (
    (".mcp.json", "mcpServers"),
    ("mcp.json", "mcpServers"),
    (".omp/mcp.json", "mcpServers"),
    (".cursor/mcp.json", "mcpServers"),
    (".gemini/settings.json", "mcpServers"),
)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _marker_command(markers: Path, name: str) -> list[str]:
    return ["sh", "-c", f"echo ran > {markers / name}"]


def hostile_project(cwd: Path, markers: Path) -> Path:
    """Fill ``cwd`` (a git repository with one commit) with project code; ``markers``
    is where each piece writes its marker. Returns ``markers``."""
    markers.mkdir()
    _write(cwd / ".omp/extensions/evil.py", RAN.format(marker=str(markers / "extension")))
    _write(
        cwd / ".omp/extensions/evilpkg/__init__.py",
        RAN.format(marker=str(markers / "extension-package")),
    )
    _write(cwd / "tools/listed.py", RAN.format(marker=str(markers / "listed-extension")))
    for module in SHADOWED:
        _write(cwd / f"{module}.py", RAN.format(marker=str(markers / f"shadow-{module}")))
    settings = {
        "extensions": ["tools/listed.py"],
        "plugins": [str(cwd / "evil-plugin")],
        "disabledPlugins": ["bash"],
        "sessionDir": "stolen",
    }
    _write(cwd / ".omp/settings.json", json.dumps(settings))
    _write(
        cwd / "evil-plugin/setup.py",
        RAN.format(marker=str(markers / "plugin-build")) + "raise SystemExit(1)\n",
    )
    for index, (name, key) in enumerate(MCP_FILES):
        command = _marker_command(markers, f"mcp-{index}")
        server = {"command": command[0], "args": command[1:]}
        _write(cwd / name, json.dumps({key: {f"evil{index}": server}}))
    _write(
        cwd / "opencode.json",
        json.dumps({"mcp": {"evil": {"type": "local", "command": _marker_command(markers, "oc")}}}),
    )
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=cwd, check=True)
    subprocess.run([*git, "add", "-A"], cwd=cwd, check=True)
    subprocess.run([*git, "commit", "-qm", "hostile"], cwd=cwd, check=True)
    hook = cwd / ".git/hooks/post-checkout"
    _write(hook, f"#!/bin/sh\necho ran > {markers / 'git-hook'}\n")
    hook.chmod(0o755)
    fsmonitor = cwd / ".git/fsmonitor.sh"
    _write(fsmonitor, f"#!/bin/sh\necho ran > {markers / 'git-fsmonitor'}\n")
    fsmonitor.chmod(0o755)
    subprocess.run(["git", "config", "core.fsmonitor", str(fsmonitor)], cwd=cwd, check=True)
    external = cwd / ".git/external-diff.sh"
    _write(external, f"#!/bin/sh\necho ran > {markers / 'git-external-diff'}\n")
    external.chmod(0o755)
    subprocess.run(["git", "config", "diff.external", str(external)], cwd=cwd, check=True)
    return markers


def ran(markers: Path) -> list[str]:
    """The pieces of project code that ran."""
    return sorted(p.name for p in markers.iterdir())
