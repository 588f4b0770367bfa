"""Which language servers exist here: built-in defaults, ``lsp.json`` files and the
``lsp.servers`` setting, merged by server name, kept when their command is found.

Layers, later wins per field: built-in defaults; ``<agent dir>/lsp.json``; the project's
``.omp/lsp.json`` (only when the project is trusted: it names programs to run); the
``lsp.servers`` setting (name -> command line; ``[]`` switches a server off). An
``lsp.json`` is ``{"servers": {NAME: {command, args, fileTypes, rootMarkers,
initializationOptions, settings, disabled}}}`` (a bare ``{NAME: {...}}`` works too).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULTS: dict[str, dict[str, Any]] = {
    "basedpyright": {
        "command": "basedpyright-langserver",
        "args": ["--stdio"],
        "fileTypes": [".py", ".pyi"],
        "rootMarkers": ["pyproject.toml", "setup.py", "setup.cfg", "pyrightconfig.json"],
    },
    "pyright": {
        "command": "pyright-langserver",
        "args": ["--stdio"],
        "fileTypes": [".py", ".pyi"],
        "rootMarkers": ["pyproject.toml", "setup.py", "setup.cfg", "pyrightconfig.json"],
        "fallbackFor": "basedpyright",
    },
    "typescript-language-server": {
        "command": "typescript-language-server",
        "args": ["--stdio"],
        "fileTypes": [".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs"],
        "rootMarkers": ["package.json", "tsconfig.json", "jsconfig.json"],
    },
    "rust-analyzer": {
        "command": "rust-analyzer",
        "fileTypes": [".rs"],
        "rootMarkers": ["Cargo.toml", "rust-analyzer.toml"],
    },
    "gopls": {
        "command": "gopls",
        "args": ["serve"],
        "fileTypes": [".go", ".mod"],
        "rootMarkers": ["go.mod", "go.work"],
    },
    "clangd": {
        "command": "clangd",
        "args": ["--background-index"],
        "fileTypes": [".c", ".cpp", ".cc", ".cxx", ".h", ".hpp", ".hxx", ".m", ".mm"],
        "rootMarkers": ["compile_commands.json", "CMakeLists.txt", ".clangd", "Makefile"],
    },
}

LANGUAGE_IDS = {
    ".py": "python", ".pyi": "python", ".ts": "typescript", ".tsx": "typescriptreact",
    ".js": "javascript", ".jsx": "javascriptreact", ".mjs": "javascript",
    ".cjs": "javascript", ".rs": "rust", ".go": "go", ".mod": "go.mod", ".c": "c",
    ".h": "c", ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hxx": "cpp",
    ".m": "objective-c", ".mm": "objective-cpp",
}  # fmt: skip


@dataclass(frozen=True)
class ServerConfig:
    """One usable server: ``command`` is resolved (its program exists)."""

    name: str
    command: tuple[str, ...]
    extensions: tuple[str, ...]
    root_markers: tuple[str, ...] = ()
    initialization_options: Any = None
    settings: dict[str, Any] = field(default_factory=dict)

    def covers(self, path: Path) -> bool:
        return path.suffix.lower() in self.extensions

    def language_id(self, path: Path) -> str:
        return LANGUAGE_IDS.get(path.suffix.lower(), path.suffix.lstrip(".") or "plaintext")

    def root_for(self, path: Path, cwd: Path) -> Path:
        """The nearest folder above ``path`` holding a root marker, else ``cwd``."""
        for parent in path.parents:
            if any((parent / marker).exists() for marker in self.root_markers):
                return parent
            if parent == cwd:
                break
        return cwd


def _read_file(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object")
    servers = data.get("servers", data)
    return {k: v for k, v in servers.items() if isinstance(v, dict)}


def merged_servers(
    settings: Any, cwd: Path, trusted: bool, agent_dir: Path
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Every layer merged by server name (unresolved), and the problems found on the way."""
    merged = {name: dict(spec) for name, spec in DEFAULTS.items()}
    problems: list[str] = []
    files = [agent_dir / "lsp.json"]
    if trusted:
        files.append(cwd / ".omp" / "lsp.json")
    for path in files:
        try:
            layer = _read_file(path)
        except ValueError as e:
            problems.append(str(e))
            continue
        for name, spec in layer.items():
            merged[name] = {**merged.get(name, {}), **spec}
    for name, line in dict(settings.get("lsp.servers") or {}).items():
        if not line:
            merged.setdefault(name, {})["disabled"] = True
        else:
            merged[name] = {**merged.get(name, {}), "command": line[0], "args": list(line[1:])}
    return merged, problems


def _which(program: str) -> str | None:
    """``program`` on PATH, or next to this interpreter (a venv's console scripts)."""
    if os.sep in program:
        return program if os.access(program, os.X_OK) else None
    found = shutil.which(program)
    if found:
        return found
    for folder in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        candidate = shutil.which(program, path=str(folder))
        if candidate:
            return candidate
    return None


def resolve(name: str, spec: dict[str, Any]) -> ServerConfig | None:
    """The usable server ``spec`` describes, or None (off, incomplete, program missing)."""
    if spec.get("disabled") or not spec.get("command") or not spec.get("fileTypes"):
        return None
    program = _which(str(spec["command"]))
    if program is None:
        return None
    extensions = tuple((e if e.startswith(".") else "." + e).lower() for e in spec["fileTypes"])
    return ServerConfig(
        name=name,
        command=(program, *[str(a) for a in spec.get("args") or []]),
        extensions=extensions,
        root_markers=tuple(spec.get("rootMarkers") or ()),
        initialization_options=spec.get("initializationOptions", spec.get("initOptions")),
        settings=dict(spec.get("settings") or {}),
    )


def available_servers(
    settings: Any, cwd: Path, trusted: bool, agent_dir: Path | None = None
) -> list[ServerConfig]:
    """The servers that can run here (cheap: starts nothing)."""
    import omp

    merged, _ = merged_servers(settings, cwd, trusted, agent_dir or Path(omp.agent_dir()))
    found: dict[str, ServerConfig] = {}
    for name, spec in merged.items():
        config = resolve(name, spec)
        if config is not None:
            found[name] = config
    for name, spec in merged.items():  # pyright only when basedpyright is missing
        if spec.get("fallbackFor") in found:
            found.pop(name, None)
    return list(found.values())
