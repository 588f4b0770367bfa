"""Whether the ``lsp`` tool is offered in a directory, and why not (``omp plugins``,
``omp plugin doctor``): the same look a session takes before offering it, plus which
languages the workspace holds and which server would cover them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from omp_lsp.actions_base import serves_workspace, workspace_files
from omp_lsp.config import DEFAULTS, LANGUAGE_IDS, available_servers

LOOK_BUDGET = 5000
"""File and folder names looked at, at most, to find the workspace's languages."""


def unavailable(settings: Any, cwd: Path, agent_dir: Path) -> str | None:
    """Why no language server answers for ``cwd``, with what would fix it; None when
    one does (the lsp tool and diagnostics after write/edit are on)."""
    if settings.get("lsp.enabled") is False:
        return "lsp.enabled is false (omp config set lsp.enabled true)"
    trusted = bool(getattr(getattr(settings, "trust", None), "trusted", False))
    configs = available_servers(settings, cwd, trusted, agent_dir)
    if serves_workspace(configs, str(cwd)):
        return None
    present = _extensions(cwd)
    if not present:
        return "no source file here that a language server covers"
    wanted = sorted({_default_for(ext) or f"a server for {ext}" for ext in present})
    found = ", ".join(c.name for c in configs) or "none"
    languages = ", ".join(sorted({LANGUAGE_IDS[ext] for ext in present}))
    return (
        f"no language server found for this workspace's languages ({languages}; servers "
        f"found: {found}); install {' or '.join(wanted)}, or name one in lsp.json"
    )


def _extensions(cwd: Path) -> set[str]:
    """The known source extensions among the workspace's first files."""
    files = workspace_files(str(cwd), tuple(LANGUAGE_IDS), 200, LOOK_BUDGET)
    return {os.path.splitext(name)[1].lower() for name in files} & set(LANGUAGE_IDS)


def _default_for(extension: str) -> str | None:
    """The built-in server program covering ``extension`` (basedpyright for Python)."""
    for name, spec in DEFAULTS.items():
        if extension in spec["fileTypes"] and not spec.get("fallbackFor"):
            return "basedpyright (pip install basedpyright)" if name == "basedpyright" else name
    return None
