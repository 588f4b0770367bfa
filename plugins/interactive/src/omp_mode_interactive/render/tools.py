"""A tool call as one line (its name and the arguments that say what it does) and its
result: a few first lines (a command's last ones, where its exit code and errors are),
or all of them when expanded; an edit's result is its unified diff, coloured (a file's
name over its hunks when the diff spans several, as ``ast_edit``'s does). The lines of
``details["diagnostics"]`` (a language server's errors after a write or edit) come last,
always shown, coloured by severity."""

from __future__ import annotations

import json
from typing import Any

from omp_mode_interactive.render.theme import Theme
from omp_mode_interactive.render.width import sanitize, text_width, truncate, wrap

COMPACT_LINES = 5
COMPACT_DIFF_LINES = 16
TAIL_FIRST = frozenset({"bash"})
"""Tools whose compact result is their last lines (as the live view shows them)."""
BULLET = "● "
RESULT_FIRST = "  ⎿  "
RESULT_NEXT = "     "
FILE_MARK = "▸ "
"""Before a file's name in a diff that spans several files."""


def call_summary(name: str, args: dict[str, Any]) -> str:
    """What the call does, in omp's and pi's manner: ``$ cmd`` for bash, the path for
    file tools, the pattern and where for searches, else ``key=value`` pairs."""
    args = args or {}

    def arg(*keys: str) -> str:
        for key in keys:
            value = args.get(key)
            if value not in (None, ""):
                return str(value)
        return ""

    if name == "bash":
        return (
            "$ "
            + " ".join(arg("command").split("\n", 1)[0].split())
            + (" …" if "\n" in arg("command").strip() else "")
        )
    if name == "read":
        path, offset, limit = arg("path", "file_path"), args.get("offset"), args.get("limit")
        if offset or limit:
            start = int(offset or 1)
            path += f":{start}" + (f"-{start + int(limit) - 1}" if limit else "")
        return path
    if name in ("edit", "write"):
        return arg("path", "file_path")
    if name == "grep":
        where = arg("path")
        return f"{json.dumps(arg('pattern'), ensure_ascii=False)}" + (
            f" in {where}" if where else ""
        )
    if name in ("find", "ls"):
        return " ".join(part for part in (arg("pattern"), arg("path")) if part)
    if name == "fetch":
        return arg("url")
    if name == "todo_write":
        todos = args.get("todos")
        return f"{len(todos)} item(s)" if isinstance(todos, list) else ""
    return ", ".join(f"{key}={_short(value)}" for key, value in args.items())


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:59] + "…"


