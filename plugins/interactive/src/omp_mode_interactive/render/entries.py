"""Finished entries that are not streamed: the user's prompt, plugin messages, commands
the user ran, summaries, notices and errors. Each returns the ANSI lines to print."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from omp_mode_interactive.render.theme import Theme
from omp_mode_interactive.render.tools import result_lines
from omp_mode_interactive.render.width import sanitize, text_width, truncate, wrap

USER_PREFIX = "› "  # noqa: RUF001 - the prompt mark omp and pi show
USER_MAX_LINES = 30


def content_text(content: Any) -> tuple[str, int]:
    """The text of a message's content, and how many images it holds."""
    if isinstance(content, str):
        return content, 0
    texts, images = [], 0
    for block in content or []:
        kind = block.get("type") if isinstance(block, dict) else getattr(block, "type", "")
        if kind == "text":
            texts.append(block["text"] if isinstance(block, dict) else block.text)
        elif kind == "image":
            images += 1
    return "\n".join(texts), images


def user_lines(content: Any, theme: Theme, width: int, expanded: bool = False) -> list[str]:
    text, images = content_text(content)
    text = sanitize(text).rstrip("\n")
    room = max(10, width - text_width(USER_PREFIX) - 1)
    lines = [piece for line in text.split("\n") for piece in wrap(line, room)]
    hidden = 0
    if not expanded and len(lines) > USER_MAX_LINES:
        hidden = len(lines) - USER_MAX_LINES
        lines = lines[:USER_MAX_LINES]
    if images:
        lines.append(f"[{images} image{'s' if images != 1 else ''} attached]")
    out = []
    for i, line in enumerate(lines):
        prefix = USER_PREFIX if i == 0 else " " * text_width(USER_PREFIX)
        out.append(theme.paint(f"{prefix}{line} ", "user"))
    if hidden:
        out.append(theme.paint(f"  … {hidden} more lines", "dim"))
    return out


def notice_line(level: str, message: str, theme: Theme, width: int) -> list[str]:
    role = {"error": "error", "warning": "warning"}.get(level, "info")
    mark = {"error": "✗ ", "warning": "⚠ "}.get(level, "• ")
    text = sanitize(message).strip()
    return _wrapped(mark, text, role, theme, width)


def error_lines(message: Any, theme: Theme, width: int) -> list[str]:
    """An assistant message that failed or was stopped: the provider's explanation in
    red (with the HTTP status when known), or an interruption in the warning colour."""
    reason = getattr(message, "error_message", None) or ""
    if message.stop_reason == "aborted":
        text = "Interrupted" + (f": {reason}" if reason and reason.lower() != "aborted" else "")
        return _wrapped("⏹ ", text, "warning", theme, width)
    status = getattr(message, "error_status", None)
    text = "Error" + (f" (HTTP {status})" if status else "") + f": {reason or 'the request failed'}"
    return _wrapped("✗ ", text, "error", theme, width)


def _wrapped(mark: str, text: str, role: str, theme: Theme, width: int) -> list[str]:
    room = max(10, width - text_width(mark))
    pieces = [piece for line in text.split("\n") for piece in wrap(line, room)]
    return [
        theme.paint(("" if i else mark) + ("" if not i else " " * text_width(mark)) + p, role)
        for i, p in enumerate(pieces)
    ]


def execution_lines(message: Any, theme: Theme, width: int, expanded: bool) -> list[str]:
    """A command (``!cmd``) or Python the user ran, with its output."""
    if message.role == "bashExecution":
        head = "$ " + " ".join(message.command.split())
    else:
        head = ">>> " + " ".join(message.code.split())
    lines = [theme.paint(truncate(head, width), "user")]
    result = {"content": [{"type": "text", "text": message.output}]}
    failed = message.cancelled or message.exit_code not in (0, None)
    body, _ = result_lines("bash", result, failed, theme, width, expanded)
    lines += body
    if message.cancelled:
        lines.append(theme.paint("     cancelled", "warning"))
    elif message.exit_code not in (0, None):
        lines.append(theme.paint(f"     exit code {message.exit_code}", "error"))
    return lines


def summary_lines(message: Any, theme: Theme, width: int) -> list[str]:
    if message.role == "compactionSummary":
        label = f"context compacted ({message.tokens_before:,} tokens summarized)"
    else:
        label = "summary of an abandoned branch"
    rule = truncate(f"── {label} ", width, "")
    rule += "─" * max(0, width - text_width(rule))
    return [theme.paint(rule, "dim")]


def custom_lines(
    message: Any,
    renderers: Mapping[tuple[str, str], Any],
    options: dict[str, Any],
    theme: Theme,
    width: int,
    markdown: Callable[[str], str],
) -> list[str]:
    """A plugin's message: its registered renderer's lines, else its type as a label
    and its text as Markdown."""
    renderer = renderers.get(("message", message.custom_type))
    if renderer is not None:
        lines = call_renderer(renderer, message, options, width)
        if lines is not None:
            return lines
    label = theme.paint(f"[{message.custom_type}]", "accent")
    text, _ = content_text(message.content)
    return [label, *markdown(sanitize(text)).split("\n")] if text.strip() else [label]


def call_renderer(
    renderer: Any, payload: Any, options: dict[str, Any], width: int
) -> list[str] | None:
    """A plugin renderer's lines fitted to the width; None when it failed or returned
    nothing (the default rendering is used instead, as omp does)."""
    try:
        produced = renderer.render(payload, options)
    except Exception:
        return None
    if produced is None:
        return None
    if isinstance(produced, str):
        produced = produced.split("\n")
    lines = []
    for line in produced:
        text = str(line)
        lines.append(text if "\x1b" in text else truncate(sanitize(text), width))
    return lines or None
