"""Streamed Markdown: finished blocks leave once, only the open tail is drawn again.

``BlockSplitter`` takes an answer's text as it arrives. Whenever a line ends, it parses
the text not yet committed (with the parser rich's Markdown uses) and hands back the
source of every top-level block that a later block has started after: those can no
longer change. The last block stays open until the answer ends. So each token costs a
string append, each line one parse of the open tail, and a block is rendered once -
however long the answer grows.

A fenced code block is the one block that can grow without bound; its finished lines
are committed in chunks (rendered with the fence's lexer) while it is still open, so a
long listing streams into the scrollback too.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)")
CODE_CHUNK_LINES = 12
"""An open fence commits its finished lines once this many are waiting."""


@dataclass
class Block:
    """Committed source: Markdown, or (``lexer`` not None) lines of an open fence."""

    source: str
    lexer: str | None = None


class BlockSplitter:
    def __init__(self) -> None:
        self.pending = ""
        self._parser: Any = None
        self._fence: tuple[str, str] | None = None
        self._checked = 0
        """How much of ``pending`` was complete lines when it was last looked at."""
        """(marker, lexer) while a fence opened in a committed chunk is still open."""

    def feed(self, delta: str) -> list[Block]:
        """Add ``delta``; the blocks it finished (usually none)."""
        self.pending += delta
        if "\n" not in delta:
            return []
        return self._split()

    def finish(self) -> list[Block]:
        """The answer ended: everything still open."""
        rest, self.pending, self._checked = self.pending, "", 0
        if self._fence is not None:
            marker, lexer = self._fence
            self._fence = None
            code = _until_fence_end(rest, marker)
            return [Block(code, lexer)] if code.strip() else []
        return [Block(rest)] if rest.strip() else []

    @property
    def open_source(self) -> str:
        """The open tail as Markdown (a fence continued from a committed chunk reopened)."""
        if self._fence is not None:
            marker, lexer = self._fence
            return f"{marker}{lexer}\n{self.pending}"
        return self.pending

    def _split(self) -> list[Block]:
        if self._fence is not None:
            return self._continue_fence()
        end = self.pending.rfind("\n") + 1
        checked, self._checked = self._checked, end
        out: list[Block] = []
        if _may_start_block(self.pending, checked, end):
            starts = self._block_starts(self.pending[:end])
            if len(starts) >= 2:
                offsets = [0]
                for line in self.pending.split("\n")[: starts[-1]]:
                    offsets.append(offsets[-1] + len(line) + 1)
                cuts = [0, *(offsets[start] for start in starts[1:])]
                out += [Block(self.pending[a:b]) for a, b in itertools.pairwise(cuts)]
                self.pending = self.pending[cuts[-1] :]
                self._checked = end - cuts[-1]
        out += self._open_fence_chunk()
        return out

    def _block_starts(self, text: str) -> list[int]:
        if self._parser is None:
            from markdown_it import MarkdownIt

            self._parser = MarkdownIt().enable("strikethrough").enable("table")
        return [
            token.map[0]
            for token in self._parser.parse(text)
            if token.level == 0 and token.nesting >= 0 and token.map
        ]

    def _open_fence_chunk(self) -> list[Block]:
        """When the open tail is a long fence, its finished lines (not the last one,
        which may be the closing marker) leave as a code chunk."""
        match = FENCE.match(self.pending)
        if match is None or self.pending.count("\n") < CODE_CHUNK_LINES + 2:
            return []
        marker, lexer = match.group(1), match.group(2) or "text"
        first = self.pending.index("\n") + 1
        body = self.pending[first:]
        if _closing_line(body, marker) is not None:
            return []
        self._fence = (marker, lexer)
        self.pending = body
        self._checked = 0
        return self._continue_fence(force=True)

    def _continue_fence(self, force: bool = False) -> list[Block]:
        marker, lexer = self._fence  # type: ignore[misc]
        closing = _closing_line(self.pending, marker)
        if closing is not None:
            code, after = self.pending[:closing], self.pending[closing:]
            after = after.split("\n", 1)[1] if "\n" in after else ""
            self._fence = None
            self.pending = after
            self._checked = 0
            blocks = [Block(code, lexer)] if code else []
            return blocks + (self._split() if "\n" in after else [])
        if not force and self.pending.count("\n") < CODE_CHUNK_LINES + 1:
            return []
        cut = self.pending.rstrip("\n").rfind("\n") + 1
        if cut <= 0:
            return []
        code, self.pending = self.pending[:cut], self.pending[cut:]
        return [Block(code, lexer)]


def _closing_line(body: str, marker: str) -> int | None:
    """Offset of the line in ``body`` that closes a fence opened with ``marker``."""
    offset = 0
    for line in body.split("\n")[:-1]:
        stripped = line.strip()
        if stripped.startswith(marker[0] * len(marker)) and set(stripped) == {marker[0]}:
            return offset
        offset += len(line) + 1
    return None


def _until_fence_end(text: str, marker: str) -> str:
    closing = _closing_line(text + "\n", marker)
    return text if closing is None else text[:closing]


BLOCK_MARKS = frozenset("#`~-*+>|=_<0123456789")


def _may_start_block(text: str, start: int, end: int) -> bool:
    """Whether a line completed in ``text[start:end]`` may begin a new block: it follows
    a blank line, or starts like a heading, fence, list, quote, table or rule. Other
    lines continue the block they are in, so the parse is skipped for them."""
    before = text.rfind("\n", 0, max(0, start - 1)) + 1
    previous_blank = start == 0 or not text[before:start].strip()
    for line in text[start:end].split("\n")[:-1]:
        stripped = line.lstrip(" ")
        if stripped and (previous_blank or stripped[0] in BLOCK_MARKS):
            return True
        previous_blank = not stripped
    return False


def fence_parts(source: str) -> tuple[str, str] | None:
    """(lexer, code) when ``source`` is one fenced code block (closed, or still open),
    with nothing but blank lines after it; else None."""
    body = source.lstrip("\n")
    match = FENCE.match(body)
    if match is None:
        return None
    marker, lexer = match.group(1), match.group(2) or "text"
    first = body.find("\n")
    if first < 0:
        return lexer, ""
    rest = body[first + 1 :]
    closing = _closing_line(rest if rest.endswith("\n") else rest + "\n", marker)
    if closing is None:
        return lexer, rest
    after = rest[closing:].split("\n", 1)
    if len(after) > 1 and after[1].strip():
        return None
    return lexer, rest[:closing]
