"""Incremental conversion of a conversation to a provider's wire format.

A conversation only grows between requests: request N+1 sends the messages of request
N plus a few new ones. An API plugin writes its conversion as a ``Fold`` - messages
added one at a time to a state - and ``WireCache`` keeps that state (per provider,
per model and compat switches) with a checkpoint after every message. A request then
resumes from the longest unchanged prefix of its messages, so each message is
converted and JSON-encoded once, however long the conversation gets.

Messages are compared by identity first, then by equality, so a handler's unchanged
copy of a message (``context`` handlers get copies) still counts as the same message,
while a changed copy is converted afresh from its position on. A message in the
conversation is final once ``message_end`` has fired; nothing may change it in place
afterwards (a plugin that wants a different message sends a changed copy).

No checkpoint is kept inside a run of tool results (only after its last message
converted): there the fold's state holds the calls awaiting results and the open turn,
so one per result made a reply of n calls cost n^2 memory (10,000 calls: 1.4 GB). A
request that differs inside such a run converts that run again from its start.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from omp_llm.body import EncodingMemo, PreparedBody, dumps

SLOTS = 4
"""Conversations remembered per provider (the main one, a compaction, subagents)."""

BLOCK_BYTES = 128 * 1024
"""Encoded items are joined into a block once this many bytes wait unjoined; blocks
of about the same size are merged, so a long conversation is a few blocks (sent as
they are) and each byte is joined O(log n) times in all, not once per request."""


class Fold(Protocol):
    """A provider's conversion, one message at a time.

    ``items`` holds the wire items that no later message can change (closed turns,
    tool results, ...); it only grows, and an item in it is never changed again.
    Everything else (the open turn, calls awaiting results) is the fold's small
    state, which ``save`` copies and ``load`` restores."""

    items: list[Any]

    def add(self, message: Any) -> None:
        """Convert one more message."""

    def save(self) -> Any:
        """A copy of the state besides ``items``, to resume from after this message."""

    def load(self, saved: Any) -> None:
        """Go back to a state ``save`` returned (``items`` is cut back by the cache)."""

    def end(self) -> tuple[int, list[Any]]:
        """The conversation as if it ended here: how many of ``items`` are sent as
        they are, and the items that follow them. Changes no state."""


@dataclass
class Converted:
    """A converted list: ``items[:kept]`` encoded already (``encoded``: each item's
    bytes and a comma), the items after them encoded per request."""

    items: list[Any]
    encoded: list[bytes]
    lead: int = 0
    """Items in front of the converted messages (a system message, say)."""
    blocks: list[tuple[int, bytes]] = field(default_factory=list)
    """``encoded`` joined in consecutive runs: (end, bytes) for encoded[previous end:end]."""
    lead_encoded: list[bytes] | None = None
    """The lead items' bytes and a comma each, when known."""

    def after(self, lead: list[Any], memo: EncodingMemo | None = None) -> Converted:
        """This list with ``lead`` items in front; with the provider's ``memo``, those
        made of strings only (a system message) are encoded once for the same strings."""
        known = None
        if memo is not None and not self.lead:
            known = [memo.encode_strings(item) + b"," for item in lead]
        return Converted(lead + self.items, self.encoded, self.lead + len(lead), self.blocks, known)

    def body(
        self, payload: dict[str, Any], key: str, fixed: dict[str, bytes] | None = None
    ) -> PreparedBody:
        """``payload`` (whose ``key`` holds ``items``) as a body to send; ``fixed``: other
        fields already encoded (``tools_encoding``)."""
        kept, lead = len(self.encoded), self.lead
        parts: list[bytes | None] = [None] * lead if self.lead_encoded is None else []
        parts += self.lead_encoded or []
        parts += self.encoded
        parts += [None] * (len(self.items) - lead - kept)
        missing = [*range(lead if self.lead_encoded is None else 0)]
        missing += range(lead + kept, len(self.items))
        runs = [(lead + end, run) for end, run in self.blocks if end <= kept]
        body = PreparedBody(payload, key, parts, missing, runs, lead)
        if fixed:
            body.fixed.update(fixed)
        return body


