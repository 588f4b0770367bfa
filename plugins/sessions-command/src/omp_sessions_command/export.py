"""A session's current branch as a self-contained HTML page or a Markdown file: tool calls
and their results folded, thinking collapsible, nothing fetched from anywhere."""

from __future__ import annotations

import html
import json
import os
from pathlib import Path
from typing import Any

_STYLE = """
body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{font-size:1.3rem}.meta{color:#666;font-size:.85rem}
.msg{border-left:4px solid #ccc;padding:.3rem .9rem;margin:1rem 0;white-space:pre-wrap}
.user{border-color:#3b82f6;background:#f0f6ff}.assistant{border-color:#10b981}
.toolResult,.bashExecution{border-color:#a3a3a3;background:#fafafa}.summary{border-color:#f59e0b}
.role{font-weight:600;font-size:.8rem;text-transform:uppercase;color:#555;white-space:normal}
details{margin:.3rem 0}summary{cursor:pointer;color:#555}
pre{background:#f4f4f4;padding:.5rem;overflow-x:auto;white-space:pre-wrap}
.error{color:#b91c1c}
"""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif isinstance(block, dict) and block.get("type") == "image":
                parts.append(f"[image {block.get('mimeType', '')}]")
        return "\n".join(parts)
    return ""


def _blocks(entry: dict[str, Any]) -> tuple[str, list[tuple[str, Any]]] | None:
    """(role, [(kind, value), ...]) for an entry a transcript shows; None for the rest.
    kinds: text, thinking, call (name, arguments), result (name, text, is_error)."""
    kind = entry.get("type")
    if kind == "branch_summary":
        return "summary", [("text", f"Summary of an abandoned branch:\n{entry.get('summary', '')}")]
    if kind == "compaction":
        return "summary", [("text", f"Compacted earlier turns:\n{entry.get('summary', '')}")]
    if kind == "custom_message":
        return "custom", [("text", _text(entry.get("content")))]
    if kind != "message":
        return None
    message = entry.get("message") or {}
    role = str(message.get("role", ""))
    if role == "assistant":
        out: list[tuple[str, Any]] = []
        for block in message.get("content") or []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                out.append(("text", block.get("text", "")))
            elif block.get("type") == "thinking":
                out.append(("thinking", block.get("thinking", "")))
            elif block.get("type") == "toolCall":
                out.append(("call", (block.get("name", ""), block.get("arguments", {}))))
        if message.get("errorMessage"):
            out.append(("error", message["errorMessage"]))
        return role, out
    if role == "toolResult":
        result = (
            message.get("toolName", ""),
            _text(message.get("content")),
            message.get("isError"),
        )
        return role, [("result", result)]
    if role == "bashExecution":
        return role, [
            ("result", (f"$ {message.get('command', '')}", message.get("output", ""), False))
        ]
    return role, [("text", _text(message.get("content")))]


def _arguments(arguments: Any) -> str:
    return json.dumps(arguments, indent=2, ensure_ascii=False)


def _meta(header: dict[str, Any]) -> str:
    return (
        f"Session {header.get('id', '')} in {header.get('cwd', '')}, "
        f"started {header.get('timestamp', '')}"
    )


def to_markdown(header: dict[str, Any], entries: list[dict[str, Any]], title: str) -> str:
    lines = [
        f"# {title}",
        "",
        _meta(header),
        "",
    ]
    for entry in entries:
        shown = _blocks(entry)
        if shown is None:
            continue
        role, blocks = shown
        lines += [f"## {role}", ""]
        for kind, value in blocks:
            if kind == "text":
                lines += [str(value), ""]
            elif kind == "error":
                lines += [f"**Error:** {value}", ""]
            elif kind == "thinking":
                lines += [
                    "<details><summary>Thinking</summary>",
                    "",
                    str(value),
                    "",
                    "</details>",
                    "",
                ]
            elif kind == "call":
                name, arguments = value
                lines += [
                    f"<details><summary>Tool call: {name}</summary>",
                    "",
                    "```json",
                    _arguments(arguments),
                    "```",
                    "",
                    "</details>",
                    "",
                ]
            elif kind == "result":
                name, text, is_error = value
                label = f"{'Error from' if is_error else 'Result of'} {name}"
                lines += [
                    f"<details><summary>{label}</summary>",
                    "",
                    "```",
                    str(text),
                    "```",
                    "",
                    "</details>",
                    "",
                ]
    return "\n".join(lines).rstrip() + "\n"


