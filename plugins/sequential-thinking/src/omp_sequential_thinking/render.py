"""How a thought looks: one stderr line in print mode, a compact tree row in the TUI."""

from __future__ import annotations

from typing import Any


def _marks(details: dict[str, Any]) -> str:
    marks = []
    if details.get("revisesThought") is not None:
        marks.append(f"revises #{details['revisesThought']}")
    if details.get("branchFromThought") is not None:
        branch = details.get("branchId") or "branch"
        marks.append(f"{branch} from #{details['branchFromThought']}")
    if details.get("outOfOrder"):
        marks.append(f"expected #{details.get('expectedThoughtNumber')}")
    return f" ({'; '.join(marks)})" if marks else ""


def render_thought(event: Any, options: dict[str, Any] | None = None) -> list[str]:
    """Lines for a finished sequential_thinking call (a tool_execution_end event)."""
    result = getattr(event, "result", None) or {}
    details = result.get("details") if isinstance(result, dict) else None
    if getattr(event, "is_error", False) or not isinstance(details, dict):
        content = result.get("content", []) if isinstance(result, dict) else []
        text = " ".join(getattr(b, "text", "") or "" for b in content).strip()
        return [f"thought rejected: {text}"]
    number, total = details.get("thoughtNumber"), details.get("totalThoughts")
    thought = " ".join(str(details.get("thought", "")).split())
    mode = (options or {}).get("mode", "print")
    if mode == "print":
        return [f"thought {number}/{total}: {thought}{_marks(details)}"]
    indent = "  " if details.get("branchFromThought") is not None else ""
    glyph = (
        "↺"
        if details.get("revisesThought") is not None
        else ("⑂" if details.get("branchFromThought") is not None else "•")
    )
    return [f"{indent}{glyph} {number}/{total} {thought[:120]}{_marks(details)}"]
