"""How the task tool draws itself in any mode that shows tools (terminal, ACP): the call
as one line per task, a running call as one line per child (agent, task, status,
current tool, elapsed, tokens), a finished call as one line per child's outcome.

Plain text only: the mode fits it to the screen (and ACP sends it as is). Anything not
in the shape the tool produces gets None, so the mode's default view is drawn."""

from __future__ import annotations

from typing import Any

from omp import ToolRenderOptions, ToolResult

COLLAPSED_LIMIT = 4
"""Rows of a call's task list shown before ``… N more``, unless expanded."""
BRIEF = 64
ICONS = {"pending": "◌", "running": "●", "completed": "✓", "failed": "✗", "aborted": "⊘"}


def _brief(text: Any, limit: int = BRIEF) -> str:
    first = next((line.strip() for line in str(text or "").splitlines() if line.strip()), "")
    return first if len(first) <= limit else first[: limit - 1] + "…"


def duration(ms: Any) -> str:
    """``850ms``, ``3.2s``, ``2m05s``."""
    value = float(ms) if isinstance(ms, int | float) else 0.0
    if value < 1000:
        return f"{int(value)}ms"
    if value < 60_000:
        return f"{value / 1000:.1f}s"
    minutes, seconds = divmod(int(value // 1000), 60)
    return f"{minutes}m{seconds:02d}s"


def tokens(count: Any) -> str:
    """``950 tok``, ``12.3k tok``, ``1.2M tok``."""
    value = int(count) if isinstance(count, int | float) else 0
    if value < 1000:
        return f"{value} tok"
    if value < 1_000_000:
        return f"{value / 1000:.1f}k tok"
    return f"{value / 1_000_000:.1f}M tok"


def _item_line(item: dict[str, Any], position: int) -> str:
    name = item.get("name") or f"#{position + 1}"
    agent = item.get("agent") or "task"
    line = f"• {name} [{agent}]"
    if brief := _brief(item.get("task")):
        line += f": {brief}"
    if item.get("isolated") is True:
        line += " [isolated]"
    return line


def render_call(args: dict[str, Any], options: ToolRenderOptions) -> list[str] | None:
    """One header line, then one line per task (batch), or one line (a flat call)."""
    tasks = args.get("tasks")
    if not isinstance(tasks, list):
        if not isinstance(args.get("task"), str):
            return None
        return [f"task {_item_line(args, 0).removeprefix('• ')}"]
    items = [t for t in tasks if isinstance(t, dict)]
    count = len(items)
    header = f"task: {count} agent{'s' if count != 1 else ''}"
    if context := _brief(args.get("context"), 48):
        header += f" — {context}"
    shown = items if options.get("expanded") else items[:COLLAPSED_LIMIT]
    lines = [header, *(f"  {_item_line(item, i)}" for i, item in enumerate(shown))]
    if len(shown) < count:
        lines.append(f"  • … {count - len(shown)} more agents")
    return lines


def progress_line(progress: dict[str, Any]) -> str:
    """One child: ``● 0-Scout [scout] running: task · ⚙ read · 3.2s · 1.2k tok · 2 tools``."""
    status = str(progress.get("status") or "pending")
    line = f"{ICONS.get(status, '•')} {progress.get('id') or progress.get('index', '?')}"
    line += f" [{progress.get('agent') or 'task'}] {status}"
    if brief := _brief(progress.get("task"), 40):
        line += f": {brief}"
    parts = []
    if status == "running" and isinstance(progress.get("currentTool"), str):
        parts.append(f"⚙ {progress['currentTool']}")
    parts.append(duration(progress.get("durationMs")))
    parts.append(tokens(progress.get("tokens")))
    if isinstance(progress.get("toolCount"), int) and progress["toolCount"]:
        parts.append(f"{progress['toolCount']} tool{'s' if progress['toolCount'] != 1 else ''}")
    return " · ".join([line, *parts])


def result_status(result: dict[str, Any]) -> str:
    """A finished child's status as the result text names it."""
    if result.get("aborted"):
        return "cancelled"
    if result.get("exitCode", 0) != 0:
        return "failed"
    structured = result.get("structuredOutput")
    if isinstance(structured, dict) and structured.get("status") == "invalid":
        return "completed (output invalid)"
    return "completed"


def result_line(result: dict[str, Any]) -> str:
    status = result_status(result)
    icon = ICONS[{"cancelled": "aborted", "failed": "failed"}.get(status, "completed")]
    name = result.get("id") or result.get("index", "?")
    line = f"{icon} {name} [{result.get('agent') or 'task'}] {status}"
    parts = [line, duration(result.get("durationMs")), tokens(result.get("tokens"))]
    if isinstance(result.get("abortReason"), str) and result["abortReason"]:
        parts.append(_brief(result["abortReason"], 60))
    if isinstance(result.get("patch"), str) and result["patch"]:
        files = result["patch"].count("diff --git ")
        parts.append(f"{files} file{'s' if files != 1 else ''} changed in its worktree")
    if result.get("patchPath"):
        parts.append(f"patch: {result['patchPath']}")
    return " · ".join(parts)


def _final(details: dict[str, Any], expanded: bool) -> list[str]:
    results = [r for r in details["results"] if isinstance(r, dict)]
    counts: dict[str, int] = {}
    for result in results:
        key = result_status(result).split(" ")[0]
        counts[key] = counts.get(key, 0) + 1
    summary = ", ".join(f"{n} {status}" for status, n in counts.items()) or "no agents"
    total = sum(r.get("tokens", 0) for r in results if isinstance(r.get("tokens"), int))
    lines = [f"{summary} · {duration(details.get('totalDurationMs'))} · {tokens(total)}"]
    for result in results:
        lines.append(f"  {result_line(result)}")
        if expanded and isinstance(result.get("output"), str) and result["output"].strip():
            lines += [f"    {line}" for line in result["output"].splitlines()[:20]]
    return lines


def render_result(result: ToolResult, options: ToolRenderOptions) -> list[str] | None:
    """Partial: one line per child from ``details.progress``; final: a summary line and
    one line per child from ``details.results``; anything else: the default view."""
    details = result.details
    if not isinstance(details, dict):
        return None
    progress = details.get("progress")
    if options.get("partial") and isinstance(progress, list) and progress:
        return [progress_line(p) for p in progress if isinstance(p, dict)] or None
    if isinstance(details.get("results"), list) and not result.is_error:
        return _final(details, bool(options.get("expanded")))
    return None
