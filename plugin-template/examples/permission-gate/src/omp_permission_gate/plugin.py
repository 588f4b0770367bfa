"""Ask the user before a bash command deletes recursively and by force (``rm -rf``);
where there is nobody to ask (print mode, json mode, a CI job), block it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import omp

if TYPE_CHECKING:
    from omp import ToolCallDecision, ToolCallEvent

GUARDED_TOOLS = {"bash"}
RM_RF = re.compile(
    r"\brm\s+(?:-\w*r\w*f\w*|-\w*f\w*r\w*|-\w*r\w*\s+-\w*f\w*|-\w*f\w*\s+-\w*r\w*"
    r"|--recursive\s+--force|--force\s+--recursive)\b",
    re.IGNORECASE,
)


def is_dangerous(command: str) -> bool:
    return bool(RM_RF.search(command))


@omp.hookimpl
async def omp_tool_call(event: ToolCallEvent, ctx: Any) -> ToolCallDecision | None:
    from omp import ToolCallDecision

    command = str(event.input.get("command", ""))
    if event.tool_name not in GUARDED_TOOLS or not is_dangerous(command):
        return None
    if not ctx.has_ui:
        return ToolCallDecision(
            block=True, reason="rm -rf needs a person to approve it; no one can here"
        )
    if await ctx.ui.confirm("Allow rm -rf?", command):
        return None
    return ToolCallDecision(block=True, reason="the user did not allow this rm -rf")
