"""Tool-output pruning, omp's ``pruneToolOutputs``: when the context fills up, the
outputs of old tool calls beyond a budget of the newest become a short placeholder in
what the model is sent. The session file keeps every output whole (a resumed session
prunes again); the call and its result stay paired.

omp's policy: the newest ``40,000`` tokens of tool output are protected, a pruning
must save at least ``20,000`` tokens to be worth breaking the provider's prompt cache,
and ``read`` and ``skill`` results (what the model chose to load) are never pruned.
"""

from __future__ import annotations

from typing import Any

from omp import TextContent, ToolResultMessage, content_text

DEFAULT_PROTECT = 40_000
DEFAULT_MINIMUM = 20_000
NEVER_PRUNED = frozenset({"read", "skill"})
PLACEHOLDER = "[Output truncated - {tokens} tokens]"


def settings_of(settings: Any) -> tuple[bool, int, int]:
    """(enabled, protect, minimum) from ``compaction.pruneToolOutputs``,
    ``compaction.pruneProtectTokens`` and ``compaction.pruneMinimumTokens``."""
    enabled = settings.get("compaction.pruneToolOutputs", True) is not False
    protect = settings.get("compaction.pruneProtectTokens", DEFAULT_PROTECT)
    minimum = settings.get("compaction.pruneMinimumTokens", DEFAULT_MINIMUM)
    protect = protect if isinstance(protect, int) and protect >= 0 else DEFAULT_PROTECT
    minimum = minimum if isinstance(minimum, int) and minimum >= 0 else DEFAULT_MINIMUM
    return enabled, protect, minimum


def is_pruned(message: Any) -> bool:
    return isinstance(message, ToolResultMessage) and content_text(message.content).startswith(
        "[Output truncated - "
    )


def prune_tool_outputs(
    messages: list[Any], counter: Any, *, protect: int, minimum: int
) -> tuple[list[Any], int]:
    """``messages`` with the old tool outputs pruned, and the tokens saved; the same
    list and 0 when the saving would be under ``minimum``. Untouched messages stay the
    same objects."""
    seen = 0
    chosen: list[int] = []
    saved = 0
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if not isinstance(message, ToolResultMessage) or message.tool_name in NEVER_PRUNED:
            continue
        if is_pruned(message):
            break  # everything older was pruned before
        size = counter.of(message)
        seen += size
        if seen > protect:
            chosen.append(index)
            saved += size
    if saved < minimum or not chosen:
        return messages, 0
    out = list(messages)
    for index in chosen:
        original = out[index]
        note = PLACEHOLDER.format(tokens=counter.of(original))
        out[index] = original.model_copy(update={"content": [TextContent(text=note)]})
    saved -= sum(counter.of(out[i]) for i in chosen)
    return out, max(saved, 0)
