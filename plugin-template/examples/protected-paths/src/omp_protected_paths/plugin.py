"""Block ``write`` and ``edit`` calls on protected paths: secrets (``.env``,
``.env.local``...) and the repository's own data (anything under ``.git``)."""

from __future__ import annotations

import fnmatch
import os
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

import omp

if TYPE_CHECKING:
    from omp import ToolCallDecision, ToolCallEvent

GUARDED_TOOLS = {"write", "edit"}
PROTECTED_NAMES = (".env", ".env.*")
PROTECTED_DIRS = (".git",)


def protection(path: str, cwd: str) -> str | None:
    """Why ``path`` (relative to ``cwd`` or absolute) is protected, or None."""
    full = PurePath(os.path.normpath(os.path.join(cwd, os.path.expanduser(path))))
    if any(part in PROTECTED_DIRS for part in full.parts):
        return f"{path} is inside .git, which only git itself should change"
    if any(fnmatch.fnmatch(full.name, pattern) for pattern in PROTECTED_NAMES):
        return f"{path} holds secrets (.env files are protected)"
    return None


@omp.hookimpl
def omp_tool_call(event: ToolCallEvent, ctx: Any) -> ToolCallDecision | None:
    from omp import ToolCallDecision

    if event.tool_name not in GUARDED_TOOLS:
        return None
    reason = protection(str(event.input.get("path", "")), str(ctx.cwd))
    return ToolCallDecision(block=True, reason=reason) if reason else None
