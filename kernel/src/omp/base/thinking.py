"""Thinking levels: every level omp knows, the ones a model offers, and the cycle
through them that every mode (interactive, RPC, ACP) uses.

Standard library only (``omp.config.schema`` imports it on the startup path).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from omp.agent.providers import Model

ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh"]
"""A thinking level, as the public API types it."""
THINKING_LEVELS: tuple[ThinkingLevel, ...] = ("off", "minimal", "low", "medium", "high", "xhigh")


def split_thinking(pattern: str) -> tuple[str, str | None]:
    """``provider/model:level`` -> (``provider/model``, ``level``); no level: None."""
    head, sep, tail = pattern.rpartition(":")
    if sep and tail in THINKING_LEVELS:
        return head, tail
    return pattern, None


def thinking_levels(model: Model | None) -> tuple[str, ...]:
    """The levels ``model`` offers, in order: only ``off`` for a model that does not
    think; otherwise every level but those its ``thinkingLevelMap`` maps to null, and
    ``xhigh`` only when the map gives it a value (few models have it, as in pi).
    Without a model nothing is known to exclude, so every level."""
    if model is None:
        return THINKING_LEVELS
    if not model.reasoning:
        return ("off",)
    mapping = model.thinking_level_map
    return tuple(level for level in THINKING_LEVELS if _offered(mapping, level))


def _offered(mapping: dict[str, object], level: str) -> bool:
    if level in mapping:
        return mapping[level] is not None
    return level != "xhigh"


def next_thinking_level(model: Model | None, current: str) -> str | None:
    """The level after ``current`` among those ``model`` offers, wrapping round (the
    first when ``current`` is not offered); None when there is nothing to cycle to."""
    levels = thinking_levels(model)
    if len(levels) < 2:
        return None
    index = levels.index(current) if current in levels else -1
    return levels[(index + 1) % len(levels)]
