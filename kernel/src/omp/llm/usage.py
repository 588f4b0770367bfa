"""Cost of a response from its token counts, and thinking levels mapped per API."""

from __future__ import annotations

from typing import Any

from omp.messages import Usage
from omp.providers import Model

DEFAULT_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768}
EFFORTS = {"minimal": "minimal", "low": "low", "medium": "medium", "high": "high", "xhigh": "high"}


def apply_cost(usage: Usage, model: Model) -> Usage:
    """Fill ``usage.cost`` from the model's prices; a model without prices is marked
    unpriced (``usage.unpriced``), never an error."""
    usage.total_tokens = usage.total_tokens or (
        usage.input + usage.output + usage.cache_read + usage.cache_write
    )
    prices = model.cost
    if not prices:
        usage.unpriced = True  # type: ignore[attr-defined]
        return usage
    cost = usage.cost
    cost.input = usage.input * prices.get("input", 0.0) / 1e6
    cost.output = usage.output * prices.get("output", 0.0) / 1e6
    cost.cache_read = usage.cache_read * prices.get("cacheRead", 0.0) / 1e6
    cost.cache_write = usage.cache_write * prices.get("cacheWrite", 0.0) / 1e6
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
    return usage


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
