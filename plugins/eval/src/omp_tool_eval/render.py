"""How an eval call draws itself for a person (terminal, ACP): the call as one line per
cell (its title, else its first line of code), the result as each cell's status line,
then its output (the last lines unless expanded), its error in red, an image as a
placeholder. A running call and anything not in the tool's shape get None: the mode's
default view (the streamed output) is drawn."""

from __future__ import annotations

from typing import Any

from omp import ToolRenderOptions, ToolResult

COLLAPSED_LINES = 10
"""Lines of a cell's output shown unless expanded (its last ones)."""
BRIEF = 72
ICONS = {"complete": "✓", "error": "✗", "timeout": "⏱", "aborted": "⊘", "died": "✗"}
RED = "\x1b[31m"
RESET = "\x1b[0m"


def _first_line(code: Any) -> str:
    return next((line.strip() for line in str(code or "").splitlines() if line.strip()), "")


def _brief(text: str, limit: int = BRIEF) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _label(cell: dict[str, Any], index: int, total: int) -> str:
    """``[2/3] title`` (or the code's first line); no counter for a lone cell."""
    name = cell.get("title") or _first_line(cell.get("code")) or f"cell {index}"
    prefix = f"[{index}/{total}] " if total > 1 else ""
    language = cell.get("language")
    suffix = f" ({language})" if language and language != "py" else ""
    return prefix + _brief(str(name)) + suffix


def _arg_cells(options: ToolRenderOptions) -> list[dict[str, Any]]:
    cells = (options.get("args") or {}).get("cells")
    return [c for c in cells if isinstance(c, dict)] if isinstance(cells, list) else []


def render_call(args: dict[str, Any], options: ToolRenderOptions) -> list[str] | None:
    """``eval`` and one line per cell; expanded, each cell's code under its line."""
    cells = args.get("cells")
    if not isinstance(cells, list) or not cells:
        return None
    cells = [c for c in cells if isinstance(c, dict)]
    header = "eval" + (" (reset)" if args.get("reset") else "")
    if len(cells) == 1 and not options.get("expanded"):
        return [f"{header} {_label(cells[0], 1, 1)}"]
    lines = [header]
    for index, cell in enumerate(cells, 1):
        lines.append(f"  {_label(cell, index, len(cells))}")
        if options.get("expanded"):
            lines += [f"    {line}" for line in str(cell.get("code") or "").splitlines()]
    return lines


def render_result(result: ToolResult, options: ToolRenderOptions) -> list[str] | None:
    """Each cell that ran: a status line, its output, its error (red), its images; then
    the cells that did not run and where a long output went."""
    details = result.details
    if options.get("partial") or not isinstance(details, dict):
        return None
    cells = details.get("cells")
    if not isinstance(cells, list):
        return None
    expanded = bool(options.get("expanded"))
    width = options.get("width")
    asked = _arg_cells(options)
    total = max(len(asked), len(cells))
    lines = _strings(details.get("notes"))  # a reset: news, not an error
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        index = int(cell.get("index") or 1)
        known = {**(asked[index - 1] if index <= len(asked) else {}), **cell}
        lines += _cell_lines(known, index, total, expanded, width)
    if len(cells) < total:
        lines.append(f"{total - len(cells)} more cell(s) not run")
    if details.get("artifact"):
        lines.append(f"full output: {details['artifact']}")
    return lines or None


def _cell_lines(
    cell: dict[str, Any], index: int, total: int, expanded: bool, width: Any
) -> list[str]:
    status = str(cell.get("status") or "complete")
    head = f"{ICONS.get(status, '•')} {_label(cell, index, total)}"
    if isinstance(cell.get("durationMs"), int):
        head += f" · {_duration(cell['durationMs'])}"
    lines = [head if status == "complete" else _red(head, width)]
    output = str(cell.get("output") or "").splitlines()
    if output and not expanded and len(output) > COLLAPSED_LINES:
        hidden = len(output) - COLLAPSED_LINES
        output = [f"… {hidden} earlier line(s)", *output[-COLLAPSED_LINES:]]
    lines += [f"  {line}" for line in output]
    lines += [f"  [{mime} image]" for mime in _strings(cell.get("images"))]
    error = str(cell.get("error") or "").splitlines()
    if error and not expanded:
        error = error[-COLLAPSED_LINES:]
    lines += [_red(f"  {line}", width) for line in error]
    lines += [_red(f"  {note}", width) for note in _strings(cell.get("notes"))]
    return lines


def _strings(value: Any) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []


def _red(line: str, width: Any) -> str:
    """A highlighted line; cut to ``width`` here, as the mode shows ANSI lines as they are."""
    if isinstance(width, int) and width > 1 and len(line) > width:
        line = line[: width - 1] + "…"
    return f"{RED}{line}{RESET}"


def _duration(ms: int) -> str:
    return f"{ms}ms" if ms < 1000 else f"{ms / 1000:.1f}s"