class _Slot:
    """One conversation's fold, its messages so far and a checkpoint per message."""

    def __init__(self, key: Any, fold: Fold) -> None:
        self.key, self.fold = key, fold
        self.messages: list[Any] = []
        self.marks: list[tuple[int, int, Any]] = [(0, 0, fold.save())]
        """Checkpoints, in order: (messages, len(fold.items), saved state) after so many
        messages - none inside a run of tool results (see the module's docstring)."""
        self.encoded: list[bytes] = []
        self.blocks: list[tuple[int, bytes]] = []
        """(end, bytes): encoded[previous end:end] joined."""
        self.unjoined = 0
        """Bytes of the encoded items after the last block."""

    def common_prefix(self, messages: Sequence[Any]) -> int:
        old = self.messages
        known = len(old)
        if len(messages) >= known and messages[:known] == old:  # identity first, then ==
            return known
        count = 0
        for before, now in zip(old, messages, strict=False):
            if before is not now and before != now:
                break
            count += 1
        return count

    def convert(self, messages: Sequence[Any]) -> Converted:
        if type(messages) is not list:
            messages = list(messages)
        fold = self.fold
        keep = self.common_prefix(messages)
        if keep < len(self.messages):
            at = bisect_right(self.marks, keep, key=lambda mark: mark[0]) - 1
            keep, count, saved = self.marks[at]
            del fold.items[count:], self.encoded[count:]
            del self.marks[at + 1 :], self.messages[keep:]
            fold.load(saved)
            self._cut_blocks(count)
        last = len(messages) - 1
        for index in range(keep, len(messages)):
            message = messages[index]
            fold.add(message)
            self.messages.append(message)
            if index == last or getattr(message, "role", None) != "toolResult":
                self.marks.append((index + 1, len(fold.items), fold.save()))
        items, encoded = fold.items, self.encoded
        for item in items[len(encoded) :]:
            encoded.append(piece := dumps(item) + b",")
            self.unjoined += len(piece)
        kept, tail = fold.end()
        if self.unjoined >= BLOCK_BYTES:
            self._seal(kept - 1)  # the last item sent stays out: its comma may go
        return Converted(items[:kept] + tail, encoded[:kept], blocks=self.blocks.copy())

    def _seal(self, end: int) -> None:
        """Join the items from the last block to ``end`` into a block; merge the last two
        blocks while the earlier is less than twice the later (a binary counter: a
        handful of blocks, each byte joined again only when its block doubles)."""
        blocks, encoded = self.blocks, self.encoded
        start = blocks[-1][0] if blocks else 0
        if end <= start:
            return
        blocks.append((end, b"".join(encoded[start:end])))
        self.unjoined = sum(map(len, encoded[end:]))
        while len(blocks) >= 2 and len(blocks[-2][1]) < 2 * len(blocks[-1][1]):
            (_, first), (end, second) = blocks[-2], blocks.pop()
            blocks[-1] = (end, first + second)

    def _cut_blocks(self, count: int) -> None:
        """Forget the blocks reaching past the first ``count`` encoded items."""
        blocks = self.blocks
        while blocks and blocks[-1][0] > count:
            blocks.pop()
        start = blocks[-1][0] if blocks else 0
        self.unjoined = sum(map(len, self.encoded[start:count]))


class WireCache:
    """What one provider remembers of the conversations it converted.

    ``convert(key, messages, new_fold)``: ``key`` is everything besides the messages
    that the conversion depends on (the model and the compat switches, compared with
    ``==``); a different key starts from scratch."""

    def __init__(self, slots: int = SLOTS) -> None:
        self._slots: list[_Slot] = []
        self._limit = slots
        self.memo = EncodingMemo()
        """The provider's other fields encoded by earlier requests (its tool list)."""

    def convert(self, key: Any, messages: Sequence[Any], new_fold: Callable[[], Fold]) -> Converted:
        slot = self._slot_for(key, messages)
        if slot is None:
            slot = _Slot(key, new_fold())
            self._slots.insert(0, slot)
            del self._slots[self._limit :]
        try:
            return slot.convert(messages)
        except BaseException:
            self._slots.remove(slot)  # half converted: never resumed from
            raise

    def _slot_for(self, key: Any, messages: Sequence[Any]) -> _Slot | None:
        for index, slot in enumerate(self._slots):
            if slot.key != key:
                continue
            old = slot.messages
            if not old or not messages or old[0] is messages[0] or old[0] == messages[0]:
                self._slots.insert(0, self._slots.pop(index))  # most recently used first
                return slot
        return None

    def clear(self) -> None:
        self._slots.clear()
        self.memo = EncodingMemo()

    @staticmethod
    def of(request: Any) -> WireCache:
        """The cache of the request's provider; a throwaway one when it has none."""
        cache = getattr(getattr(request, "provider", None), "wire_cache", None)
        return cache if isinstance(cache, WireCache) else WireCache(slots=1)


def convert(
    request: Any, messages: Sequence[Any], new_fold: Callable[[], Fold], *extra_key: Any
) -> Converted:
    """``messages`` converted by the request's provider cache, keyed by the model, the
    compat switches and ``extra_key`` (anything else the fold was built with)."""
    key = (request.model, request.compat, *extra_key)
    return WireCache.of(request).convert(key, messages, new_fold)


def tools_encoding(request: Any, value: Any) -> dict[str, bytes]:
    """``{"tools": dumps(value)}``, ``value`` being the tool list the request's
    ``context.tools`` became: encoded once by the provider for the same tools (the same
    names, descriptions and schema objects; the kernel builds a tool's schema once)."""
    tools = request.context.tools
    schemas = [tool.get("parameters") for tool in tools]
    key = tuple(
        (tool.get("name"), tool.get("description"), id(schema))
        for tool, schema in zip(tools, schemas, strict=True)
    )
    return {"tools": WireCache.of(request).memo.encode(key, schemas, value)}