def to_html(header: dict[str, Any], entries: list[dict[str, Any]], title: str) -> str:
    e = html.escape
    body = [
        f"<h1>{e(title)}</h1>",
        f'<p class="meta">{e(_meta(header))}</p>',
    ]
    for entry in entries:
        shown = _blocks(entry)
        if shown is None:
            continue
        role, blocks = shown
        parts = [f'<div class="role">{e(role)}</div>']
        for kind, value in blocks:
            if kind == "text":
                parts.append(e(str(value)))
            elif kind == "error":
                parts.append(f'<div class="error">{e(str(value))}</div>')
            elif kind == "thinking":
                parts.append(f"<details><summary>Thinking</summary>{e(str(value))}</details>")
            elif kind == "call":
                name, arguments = value
                parts.append(
                    f"<details><summary>Tool call: {e(str(name))}</summary>"
                    f"<pre>{e(_arguments(arguments))}</pre></details>"
                )
            elif kind == "result":
                name, text, is_error = value
                label = f"{'Error from' if is_error else 'Result of'} {name}"
                parts.append(
                    f"<details><summary>{e(label)}</summary><pre>{e(str(text))}</pre></details>"
                )
        body.append(f'<div class="msg {e(role)}">{"".join(parts)}</div>')
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{e(title)}</title><style>{_STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def _title(name: str | None, entries: list[dict[str, Any]]) -> str:
    if name:
        return name
    for entry in entries:
        message = entry.get("message") or {}
        if message.get("role") == "user":
            line = next(iter(_text(message.get("content")).strip().splitlines()), "")
            return line[:80] or "omp session"
    return "omp session"


def default_name(source: Path) -> str:
    """pi's and omp's name for an export of ``source`` when none is given."""
    return f"omp-session-{source.name.removesuffix('.jsonl')}.html"


def check_target(source: Path, target: Path, *, force: bool = False) -> None:
    """An export never replaces a session file (nor any ``.jsonl``), and replaces
    another existing file only with ``force``."""
    from omp import UsageError

    if target.suffix.lower() == ".jsonl":
        raise UsageError(
            f"will not write an export to {target}: .jsonl files are sessions; name the "
            "output .html (or .md for Markdown)"
        )
    if os.path.exists(target) and os.path.exists(source) and os.path.samefile(source, target):
        raise UsageError(f"will not write an export over the session it exports ({target})")
    if target.is_dir():
        raise UsageError(f"cannot export to {target}: it is a directory")
    if os.path.lexists(target) and not force:
        raise UsageError(f"{target} already exists; add --force to overwrite it")


def export_session(source: Path, target: Path, secrets: Any = None, *, force: bool = False) -> Path:
    """Write the current branch of the session file ``source`` to ``target``: Markdown
    for ``.md``/``.markdown``, else HTML. Every credential ``secrets`` (omp.config.secrets;
    default: what omp knows outside a session) hold is hidden, also from a session
    written before omp hid them. ``check_target`` says what is refused."""
    from omp import OmpError, SessionFile, known_secrets, write_file

    check_target(source, target, force=force)
    session = SessionFile.open(source, lock=False)
    entries = session.branch_entries()
    title = _title(session.name, entries)
    markdown = target.suffix.lower() in (".md", ".markdown")
    secrets = known_secrets() if secrets is None else secrets
    entries, title = secrets.redact_value(entries), secrets.redact(title)
    text = (to_markdown if markdown else to_html)(session.header, entries, title)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_file(target, text.encode("utf-8"), durable=False)
    except OSError as exc:
        raise OmpError(f"cannot write {target}: {(exc.strerror or str(exc)).lower()}") from None
    return target
