"""The cost of a response from its token counts and the model's prices."""

from __future__ import annotations

from omp.agent.messages import Usage
from omp.agent.providers import Model


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
