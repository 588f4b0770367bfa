"""The sequential_thinking tool: records one thought; enforcement lives in plugin.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from omp import Tool, ToolResult
from pydantic import BaseModel, Field, field_validator

from omp_sequential_thinking.names import TOOL_NAME
from omp_sequential_thinking.state import ThinkingState

DESCRIPTION = "A detailed tool for dynamic and reflective problem-solving through thoughts."


class ThoughtParams(BaseModel):
    """The names are the MCP server's: models already know them."""

    thought: str = Field(description="Your current thinking step")
    thoughtNumber: int = Field(ge=1, description="Current thought number, 1-based")
    totalThoughts: int = Field(ge=1, description="Estimated total thoughts; may change")
    nextThoughtNeeded: bool = Field(description="Whether another thought is needed")
    isRevision: bool | None = Field(None, description="Whether this revises a thought")
    revisesThought: int | None = Field(None, ge=1, description="Which thought is revised")
    branchFromThought: int | None = Field(None, ge=1, description="Thought to branch from")
    branchId: str | None = Field(None, description="Branch identifier")
    needsMoreThoughts: bool | None = Field(None, description="If more thoughts are needed")

    @field_validator(
        "thoughtNumber", "totalThoughts", "revisesThought", "branchFromThought", mode="before"
    )
    @classmethod
    def _whole_number(cls, value: Any) -> Any:
        """Models send "3" or 3.0; a validation error made them abandon the MCP tool."""
        if isinstance(value, str) and value.strip():
            try:
                number = float(value.strip())
            except ValueError:
                return value
            return int(number) if number.is_integer() else value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value


def _mark(flag: bool) -> str:
    return "true" if flag else "false"


class SequentialThinkingTool(Tool):
    name = TOOL_NAME
    label = "Sequential Thinking"
    description = DESCRIPTION
    parameters = ThoughtParams

    def __init__(self, state_of: Callable[[Any], ThinkingState]) -> None:
        super().__init__()
        self._state_of = state_of

    def execute(
        self, call_id: str, params: ThoughtParams, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        state = self._state_of(ctx)
        for field, value in (
            ("revisesThought", params.revisesThought),
            ("branchFromThought", params.branchFromThought),
        ):
            if value is not None and value not in state.numbers:
                known = ", ".join(str(n) for n in sorted(state.numbers)) or "none yet"
                return ToolResult.error(
                    f"{field} {value} does not name a recorded thought (recorded: {known}). "
                    f"Use the number of an earlier thought, or leave {field} out."
                )
        expected = state.recorded + 1
        needed = params.nextThoughtNeeded or (
            state.threshold > 0 and min(params.thoughtNumber, expected) < state.threshold
        )
        details: dict[str, Any] = {
            "thought": params.thought,
            "thoughtNumber": params.thoughtNumber,
            "totalThoughts": params.totalThoughts,
            "nextThoughtNeeded": needed,
            "recorded": expected,
            "required": state.threshold,
        }
        for key in (
            "isRevision",
            "revisesThought",
            "branchFromThought",
            "branchId",
            "needsMoreThoughts",
        ):
            value = getattr(params, key)
            if value is not None:
                details[key] = value
        if params.thoughtNumber != expected:
            details["outOfOrder"] = True
            details["expectedThoughtNumber"] = expected
        text = (
            f'Thought #{params.thoughtNumber} recorded: "{params.thought}". '
            f"nextThoughtNeeded: {_mark(needed)}."
        )
        return ToolResult.text(text, details=details)
