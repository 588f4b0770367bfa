"""Compaction, the pure part: how full the context is, where to cut it, and the text
the summarising model reads. The session-level flow (hooks, the summary request, the
entry, the automatic triggers) is ``omp_compaction.compactor``.

The cut follows pi and omp: walking back from the newest message, recent messages are
kept verbatim until ``compaction.keepRecentTokens`` is reached; the cut then moves
forward to the nearest message that may start the kept part - never a tool result,
so a tool call and its result are never split. A cut inside a turn (pi's split turn)
summarises the complete turns before it and the turn's early part apart, and joins the
two summaries. On a repeated compaction the span
summarised starts where the previous compaction's kept part started, with the
previous summary handed to the model as well.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from omp import (
    AssistantMessage,
    CompactionSummaryMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    content_text,
    convert_to_llm,
)

from omp_compaction import tokens

DEFAULT_RESERVE = 16_384
DEFAULT_KEEP_RECENT = 20_000
READ_TOOLS = {"read"}
WRITE_TOOLS = {"write", "edit"}


@dataclass(frozen=True)
class Limits:
    window: int
    reserve: int
    keep_recent: int

    @property
    def threshold(self) -> int:
        """The context size past which the session compacts on its own."""
        return self.window - self.reserve


def limits(settings: Any, window: int) -> Limits:
    """omp's defaults: reserve max(16,384, 15% of the window), at most a quarter of a
    small window (a 32k local model must not compact at every request); keep 20,000
    recent tokens, at most half of what is left under the threshold."""
    configured = settings.get("compaction.reserveTokens")
    if isinstance(configured, int) and configured >= 0:
        reserve = min(configured, max(window - 1, 0))
    else:
        reserve = min(max(DEFAULT_RESERVE, window * 15 // 100), window // 4)
    keep = settings.get("compaction.keepRecentTokens", DEFAULT_KEEP_RECENT)
    keep = keep if isinstance(keep, int) and keep >= 0 else DEFAULT_KEEP_RECENT
    return Limits(window, reserve, min(keep, max((window - reserve) // 2, 0)))


# -- counting ------------------------------------------------------------------------


def message_text(message: Any) -> str:
    """What a message costs the model, as text: its content, thinking and tool calls."""
    if isinstance(message, AssistantMessage):
        parts = []
        for block in message.content:
            if isinstance(block, TextContent):
                parts.append(block.text)
            elif isinstance(block, ThinkingContent):
                parts.append(block.thinking)
            elif isinstance(block, ToolCall):
                parts.append(f"{block.name} {json.dumps(block.arguments, ensure_ascii=False)}")
        return "\n".join(parts)
    return "\n".join(content_text(m.content) for m in convert_to_llm([message]))


class TokenCounter:
    """Token counts of messages, each counted once (messages do not change)."""

    def __init__(self) -> None:
        self._counts: dict[int, tuple[Any, int]] = {}

    def of(self, message: Any) -> int:
        cached = self._counts.get(id(message))
        if cached is not None and cached[0] is message:
            return cached[1]
        counted = tokens.count(message_text(message)) + 4
        self._counts[id(message)] = (message, counted)
        return counted

    def forget_except(self, messages: list[Any]) -> None:
        keep = {id(m) for m in messages}
        self._counts = {k: v for k, v in self._counts.items() if k in keep}


def _fresh_usage(messages: Sequence[Any]) -> tuple[int, int]:
    """(index, tokens) of the newest assistant reply whose usage the provider reported
    and that came after the latest compaction; (-1, 0) when there is none.

    A compaction's summary is always the first message of the context it rebuilds
    (``SessionFile.build_context``, ``Compactor``), so only that one is looked at: this
    runs before every request and must not walk a long conversation."""
    first = messages[0] if messages else None
    compacted_at = first.timestamp if isinstance(first, CompactionSummaryMessage) else 0
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if not isinstance(message, AssistantMessage) or message.stop_reason in (
            "error",
            "aborted",
        ):
            continue
        usage = message.usage
        total = usage.total_tokens or (
            usage.input + usage.output + usage.cache_read + usage.cache_write
        )
        if total > 0 and message.timestamp >= compacted_at:
            return index, total
        return -1, 0
    return -1, 0


def context_tokens(
    system_prompt: str, messages: Sequence[Any], counter: TokenCounter, limit: int | None = None
) -> int:
    """The context's size in tokens: the provider's last reported usage plus the
    messages since, else a count of everything. With ``limit``, a cheap upper bound
    answers when it is below ``limit`` (no tokenizer is loaded)."""
    index, reported = _fresh_usage(messages)
    later = messages[index + 1 :] if index >= 0 else messages
    if limit is not None:
        bound = reported + sum(tokens.upper_bound(message_text(m)) + 4 for m in later)
        if index < 0:
            bound += tokens.upper_bound(system_prompt)
        if bound <= limit:
            return bound
    total = reported + sum(counter.of(m) for m in later)
    return total if index >= 0 else total + tokens.count(system_prompt)


# -- preparation -----------------------------------------------------------------------


@dataclass
class Preparation:
    """What a compaction would do: summarise ``messages`` (and ``previous_summary``),
    keep the path from ``first_kept_entry_id`` on."""

    first_kept_entry_id: str | None
    messages: list[Any] = field(default_factory=list)
    previous_summary: str | None = None
    tokens_before: int = 0
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)
    turn_prefix: list[Any] = field(default_factory=list)
    """When the cut falls inside a turn (pi's split turn): the turn's messages before
    the cut, summarised apart from ``messages`` (the complete turns before it)."""

    @property
    def is_split_turn(self) -> bool:
        return bool(self.turn_prefix)

    def public(self) -> dict[str, Any]:
        """The preparation as session_before_compact handlers see it."""
        return {
            "first_kept_entry_id": self.first_kept_entry_id,
            "messages_to_summarize": list(self.messages),
            "turn_prefix_messages": list(self.turn_prefix),
            "is_split_turn": self.is_split_turn,
            "previous_summary": self.previous_summary,
            "tokens_before": self.tokens_before,
            "file_ops": {"read": self.read_files, "modified": self.modified_files},
        }


def _cut_allowed(entry: dict[str, Any]) -> bool:
    kind = entry.get("type")
    if kind in ("custom_message", "branch_summary"):
        return True
    if kind != "message":
        return False
    return (entry.get("message") or {}).get("role") != "toolResult"


def prepare(
    path: list[dict[str, Any]],
    message_of: Any,
    counter: TokenCounter,
    keep_recent: int,
    *,
    force: bool,
    max_kept: int | None = None,
) -> Preparation | None:
    """Where to cut the branch ``path`` (entries root to leaf); None when there is
    nothing to summarise. ``message_of(entry)`` is the entry's message or None. With
    ``force`` (manual, overflow) a budget that keeps everything still cuts at the
    newest turn that has history before it. With ``max_kept``, a cut that would keep
    more tokens than that moves forward to the first cut keeping at most that many
    (else the newest cut): a summary on top of a kept part that alone fills the window
    would make the context bigger."""
    previous = max((i for i, e in enumerate(path) if e.get("type") == "compaction"), default=-1)
    start = previous + 1
    previous_summary = None
    details: dict[str, Any] = {}
    if previous >= 0:
        compaction = path[previous]
        previous_summary = compaction.get("summary")
        kept = compaction.get("firstKeptEntryId")
        start = next((i for i in range(previous) if path[i].get("id") == kept), start)
        if not compaction.get("fromExtension") and isinstance(compaction.get("details"), dict):
            details = compaction["details"]
    span = [(i, e) for i, e in enumerate(path) if i >= start and e.get("type") != "compaction"]
    allowed = [i for i, e in span if _cut_allowed(e) and message_of(e) is not None]
    if not allowed:
        return None
    cut = None
    kept_tokens = 0
    kept_from: dict[int, int] = {}
    for index, entry in reversed(span):
        message = message_of(entry)
        if message is not None:
            kept_tokens += counter.of(message)
        kept_from[index] = kept_tokens
        if kept_tokens >= keep_recent:
            cut = next((i for i in allowed if i >= index), allowed[-1])
            break
    if cut is None or cut <= allowed[0]:
        if not force:
            return None
        cut = next(
            (i for i in reversed(allowed) if i > allowed[0] and _is_turn_start(path[i])), None
        )
        if cut is None:
            return None
    if max_kept is not None and kept_from.get(cut, 0) > max_kept:
        later = [i for i in allowed if i > cut and i in kept_from]
        cut = next((i for i in later if kept_from[i] <= max_kept), later[-1] if later else cut)
    turn_start = cut
    if not _is_turn_start(path[cut]):
        turn_start = next((i for i, e in reversed(span) if i < cut and _is_turn_start(e)), start)
    summarised = [m for i, e in span if i < turn_start and (m := message_of(e)) is not None]
    prefix = [m for i, e in span if turn_start <= i < cut and (m := message_of(e)) is not None]
    if not summarised and not prefix:
        return None
    if not summarised and previous_summary is None:
        # Nothing before this turn: the one structured summary covers it (goal included).
        summarised, prefix = prefix, []
    read, modified = _file_ops([*summarised, *prefix], details)
    return Preparation(
        path[cut]["id"], summarised, previous_summary, 0, read, modified, turn_prefix=prefix
    )


def _is_turn_start(entry: dict[str, Any]) -> bool:
    if entry.get("type") in ("custom_message", "branch_summary"):
        return True
    return (entry.get("message") or {}).get("role") in ("user", "bashExecution", "custom")


def _file_ops(messages: list[Any], details: dict[str, Any]) -> tuple[list[str], list[str]]:
    read = set(details.get("readFiles") or [])
    modified = set(details.get("modifiedFiles") or [])
    for message in messages:
        if not isinstance(message, AssistantMessage):
            continue
        for call in message.tool_calls:
            target = call.arguments.get("path") or call.arguments.get("file_path")
            if not isinstance(target, str):
                continue
            if call.name in READ_TOOLS:
                read.add(target)
            elif call.name in WRITE_TOOLS:
                modified.add(target)
    return sorted(read - modified), sorted(modified)
