"""Plan mode's per-session state: on or off, the tools to give back, the plan file.

Every change is a ``plan-mode`` custom entry in the session (``{"enabled", "tools"}``),
so a resumed session comes back in the mode it left, on the branch it left."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ENTRY = "plan-mode"
STATE_KEY = "omp-plan-mode"
READ_ONLY = ("read", "grep", "find", "ls", "ask")
"""Tools that never change anything; a plugin's tool joins them with ``read_only = True``."""
PLAN_WRITER = "write"


@dataclass
class PlanState:
    enabled: bool = False
    tools: list[str] = field(default_factory=list)
    """The active tools when plan mode began: what approval gives back."""
    plan_mtime: int | None = None
    """The plan file's mtime when the current prompt started (to see it was written)."""


def state_of(ctx: Any) -> PlanState:
    state = ctx.state.get(STATE_KEY)
    if state is None:
        state = ctx.state[STATE_KEY] = restored(ctx.session.branch_entries())
    return state


def restored(entries: list[dict[str, Any]]) -> PlanState:
    """The state the last ``plan-mode`` entry of the branch left."""
    for entry in reversed(entries):
        if entry.get("type") == "custom" and entry.get("customType") == ENTRY:
            data = entry.get("data") or {}
            tools = data.get("tools")
            return PlanState(
                enabled=bool(data.get("enabled")),
                tools=[str(t) for t in tools] if isinstance(tools, list) else [],
            )
    return PlanState()


def plan_path(ctx: Any) -> Path:
    """``<session folder>/plan.md`` (the session file's stem), or a temporary folder's
    for a session kept in memory."""
    path = ctx.session.path
    folder = Path(path).with_suffix("") if path else ctx.artifacts.directory
    return folder / "plan.md"


def is_read_only(api: Any, name: str) -> bool:
    tool = api.get_tool(name)
    return name in READ_ONLY or bool(getattr(tool, "read_only", False))


def planning_tools(api: Any) -> list[str]:
    """What the model is offered while planning: the read-only tools and ``write``."""
    names = [t["name"] for t in api.get_all_tools()]
    return [n for n in names if n == PLAN_WRITER or is_read_only(api, n)]


def enter(ctx: Any, api: Any) -> PlanState:
    state = state_of(ctx)
    if not state.enabled:
        state.enabled, state.tools = True, api.get_active_tools()
        api.append_entry(ENTRY, {"enabled": True, "tools": state.tools})
        _changed(ctx, api, True)
    api.set_active_tools(planning_tools(api))
    return state


def leave(ctx: Any, api: Any) -> PlanState:
    state = state_of(ctx)
    if state.enabled:
        known = {t["name"] for t in api.get_all_tools()}
        back = [n for n in state.tools if n in known]
        if not back:  # nothing recorded: every tool that is offered by default
            back = [n for n in known if not getattr(api.get_tool(n), "hidden", False)]
        api.set_active_tools(back)
        state.enabled = False
        api.append_entry(ENTRY, {"enabled": False, "tools": back})
        _changed(ctx, api, False)
    return state


def _changed(ctx: Any, api: Any, enabled: bool) -> None:
    api.events.emit("plan-mode.changed", {"enabled": enabled, "session_id": ctx.session.session_id})


def plan_mtime(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None
