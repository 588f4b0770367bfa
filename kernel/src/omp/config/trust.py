"""Project trust, like an editor's workspace trust.

A project directory (``<cwd>/.omp``) can carry code (extension files) and settings that
run code or weaken the user's own configuration (more extension paths, disabled
plugins, where sessions are written). None of that loads until the user trusts the
directory: with ``--trust`` (remembered), by answering the prompt on a terminal, or by
listing it (or a parent) in the user setting ``trustedDirectories``. Until then only the
harmless project settings in ``SAFE_PROJECT_KEYS`` apply.

This module is on the startup path: standard library only.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TRUSTED_DIRECTORIES = "trustedDirectories"

SAFE_PROJECT_KEYS = frozenset(
    {
        "defaultModel",
        "defaultThinkingLevel",
        "steeringMode",
        "followUpMode",
        "interruptMode",
        "sequentialThinking",
    }
)
"""Project settings that apply without trust: they choose how the agent talks, never
what code runs, where data goes or which of the user's plugins load."""


@dataclass
class ProjectTrust:
    """Whether the project directory is trusted, and what was held back if not."""

    directory: Path
    trusted: bool
    skipped_settings: list[str] = field(default_factory=list)
    """Project setting keys that did not apply (the project is not trusted)."""
    skipped_files: list[Path] = field(default_factory=list)
    """Project extension files that were not loaded (not trusted, or the command never
    runs project code)."""

    @property
    def withheld(self) -> bool:
        return bool(self.skipped_settings or self.skipped_files)

    def describe_skipped(self) -> str:
        """One line: what an untrusted project would have loaded, and how to trust it."""
        parts = [str(_relative(p, self.directory)) for p in self.skipped_files]
        if self.skipped_settings:
            parts.append("the project settings " + ", ".join(self.skipped_settings))
        return (
            f"this directory is not trusted, so its project code and settings were "
            f"skipped: {'; '.join(parts)}. Trust it with `omp --trust` (remembered) or "
            f"add it to {TRUSTED_DIRECTORIES} in your user settings"
        )


def is_trusted(directory: Path, trusted_directories: Iterable[Any]) -> bool:
    """Whether ``directory`` is one of ``trusted_directories`` or inside one."""
    here = real_path(directory)
    for entry in trusted_directories:
        if not isinstance(entry, str) or not entry.strip():
            continue
        root = real_path(Path(entry).expanduser())
        if here == root or root in here.parents:
            return True
    return False


def split_project_settings(project: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The project settings that apply without trust, and the keys held back."""
    safe = {k: v for k, v in project.items() if k in SAFE_PROJECT_KEYS}
    return safe, sorted(k for k in project if k not in SAFE_PROJECT_KEYS)


def real_path(path: Path) -> Path:
    """``path`` absolute with symlinks resolved, as trusted directories are stored."""
    return Path(os.path.realpath(os.path.abspath(path)))


def _relative(path: Path, directory: Path) -> Path:
    try:
        return path.relative_to(directory)
    except ValueError:
        return path
