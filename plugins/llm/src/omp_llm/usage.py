"""Thinking levels mapped per API (a response's cost is ``omp.agent.cost.apply_cost``)."""

from __future__ import annotations

from typing import Any

from omp import Model

DEFAULT_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768}
EFFORTS = {"minimal": "minimal", "low": "low", "medium": "medium", "high": "high", "xhigh": "high"}


def thinking_value(model: Model, level: str) -> Any:
    """The model's own value for a level from ``thinkingLevelMap`` (None: unsupported,
    missing: the API's default mapping, returned as the level itself)."""
    if level in model.thinking_level_map:
        return model.thinking_level_map[level]
    return level


def budget_tokens(level: str, settings: dict[str, Any] | None = None) -> int:
    budgets = (settings or {}).get("thinkingBudgets") or {}
    return int(budgets.get(level, DEFAULT_BUDGETS.get(level, 0)))


def effort(level: str) -> str:
    return EFFORTS.get(level, "medium")