def call_line(name: str, args: dict[str, Any], theme: Theme, width: int, role: str = "tool") -> str:
    summary = sanitize(call_summary(name, args))
    head = truncate(name, max(8, width // 3))
    room = width - text_width(BULLET) - text_width(head) - 1
    bullet = theme.paint(BULLET, {"tool": "tool_ok"}.get(role, role))
    tail = " " + theme.paint(truncate(summary, room), "muted") if summary and room > 1 else ""
    return bullet + theme.paint(head, "tool") + tail


def framed_call(lines: list[str], theme: Theme, width: int, role: str = "tool") -> list[str]:
    """A tool's own call lines (its ``render_call``) under the bullet of its state."""
    bullet = theme.paint(BULLET, {"tool": "tool_ok"}.get(role, role))
    room = width - text_width(BULLET)
    pad = " " * text_width(BULLET)
    return [(bullet if i == 0 else pad) + _fitted(line, room) for i, line in enumerate(lines)]


def framed_result(lines: list[str], width: int) -> list[str]:
    """A tool's own result lines (its ``render_result``) in the result's gutter."""
    room = width - text_width(RESULT_FIRST)
    return [
        (RESULT_FIRST if i == 0 else RESULT_NEXT) + _fitted(line, room)
        for i, line in enumerate(lines)
    ]


def _fitted(line: str, room: int) -> str:
    """Plain text cut to the room; a line carrying its own ANSI styling as it is."""
    return line if "\x1b" in line else truncate(sanitize(line), max(1, room))


def result_text(result: Any) -> str:
    """The text of a tool result (a ToolResult dict with ``content``), images noted."""
    content = result.get("content") if isinstance(result, dict) else None
    if content is None:
        content = getattr(result, "content", None)
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content or []:
        kind = block.get("type") if isinstance(block, dict) else getattr(block, "type", "")
        if kind == "text":
            parts.append(block["text"] if isinstance(block, dict) else block.text)
        elif kind == "image":
            parts.append("[image]")
    return "\n".join(parts)


def result_details(result: Any) -> Any:
    if isinstance(result, dict):
        return result.get("details")
    return getattr(result, "details", None)


def result_lines(
    name: str, result: Any, is_error: bool, theme: Theme, width: int, expanded: bool
) -> tuple[list[str], bool]:
    """The result's lines under the call line, and whether some were left out."""
    details = result_details(result)
    notes = _diagnostics(details)
    text = result_text(result)
    if notes and text.endswith("\n".join(notes)):  # shown below, coloured, not twice
        text = text[: len(text) - len("\n".join(notes))].rstrip("\n")
    after = [_paint_diagnostic(sanitize(line), theme) for line in _fitted_notes(notes, width)]
    if not is_error and isinstance(details, dict) and isinstance(details.get("diff"), str):
        summary = text.split("\n", 1)[0]
        body = _diff_body(details["diff"])
        lines, cut = _fit([summary, *body], width, expanded, COMPACT_DIFF_LINES + 1)
        painted = [theme.paint(lines[0], "muted")] if lines else []
        painted += [_paint_diff(line, theme) for line in lines[1:]]
        return _indent(painted, cut, theme, after=after), bool(cut)
    text = sanitize(text).rstrip("\n")
    if not text.strip():
        text = "(no output)" if name == "bash" else "(empty)"
    tail = name in TAIL_FIRST
    lines, cut = _fit(text.split("\n"), width, expanded, COMPACT_LINES, tail=tail)
    role = "error" if is_error else "muted"
    painted = [theme.paint(line, role) for line in lines]
    return _indent(painted, cut, theme, earlier=tail, after=after), bool(cut)


def _diagnostics(details: Any) -> list[str]:
    notes = details.get("diagnostics") if isinstance(details, dict) else None
    if not isinstance(notes, list):
        return []
    return [line for line in notes if isinstance(line, str)]


def _fitted_notes(notes: list[str], width: int) -> list[str]:
    room = max(10, width - text_width(RESULT_FIRST))
    return [piece for line in notes for piece in wrap(sanitize(line), room)]


def _paint_diagnostic(line: str, theme: Theme) -> str:
    if " [error] " in line:
        return theme.paint(line, "error")
    if " [warning] " in line:
        return theme.paint(line, "warning")
    return theme.paint(line, "muted")


def live_output_lines(text: str, theme: Theme, width: int, count: int) -> list[str]:
    """The last ``count`` lines of a running tool's output."""
    lines = sanitize(text).rstrip("\n").split("\n")[-count:]
    if not any(line.strip() for line in lines):
        return []
    room = width - text_width(RESULT_FIRST)
    out = [theme.paint(truncate(line, room), "muted") for line in lines]
    return [(RESULT_FIRST if i == 0 else RESULT_NEXT) + line for i, line in enumerate(out)]


def _fit(
    lines: list[str], width: int, expanded: bool, limit: int, *, tail: bool = False
) -> tuple[list[str], int]:
    """Lines fitted to the width (cut when compact, folded when expanded), the count
    of those left out (the first ones when ``tail``)."""
    room = max(10, width - text_width(RESULT_FIRST))
    if expanded:
        return [piece for line in lines for piece in wrap(line, room)], 0
    shown = lines[-limit:] if tail else lines[:limit]
    return [truncate(line, room) for line in shown], len(lines) - len(shown)


def _indent(
    lines: list[str],
    cut: int,
    theme: Theme,
    *,
    earlier: bool = False,
    after: list[str] | None = None,
) -> list[str]:
    """The result under its call line; the note of what was cut goes where it was cut;
    ``after`` (diagnostics) follows whatever was cut."""
    if cut:
        plural = "s" if cut != 1 else ""
        where = "earlier" if earlier else "more"
        note = theme.paint(f"… {cut} {where} line{plural} (Ctrl+O to expand)", "dim")
        lines = [note, *lines] if earlier else [*lines, note]
    lines = [*lines, *(after or [])]
    return [(RESULT_FIRST if i == 0 else RESULT_NEXT) + line for i, line in enumerate(lines)]


def _diff_body(diff: str) -> list[str]:
    """The hunks without their ``---``/``+++`` headers; a diff of several files keeps each
    file's name (from its ``+++ b/NAME``) as a line over its hunks."""
    lines = diff.rstrip("\n").split("\n")
    heads = {
        i
        for i, line in enumerate(lines[:-1])
        if line.startswith("--- ") and lines[i + 1].startswith("+++ ")
    }
    body: list[str] = []
    for i, line in enumerate(lines):
        if i in heads and len(heads) > 1:
            body.append(FILE_MARK + lines[i + 1][4:].removeprefix("b/"))
        elif i not in heads and i - 1 not in heads:
            body.append(line)
    return body


def _paint_diff(line: str, theme: Theme) -> str:
    if line.startswith(FILE_MARK):
        return theme.paint(line, "diff_meta")
    if line.startswith("+"):
        return theme.paint(line, "diff_add")
    if line.startswith("-"):
        return theme.paint(line, "diff_del")
    if line.startswith("@@"):
        return theme.paint(line, "diff_hunk")
    if line.startswith("\\"):
        return theme.paint(line, "dim")
    return line
