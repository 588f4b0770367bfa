"""The transcript: session events in, finished output out (once), plus a live tail.

``handle(event)`` takes every session event. What can no longer change - a finished
Markdown block, a thinking paragraph, a tool call with its result, a notice - is passed
once to ``emit`` as ANSI text ending in a newline, for the application to print into
the terminal's scrollback. ``live()`` is what is still changing (the open Markdown
block, thinking, tool calls being written or running with their latest output), at
most ``max_live_lines`` lines, drawn by the application below the scrollback; it is
cached, so calling it at the frame rate costs nothing while nothing changed
(``version`` counts the changes).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from omp_mode_interactive.render import entries
from omp_mode_interactive.render.code import highlight
from omp_mode_interactive.render.markdown import Block, BlockSplitter, fence_parts
from omp_mode_interactive.render.rich_render import RichRenderer
from omp_mode_interactive.render.theme import Theme
from omp_mode_interactive.render.tools import (
    call_line,
    framed_call,
    framed_result,
    live_output_lines,
    result_lines,
    result_text,
)
from omp_mode_interactive.render.width import truncate, wrap

if TYPE_CHECKING:
    from omp import ToolRendering

LIVE_OUTPUT_LINES = 5


@dataclass
class _Running:
    name: str
    args: dict[str, Any]
    started: float = field(default_factory=time.monotonic)
    output: str = ""
    event: Any = None
    """The latest start or update event, which a plugin's tool renderer draws."""


