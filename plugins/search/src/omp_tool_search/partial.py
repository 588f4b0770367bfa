"""A grep's results while it runs: the backend's partial batches (``on_partial``, from
any thread) gathered on the event loop and shown as tool_execution_update events, in
the layout of the final result, so the first matches are seen before the walk ends."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

from omp import ToolResult, resolve_path

from omp_tool_search.answers import GrepAnswer, GrepLine

PARTIAL_MAX_LINES = 200
"""Most result lines an update shows (later ones are only counted)."""


def partial_root(path: str | None, cwd: str) -> str:
    """The folder a grep's paths will be relative to (a file's folder for a file)."""
    target = resolve_path(path or ".", cwd)
    return target if os.path.isdir(target) else os.path.dirname(target)


class PartialGrep:
    """Call ``feed`` (from any thread) with the backend's batches; each batch becomes
    one ``on_update`` with every result so far (at most PARTIAL_MAX_LINES lines)."""

    def __init__(
        self,
        on_update: Callable[[ToolResult], Any],
        mode: str,
        format_answer: Callable[[GrepAnswer], str],
    ) -> None:
        self.loop = asyncio.get_running_loop()
        self.on_update = on_update
        self.format_answer = format_answer
        self.shown = GrepAnswer(mode=mode)
        self.rows = 0
        self.more = 0

    def feed(self, items: list[tuple[str, int, list[tuple[int, str, bool]]]]) -> None:
        try:
            self.loop.call_soon_threadsafe(self._take, items)
        except RuntimeError:
            pass  # the loop is closed: the tool call is long over

    def _take(self, items: list[tuple[str, int, list[tuple[int, str, bool]]]]) -> None:
        shown = self.shown
        for path, count, lines in items:
            shown.matches += count
            shown.files_matched += 1
            rows = len(lines) if shown.mode == "content" else 1
            if self.rows + rows > PARTIAL_MAX_LINES:
                self.more += count if shown.mode == "content" else 1
                continue
            self.rows += rows
            if shown.mode == "files":
                shown.files.append(path)
            elif shown.mode == "count":
                shown.counts.append((path, count))
            else:
                shown.lines.extend(GrepLine(path, n, text, match) for n, text, match in lines)
        text = self.format_answer(shown)
        if self.more:
            text += f"\n\n[{self.more} more so far]"
        details = {"partial": True, "matches": shown.matches, "files": shown.files_matched}
        self.on_update(ToolResult.text(text, details))
