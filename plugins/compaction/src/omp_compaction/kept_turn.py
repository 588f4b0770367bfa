"""The part of the context a compaction must keep, made to fit the window.

A compaction keeps the newest messages verbatim (never a tool call without its result)
and summarises what came before. When what it must keep is alone too big - one reply
with thousands of tool calls, a few huge outputs - a summary on top only makes the
context bigger. So the largest tool results of the kept part move to artifacts (the
session's ``artifact://ID`` files, which ``read`` pages through) and leave a pointer,
as omp's pruning leaves a placeholder; like pruning, this changes what requests are
built from, never the session file. What still cannot fit is reported in one line
naming the turn, its size and the window, and the run stops.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from omp import (
    AssistantMessage,
    CompactionSummaryMessage,
    TextContent,
    ToolResultMessage,
    UserMessage,
    content_text,
)

SUMMARY_ROOM = 4096
"""Tokens left free beside the kept part for the summary of what came before it."""

MIN_MOVED = 100
"""A tool result smaller than this (in tokens) stays: its pointer would cost about as much."""

POINTER = (
    "[Output moved to {reference} ({tokens:,} tokens) to fit the context window: "
    "read it with the read tool, a part at a time (offset, limit)]"
)


@dataclass
class Fit:
    """What fitting the kept part did: ``moved`` tool results, ``saved`` tokens, and
    ``too_big`` - the one-line reason - when even that cannot make it fit."""

    moved: int = 0
    saved: int = 0
    too_big: str | None = None


def kept_start(messages: list[Any], kept: int | None) -> int:
    """Where the kept part begins in ``messages``: the last ``kept`` messages, or
    (None: nothing before it can be summarised) all but a leading summary."""
    if kept is not None:
        return max(len(messages) - kept, 0)
    return 1 if messages and isinstance(messages[0], CompactionSummaryMessage) else 0


def fit(
    messages: list[Any],
    start: int,
    counter: Any,
    *,
    budget: int,
    limit: int,
    save: Callable[[str], str],
) -> tuple[list[Any], Fit]:
    """``messages`` with the largest tool results from ``start`` on moved out (``save``
    stores a text and returns its ``artifact://`` reference) until the part from
    ``start`` is at most ``budget`` tokens. When it cannot get under ``limit``, nothing
    is moved and ``Fit.too_big`` says why. Untouched messages stay the same objects."""
    size = sum(counter.of(m) for m in messages[start:])
    if size <= budget:
        return messages, Fit()
    candidates = sorted(
        (
            (counter.of(m), index)
            for index, m in enumerate(messages[start:], start)
            if isinstance(m, ToolResultMessage) and counter.of(m) >= MIN_MOVED
        ),
        reverse=True,
    )
    floor = size - sum(t for t, _ in candidates) + len(candidates) * _pointer_tokens(counter)
    if floor > limit:
        return messages, Fit(too_big=_why(messages, start, floor, bool(candidates)))
    out, result = list(messages), Fit()
    for tokens, index in candidates:
        if size - result.saved <= budget:
            break
        original = out[index]
        text = content_text([b for b in original.content if isinstance(b, TextContent)])
        pointer = POINTER.format(reference=save(text), tokens=tokens)
        others = [b for b in original.content if not isinstance(b, TextContent)]
        out[index] = original.model_copy(update={"content": [TextContent(text=pointer), *others]})
        result.moved += 1
        result.saved += tokens - counter.of(out[index])
    return out, result


def _why(messages: list[Any], start: int, floor: int, moved: bool) -> str:
    """``the turn of the prompt "..." (1 reply, 2,500 tool calls) needs 41,000 tokens``."""
    replies = [m for m in messages[start:] if isinstance(m, AssistantMessage)]
    calls = sum(len(m.tool_calls) for m in replies)
    prompt = next((m for m in reversed(messages[: start + 1]) if isinstance(m, UserMessage)), None)
    shown = " ".join(content_text(prompt.content).split()) if prompt is not None else ""
    if len(shown) > 60:
        shown = shown[:57] + "..."
    what = f'the turn of the prompt "{shown}"' if prompt is not None else "the current turn"
    counts = f"{len(replies)} repl{'y' if len(replies) == 1 else 'ies'}, {calls:,} tool calls"
    after = " even with its tool results moved to artifacts" if moved else ""
    return f"{what} ({counts}) needs {floor:,} tokens{after}"


def _pointer_tokens(counter: Any) -> int:
    sample = ToolResultMessage(
        tool_call_id="x",
        tool_name="x",
        content=[TextContent(text=POINTER.format(reference="artifact://0000000.txt", tokens=1))],
    )
    return counter.of(sample)
