"""What the parent model reads of its children: omp's ``<task-result>`` envelopes with
previews cut at 5000 characters, the full output kept for ``agent://<id>`` and the
transcript for ``history://<id>`` (both read with the ``read`` tool)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PREVIEW_CHARS = 5000
MAX_OUTPUT_BYTES = 500_000  # omp's PI_TASK_MAX_OUTPUT_BYTES / _LINES
MAX_OUTPUT_LINES = 5000
AGENT_SCHEME = "agent"
HISTORY_SCHEME = "history"


def child_id(parent_id: str | None, index: int, name: str) -> str:
    """``<index>-<name>``, nested under the parent child's id: ``0-Parent.1-Child``."""
    own = f"{index}-{name}"
    return f"{parent_id}.{own}" if parent_id else own


def capped(output: str) -> tuple[str, bool]:
    """``output`` within omp's caps (500,000 bytes, 5000 lines); whether it was cut."""
    lines = output.split("\n")
    cut = len(lines) > MAX_OUTPUT_LINES
    if cut:
        output = "\n".join(lines[:MAX_OUTPUT_LINES])
    data = output.encode("utf-8")
    if len(data) > MAX_OUTPUT_BYTES:
        output, cut = data[:MAX_OUTPUT_BYTES].decode("utf-8", "ignore"), True
    return output, cut


def format_duration(ms: float) -> str:
    if ms <= 0:
        return "0ms"
    if ms < 1000:
        return f"{int(ms)}ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f}s"
    minutes, seconds = divmod(int(ms // 1000), 60)
    return f"{minutes}m{seconds}s" if seconds else f"{minutes}m"


def format_bytes(size: int) -> str:
    if size < 1024:
        return f"{size}B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f}KB"
    return f"{size / (1024 * 1024):.1f}MB"


def preview_head(output: str) -> str:
    """The head that fits the preview: cut at a line end when one is past half way."""
    head = output[:PREVIEW_CHARS]
    newline = head.rfind("\n")
    return head[:newline] if newline >= PREVIEW_CHARS // 2 else head


def shown_output(result: dict[str, Any]) -> str:
    text = str(result.get("output") or "").strip()
    if text:
        return text
    requests = int(result.get("requests") or 0)
    return f"(no output) after {requests} req" if requests else "(no output)"


def status_of(result: dict[str, Any]) -> str:
    if result.get("aborted"):
        return "cancelled"
    code = result.get("exitCode", 1)
    return "completed" if code == 0 else f"failed (exit {code})"


def envelope(result: dict[str, Any]) -> str:
    """One child's ``<task-result>`` as omp's task-summary template renders it."""
    output = shown_output(result)
    truncated = len(output) > PREVIEW_CHARS
    lines = [
        f'<task-result id="{result["id"]}" agent="{result["agent"]}" '
        f'status="{status_of(result)}" duration="{format_duration(result["durationMs"])}">'
    ]
    if truncated:
        size = len(output.encode("utf-8"))
        lines.append(f'<meta lines="{output.count(chr(10)) + 1}" size="{format_bytes(size)}" />')
    if result.get("aborted") and result.get("abortReason"):
        lines.append(f"<abort-reason>{result['abortReason']}</abort-reason>")
    if truncated:
        lines += [f'<preview full-output="agent://{result["id"]}">', preview_head(output)]
        lines.append("</preview>")
    else:
        lines += ["<output>", output, "</output>"]
    if result.get("patch"):
        lines += ["<diff>", str(result["patch"]).rstrip("\n"), "</diff>"]
    lines.append("</task-result>")
    return "\n".join(lines)


def summary(results: list[dict[str, Any]]) -> str:
    return "\n\n".join(envelope(result) for result in results)


def structured_text(data: Any) -> str:
    """A structured result as the model reads it: pretty JSON (a string as it is)."""
    return data if isinstance(data, str) else json.dumps(data, indent=2, ensure_ascii=False)


# -- transcripts (history://) ---------------------------------------------------------------


def _fence(text: str) -> str:
    return f"```json\n{text}\n```"


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    lines = []
    for block in content or []:
        if block.get("type") == "text":
            lines.append(str(block.get("text", "")))
        elif block.get("type") == "image":
            lines.append("[image]")
    return lines


def transcript_markdown(messages: list[dict[str, Any]]) -> str:
    """A child's conversation as concise markdown (omp's history:// format)."""
    lines: list[str] = []
    for message in messages:
        role = message.get("role")
        if role in ("user", "developer"):
            lines += [f"### {role}", *_texts(message.get("content"))]
        elif role == "assistant":
            lines.append("### assistant")
            for block in message.get("content") or []:
                kind = block.get("type")
                if kind == "text":
                    lines.append(str(block.get("text", "")))
                elif kind == "thinking":
                    lines += ["<thinking>", str(block.get("thinking", "")), "</thinking>"]
                elif kind == "toolCall":
                    lines.append(f"#### tool call: {block.get('name')} ({block.get('id')})")
                    lines.append(_fence(json.dumps(block.get("arguments"), indent=2)))
        elif role == "toolResult":
            error = " [error]" if message.get("isError") else ""
            lines.append(
                f"### tool result: {message.get('toolName')} ({message.get('toolCallId')}){error}"
            )
            lines += _texts(message.get("content"))
    return "\n\n".join(lines) + "\n"


def messages_of_file(path: Path) -> list[dict[str, Any]]:
    """The messages of a session file, in file order (a torn last line skipped)."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict) and entry.get("type") == "message":
            message = entry.get("message")
            if isinstance(message, dict):
                found.append(message)
    return found
