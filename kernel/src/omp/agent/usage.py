"""What a conversation's answers cost, its subagents' included."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

SUBAGENT_USAGE_KEY = "subagentUsage"
"""The key of a tool result's ``details`` whose usage (tokens, cost, requests of the
child sessions the tool ran) counts in the session's ``usage_totals``: a dict of
``input``, ``output``, ``cacheRead``, ``cacheWrite``, ``cost`` (dollars, or omp's
``{"total": ...}``), ``requests`` and ``unpriced`` (snake_case keys also accepted)."""

_TOKENS: tuple[tuple[str, str], ...] = (
    ("input", "input"),
    ("output", "output"),
    ("cache_read", "cacheRead"),
    ("cache_write", "cacheWrite"),
)
"""(usage_totals key, camelCase key of a reported usage)."""


def usage_totals(messages: Iterable[Any]) -> dict[str, Any]:
    """Tokens and dollars of every model response in ``messages`` and of the subagents
    their tool results report; ``unpriced`` counts responses from models without a
    price entry (their cost is unknown)."""
    totals: dict[str, Any] = {
        "requests": 0,
        "input": 0,
        "output": 0,
        "cache_read": 0,
        "cache_write": 0,
        "cost": 0.0,
        "unpriced": 0,
    }
    for message in messages:
        role = getattr(message, "role", "")
        if role == "toolResult":
            details = getattr(message, "details", None)
            if isinstance(details, Mapping) and isinstance(
                details.get(SUBAGENT_USAGE_KEY), Mapping
            ):
                _add_reported(totals, details[SUBAGENT_USAGE_KEY])
            continue
        usage = getattr(message, "usage", None)
        if role != "assistant" or usage is None:
            continue
        totals["requests"] += 1
        for key, _ in _TOKENS:
            totals[key] += getattr(usage, key)
        totals["cost"] += usage.cost.total
        totals["unpriced"] += 1 if usage.unpriced else 0
    return totals


def _add_reported(totals: dict[str, Any], usage: Mapping[str, Any]) -> None:
    """Add a subagent usage dict; values that are not numbers count as 0."""
    for key, camel in (*_TOKENS, ("requests", "requests"), ("unpriced", "unpriced")):
        totals[key] += _number(usage.get(camel, usage.get(key)), int)
    cost = usage.get("cost")
    if isinstance(cost, Mapping):
        cost = cost.get("total")
    totals["cost"] += _number(cost, float)


def _number(value: Any, kind: type[int] | type[float]) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return kind(0)
    return kind(value)
