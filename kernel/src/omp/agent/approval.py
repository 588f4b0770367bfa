"""Tool approval, with omp's settings.

``tools.approvalMode`` is ``always-ask`` (every call needs approval), ``write`` (calls
of tools with ``requires_approval``) or ``yolo`` (nothing is asked; what a handler asks
is approved at once). omp's default is yolo; here it is ``write``: no built-in tool
requires approval, so by default only tools and plugins that ask are asked about.
``tools.approval`` maps a tool name to ``allow`` (the mode never asks for it),
``deny`` (every call is denied) or ``prompt`` (every call is asked about). A tool_call
handler's ``{"ask": True, "reason": ...}`` always asks. The user answers through
``ctx.ui.confirm``; where there is no UI the call is denied.
"""

from __future__ import annotations

from typing import Any

from omp.agent.events import ToolApprovalRequestedEvent, ToolApprovalResolvedEvent
from omp.base.errors import OmpError

MODES = ("always-ask", "write", "yolo")
DEFAULT_MODE = "write"
_PER_TOOL = ("allow", "deny", "prompt")


class ToolApproval:
    """The session's ``approval`` (asked by its loop host): None when a call may run,
    else why it may not."""

    def __init__(self, session: Any) -> None:
        self._session = session
        settings = session.settings
        self.mode = settings.get("tools.approvalMode") or DEFAULT_MODE
        if self.mode not in MODES:
            raise OmpError(
                f"unknown tools.approvalMode {self.mode!r}; use one of " + ", ".join(MODES)
            )
        per_tool = settings.get("tools.approval") or {}
        if not isinstance(per_tool, dict) or any(v not in _PER_TOOL for v in per_tool.values()):
            raise OmpError("tools.approval must map tool names to one of " + ", ".join(_PER_TOOL))
        self.per_tool: dict[str, str] = per_tool

    def _required(self, tool: Any, asked: bool) -> bool:
        rule = self.per_tool.get(tool.name)
        if asked or rule == "prompt":
            return True
        if rule == "allow":
            return False
        return self.mode == "always-ask" or (self.mode == "write" and tool.requires_approval)

    async def __call__(self, call: Any, tool: Any, decision: Any) -> str | None:
        if self.per_tool.get(tool.name) == "deny":
            return f"Tool call {tool.name} was denied by the tools.approval setting"
        asked = bool(decision is not None and decision.ask)
        if not self._required(tool, asked):
            return None
        session = self._session
        reason = decision.reason if asked else None
        ids = {
            "session_id": session.session_file.session_id,
            "tool_call_id": call.id,
            "tool_name": tool.name,
        }
        await session.hooks.tool_approval_requested(
            ToolApprovalRequestedEvent(**ids, reason=reason, approval_mode=self.mode),
        )
        approved, why = await self._decide(tool.name, call.arguments, reason)
        await session.hooks.tool_approval_resolved(
            ToolApprovalResolvedEvent(**ids, approved=approved, reason=why),
        )
        return None if approved else f"Tool call {tool.name} was denied: {why}"

    async def _decide(self, name: str, arguments: dict[str, Any], reason: str | None) -> Any:
        """(approved, why)."""
        if self.mode == "yolo":
            return True, "tools.approvalMode is yolo"
        session = self._session
        if not session.has_ui:
            return False, (
                "it needs approval and there is no UI to ask; allow it with "
                f"tools.approval {{{name!r}: 'allow'}} or tools.approvalMode yolo"
            )
        details = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
        message = "\n".join(part for part in (reason, f"{name}({details})") if part)
        if await session.ui.confirm(f"Allow {name}?", message, signal=session.agent.signal):
            return True, "approved by the user"
        return False, "the user declined"
