"""A tool's own view of its call and result, for any mode that shows tools to a person.

``Tool.render_call(args, options)`` and ``Tool.render_result(result, options)`` return
the text a user sees instead of the mode's default view: a string (lines split at
``\\n``), a list of lines, or None for the default. Plain text is fitted to the screen
by the mode; a line with ANSI escapes is shown as it is. A declared override without a
renderer uses the one of the tool it replaced, slot by slot (as pi does). A renderer
that raises is reported as an ``extension_error`` naming its plugin and tool, and the
default view is shown instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypedDict

if TYPE_CHECKING:
    from omp.agent.tools import ToolRegistry, ToolResult

RenderSlot = Literal["render_call", "render_result"]


class ToolRenderOptions(TypedDict, total=False):
    """What a tool renderer is told about where and how it is drawn."""

    mode: str
    """The run mode drawing it: "interactive", "acp", ..."""
    tool_call_id: str
    args: dict[str, Any]
    """The call's arguments (``render_result`` gets them too)."""
    expanded: bool
    """The user asked for the full view (Ctrl+O in the terminal)."""
    partial: bool
    """``render_result`` of a running tool's latest update, not its final result."""
    is_error: bool
    width: int
    """Columns available; text is cut to it unless it carries ANSI escapes."""
    theme: str


Rendered = str | list[str] | None
"""What a renderer returns: text (split at newlines), lines, or None for the default."""
CallRenderer = Callable[[dict[str, Any], ToolRenderOptions], Rendered]
"""``render_call(args, options)``."""
ResultRenderer = Callable[["ToolResult", ToolRenderOptions], Rendered]
"""``render_result(result, options)``; ``options["args"]`` holds the call's arguments."""
ReportError = Callable[[str, str, str], None]
"""``report(plugin, where, error)``: a renderer failed (AgentSession.report_plugin_error)."""


class ToolRendering:
    """The tools of one session, drawn by their own renderers where they have them."""

    def __init__(self, tools: ToolRegistry, report: ReportError | None = None) -> None:
        self._tools = tools
        self._report = report

    def call(self, name: str, args: dict[str, Any], options: ToolRenderOptions) -> list[str] | None:
        """The tool's lines for its call; None: draw the default view."""
        return self._render(name, "render_call", args, {**options, "args": args})

    def result(self, name: str, result: Any, options: ToolRenderOptions) -> list[str] | None:
        """The tool's lines for a result (a ToolResult, or the ``{"content", "details"}``
        of an event or a saved message); None: draw the default view."""
        return self._render(name, "render_result", as_tool_result(result, options), options)

    def _renderer(self, name: str, slot: RenderSlot) -> tuple[str, Callable[..., Any]] | None:
        tool = self._tools.get(name)
        if tool is None:
            return None
        own = getattr(tool, slot, None)
        if own is not None:
            return self._tools.owner(name) or f"tool:{name}", own
        replaced = self._tools.overridden(name)
        inherited = getattr(replaced, slot, None) if replaced is not None else None
        if inherited is None:
            return None
        return self._tools.owner(name, overridden=True) or f"tool:{name}", inherited

    def _render(
        self, name: str, slot: RenderSlot, payload: Any, options: ToolRenderOptions
    ) -> list[str] | None:
        found = self._renderer(name, slot)
        if found is None:
            return None
        plugin, render = found
        try:
            return as_lines(render(payload, options))
        except Exception as exc:
            if self._report is not None:
                from omp.plugin.manager import describe_failure

                self._report(plugin, slot, f"tool {name!r}: {describe_failure(exc)}")
            return None


def as_lines(produced: Any) -> list[str] | None:
    """A renderer's return value as lines; None (or no lines) means the default view."""
    if produced is None:
        return None
    if isinstance(produced, str):
        lines = produced.split("\n")
    elif isinstance(produced, list | tuple):
        lines = [str(line) for item in produced for line in str(item).split("\n")]
    else:
        raise TypeError(
            f"a renderer returns a string or a list of lines, not {type(produced).__name__}"
        )
    return lines or None


_ANSI = r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"


def plain_text(lines: list[str]) -> str:
    """Rendered lines as plain text (ANSI styling removed), for a client that is not a
    terminal (an ACP editor)."""
    import re

    return re.sub(_ANSI, "", "\n".join(lines))


def as_tool_result(result: Any, options: ToolRenderOptions) -> ToolResult:
    """A result in whichever shape a mode holds it, as the ToolResult a renderer gets."""
    from omp.agent.tools import ToolResult

    if isinstance(result, ToolResult):
        return result
    if isinstance(result, dict):
        content = result.get("content")
        return ToolResult(
            list(content) if isinstance(content, list) else [],
            result.get("details"),
            bool(options.get("is_error", result.get("is_error", result.get("isError", False)))),
        )
    return ToolResult([], result, bool(options.get("is_error", False)))