class Transcript:
    def __init__(
        self,
        width: int,
        theme: Theme,
        renderers: Mapping[tuple[str, str], Any] | None = None,
        show_thinking: bool = True,
        emit: Callable[[str], None] | None = None,
        *,
        max_live_lines: int = 12,
        tools: ToolRendering | None = None,
    ) -> None:
        """``tools`` draws calls and results with the tools' own ``render_call`` and
        ``render_result`` (omp.runtime.tool_render); without it, every tool gets the default."""
        self.width = max(20, width)
        self.tools = tools
        self.theme = theme
        self.renderers = renderers or {}
        self.show_thinking = show_thinking
        self.max_live_lines = max_live_lines
        self.tools_expanded = False
        self.version = 0
        self._emit = emit or (lambda text: None)
        self._rich = RichRenderer(self.width, theme)
        self._emitted = False
        self._after_code_chunk = False
        self._text: BlockSplitter | None = None
        self._thinking: str | None = None
        self._thinking_words = 0
        self._streamed: set[int] = set()
        self._writing: dict[int, Any] = {}
        self._running: dict[str, _Running] = {}
        self._calls: dict[str, dict[str, Any]] = {}
        self._status: dict[str, str] = {}
        self._collapsed: tuple[str, dict[str, Any], Any, bool, Any] | None = None
        self._live: tuple[int, str] = (-1, "")

    # -- the application's controls ------------------------------------------------

    def resize(self, width: int) -> None:
        self.width = max(20, width)
        self._rich.resize(self.width)
        self._changed()

    def set_show_thinking(self, show: bool) -> None:
        self.show_thinking = show
        self._changed()

    def set_tools_expanded(self, expanded: bool) -> None:
        """Later tool results in full (or compact again). Turning it on also prints the
        most recent result that was cut, in full."""
        self.tools_expanded = expanded
        if expanded and self._collapsed is not None:
            name, args, result, is_error, event = self._collapsed
            self._collapsed = None
            self._tool_entry(name, args, result, is_error, event)
        self._changed()

    def warm_up(self) -> None:
        """Import and prime rich, Pygments and a lexer (a few hundred ms) so the first
        answer does not pay for them; safe to run in a worker thread before it."""
        self._rich.markdown("*warm* `up`")
        highlight("x = 1", "python", self.theme, self.width)

    # -- events -----------------------------------------------------------------------

    def handle(self, event: Any) -> None:
        handler = getattr(self, f"_on_{event.type}", None)
        if handler is not None:
            handler(event)

    def _on_message_start(self, event: Any) -> None:
        if getattr(event.message, "role", None) == "assistant":
            self._streamed = set()
            self._writing = {}

    def _on_message_update(self, event: Any) -> None:
        update = event.assistant_message_event
        kind, index = update.get("type"), update.get("contentIndex")
        if kind == "text_delta":
            if self._text is None:
                self._text = BlockSplitter()
            self._streamed.add(index)
            self._blocks(self._text.feed(update.get("delta", "")))
        elif kind == "text_end" and self._text is not None:
            self._blocks(self._text.finish())
            self._text = None
        elif kind == "thinking_delta":
            self._streamed.add(index)
            self._thinking_delta(update.get("delta", ""))
        elif kind == "thinking_end":
            self._thinking_end()
        elif kind == "toolcall_start":
            partial = update.get("partial")
            if partial is not None and index is not None:
                self._writing[index] = partial.content[index]
        self._changed()

    def _on_message_end(self, event: Any) -> None:
        message = event.message
        role = getattr(message, "role", None)
        if role == "assistant":
            if self._text is not None:
                self._blocks(self._text.finish())
                self._text = None
            self._thinking_end()
            self._assistant(message, skip=self._streamed)
            self._streamed, self._writing = set(), {}
        else:
            self._message(message)
        self._changed()

    def _on_tool_execution_start(self, event: Any) -> None:
        self._running[event.tool_call_id] = _Running(
            event.tool_name, dict(event.args or {}), event=event
        )
        self._changed()

    def _on_tool_execution_update(self, event: Any) -> None:
        running = self._running.get(event.tool_call_id)
        if running is not None and event.partial_result is not None:
            running.output = result_text(event.partial_result)
            running.event = event
            self._changed()

    def _on_tool_execution_end(self, event: Any) -> None:
        running = self._running.pop(event.tool_call_id, None)
        args = running.args if running else self._calls.get(event.tool_call_id, {})
        self._tool_entry(event.tool_name, args, event.result, event.is_error, event)
        self._changed()

    def _on_agent_end(self, event: Any) -> None:
        self._running.clear()
        self._status.clear()
        self._changed()

    def _on_notice(self, event: Any) -> None:
        text = f"{event.source}: {event.message}" if event.source else event.message
        self._out(entries.notice_line(event.level, text, self.theme, self.width))

    def _on_extension_error(self, event: Any) -> None:
        if event.occurrence > 1:  # the session counts repeats when it ends
            return
        plugin = event.extension_name or event.extension_path
        text = f"plugin {plugin} failed in {event.event}: {event.error}"
        self._out(entries.notice_line("error", text, self.theme, self.width))

    def _on_auto_retry_start(self, event: Any) -> None:
        seconds = round(event.delay_ms / 1000, 1)
        text = (
            f"retrying in {seconds:g} s (attempt {event.attempt + 1} of "
            f"{event.max_attempts + 1}): {' '.join(str(event.error_message).split())}"
        )
        self._out(entries.notice_line("warning", text, self.theme, self.width))

    def _on_retry_fallback_applied(self, event: Any) -> None:
        text = f"{event.from_} failed; {event.to} answers instead"
        self._out(entries.notice_line("warning", text, self.theme, self.width))

    def _on_auto_compaction_start(self, event: Any) -> None:
        self._status["compaction"] = "compacting the context…"
        self._changed()

    def _on_auto_compaction_end(self, event: Any) -> None:
        self._status.pop("compaction", None)
        if event.result:
            from omp import describe_compaction

            self._out(
                entries.notice_line(
                    "info", describe_compaction(event.result), self.theme, self.width
                )
            )
        elif event.error_message:
            text = f"compaction failed: {event.error_message}"
            self._out(entries.notice_line("error", text, self.theme, self.width))
        elif event.aborted:
            self._out(entries.notice_line("warning", "compaction aborted", self.theme, self.width))
        self._changed()

    # -- history ------------------------------------------------------------------------

    def replay(self, messages: list[Any]) -> None:
        """A resumed session's messages, printed as they were shown when they happened."""
        from omp import parse_message

        for message in messages:
            if isinstance(message, dict):
                message = parse_message(message)
            if message.role == "assistant":
                self._assistant(message, skip=set())
            elif message.role == "toolResult":
                args = self._calls.get(message.tool_call_id, {})
                result = {"content": message.content, "details": message.details}
                self._tool_entry(message.tool_name, args, result, message.is_error, None)
            else:
                self._message(message)
        self._changed()

    def flush(self) -> None:
        """Print whatever is still open (the application is closing)."""
        if self._text is not None:
            self._blocks(self._text.finish())
            self._text = None
        self._thinking_end()
        self._changed()

    # -- output ----------------------------------------------------------------------------

    def _out(self, lines: list[str] | str, gap: bool = True) -> None:
        text = lines if isinstance(lines, str) else "\n".join(lines)
        if not text:
            return
        self._emit(("\n" if gap and self._emitted else "") + text + "\n")
        self._emitted = True
        self._after_code_chunk = False

    def _blocks(self, blocks: list[Block]) -> None:
        for block in blocks:
            gap = not self._after_code_chunk
            if block.lexer is not None:
                self._out(highlight(block.source, block.lexer, self.theme, self.width), gap)
                self._after_code_chunk = True
            elif not block.source.strip():
                continue
            else:
                self._out(self._render_markdown(block.source), gap)

    def _render_markdown(self, source: str) -> str:
        """A block: a fenced one straight to the highlighter, the rest through rich."""
        fence = fence_parts(source)
        if fence is not None:
            return highlight(fence[1], fence[0], self.theme, self.width)
        return self._rich.markdown(source)

    def _markdown(self, text: str) -> None:
        """A whole text (a replayed answer), split and drawn as it would have streamed."""
        splitter = BlockSplitter()
        self._blocks(splitter.feed(text) + splitter.finish())

    def _thinking_delta(self, delta: str) -> None:
        self._thinking = (self._thinking or "") + delta
        if "\n\n" in self._thinking[-len(delta) - 1 :]:
            done, _, rest = self._thinking.rpartition("\n\n")
            if done.strip():
                self._thinking_out(done)
            self._thinking = rest

    def _thinking_end(self) -> None:
        if self._thinking is not None and self._thinking.strip():
            self._thinking_out(self._thinking)
        self._thinking = None
        if not self.show_thinking and self._thinking_words:
            words = self._thinking_words
            self._out(self.theme.paint(f"∴ thinking hidden ({words} words)", "thinking"))
        self._thinking_words = 0

    def _thinking_out(self, text: str) -> None:
        if self.show_thinking:
            self._out(self._rich.text(text.strip("\n"), "italic dim"))
        else:
            self._thinking_words += len(text.split())

    def _assistant(self, message: Any, skip: set[int]) -> None:
        """What was not streamed of an assistant message (all of it in a replay), the
        tool calls remembered for their results, and the error if it failed."""
        for index, block in enumerate(message.content):
            if block.type == "toolCall":
                self._calls[block.id] = dict(block.arguments or {})
            elif index in skip:
                continue
            elif block.type == "text" and block.text.strip():
                self._markdown(block.text)
            elif block.type == "thinking" and block.thinking.strip():
                self._thinking_out(block.thinking)
                self._thinking_end()
        if message.stop_reason in ("error", "aborted"):
            self._out(entries.error_lines(message, self.theme, self.width))

    def _message(self, message: Any) -> None:
        role = getattr(message, "role", None)
        if role == "user":
            self._out(entries.user_lines(message.content, self.theme, self.width))
        elif role == "custom" and message.display:
            options = self._options()
            self._out(
                entries.custom_lines(
                    message, self.renderers, options, self.theme, self.width, self._rich.markdown
                )
            )
        elif role in ("bashExecution", "pythonExecution"):
            lines = entries.execution_lines(message, self.theme, self.width, self.tools_expanded)
            self._out(lines)
        elif role in ("compactionSummary", "branchSummary"):
            self._out(entries.summary_lines(message, self.theme, self.width))

    def _options(self) -> dict[str, Any]:
        return {
            "mode": "interactive",
            "expanded": self.tools_expanded,
            "width": self.width,
            "theme": self.theme.name,
        }

    def _tool_entry(
        self, name: str, args: dict[str, Any], result: Any, is_error: bool, event: Any
    ) -> None:
        renderer = self.renderers.get(("tool", name))
        if renderer is not None:
            if event is None:
                from omp import ToolExecutionEndEvent

                event = ToolExecutionEndEvent(
                    tool_call_id="", tool_name=name, result=result, is_error=is_error
                )
            lines = entries.call_renderer(renderer, event, self._options(), self.width)
            if lines is not None:
                self._out(lines)
                return
        role = "error" if is_error else "tool"
        options = self._tool_options(event, args, is_error=is_error)
        own = self.tools.result(name, result, options) if self.tools else None
        if own is not None:
            body, cut = framed_result(own, self.width), 0
        else:
            body, cut = result_lines(
                name, result, is_error, self.theme, self.width, self.tools_expanded
            )
        self._out([*self._call_lines(name, args, role, options), *body])
        if cut:
            self._collapsed = (name, args, result, is_error, event)

    def _tool_options(self, event: Any, args: dict[str, Any], **more: Any) -> Any:
        return {
            **self._options(),
            "tool_call_id": getattr(event, "tool_call_id", "") or "",
            "args": args,
            **more,
        }

    def _call_lines(self, name: str, args: dict[str, Any], role: str, options: Any) -> list[str]:
        """The call: the tool's ``render_call`` lines under the bullet, else the default."""
        own = self.tools.call(name, args, options) if self.tools else None
        if own is None:
            return [call_line(name, args, self.theme, self.width, role)]
        return framed_call(own, self.theme, self.width, role)

    # -- the live tail ---------------------------------------------------------------------

    def _changed(self) -> None:
        self.version += 1

    def _running_lines(self, running: _Running) -> list[str]:
        """A running tool: its plugin renderer's lines (called with the latest event and
        ``partial`` in the options) when it draws one, else the call and its output."""
        renderer = self.renderers.get(("tool", running.name))
        if renderer is not None and running.event is not None:
            options = {**self._options(), "partial": True}
            drawn = entries.call_renderer(renderer, running.event, options, self.width)
            if drawn is not None:
                return drawn[-(LIVE_OUTPUT_LINES + 1) :]
        options = self._tool_options(running.event, running.args, partial=True)
        lines = self._call_lines(running.name, running.args, "tool_running", options)
        partial = getattr(running.event, "partial_result", None)
        own = self.tools.result(running.name, partial, options) if self.tools and partial else None
        if own is not None:
            return lines + framed_result(own, self.width)[-LIVE_OUTPUT_LINES:]
        return lines + live_output_lines(running.output, self.theme, self.width, LIVE_OUTPUT_LINES)

    def live(self) -> str:
        """ANSI of what is still changing; empty when nothing is."""
        if self._live[0] == self.version:
            return self._live[1]
        lines: list[str] = []
        if self._thinking is not None:
            lines += self._live_thinking()
        if self._text is not None and self._text.open_source.strip():
            lines += self._render_markdown(self._text.open_source).split("\n")
        for block in self._writing.values():
            lines.append(
                call_line(block.name, block.arguments, self.theme, self.width, "tool_running")
            )
        for running in self._running.values():
            lines += self._running_lines(running)
        lines += [
            self.theme.paint(truncate(s, self.width), "warning") for s in self._status.values()
        ]
        text = "\n".join(lines[-self.max_live_lines :])
        self._live = (self.version, text)
        return text

    def _live_thinking(self) -> list[str]:
        if not self.show_thinking:
            return [self.theme.paint("∴ thinking…", "thinking")]
        tail = (self._thinking or "")[-self.width * self.max_live_lines :]
        pieces = [p for line in tail.strip("\n").split("\n") for p in wrap(line, self.width)]
        return [self.theme.paint(p, "thinking") for p in pieces[-self.max_live_lines :]]
