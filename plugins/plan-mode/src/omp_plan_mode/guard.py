"""What plan mode lets through: read-only tools, and ``write`` to the plan file only."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from omp_plan_mode.state import PLAN_WRITER, is_read_only, plan_path

REASON = "plan mode is read-only"


def blocked(ctx: Any, api: Any, tool_name: str, arguments: dict[str, Any]) -> str | None:
    """Why the call may not run while planning, or None when it may."""
    plan = plan_path(ctx)
    if tool_name == PLAN_WRITER:
        target = str(arguments.get("path") or "")
        if target and _same(Path(ctx.cwd), target, plan):
            return None
        return f"{REASON}: write your plan to {plan}, the only file you may write"
    if is_read_only(api, tool_name):
        return None
    return f"{REASON}: {tool_name} is not available until the plan is approved"


def _same(cwd: Path, target: str, plan: Path) -> bool:
    path = Path(os.path.expanduser(target))
    if not path.is_absolute():
        path = cwd / path
    return os.path.realpath(path) == os.path.realpath(plan)  # as write resolves it
