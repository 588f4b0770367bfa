"""omp's session events as ACP ``session/update`` payloads: message and thought chunks,
tool calls (kind, title, locations, content, diffs), plans from ``todo_write``, and the
replay of a saved conversation."""

from __future__ import annotations

import os
from typing import Any

from acp import schema
from acp.helpers import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
    update_user_message,
)
from omp import ToolRendering, ToolRenderOptions, rendered_text

KINDS = {
    "read": "read",
    "edit": "edit",
    "write": "edit",
    "bash": "execute",
    "grep": "search",
    "find": "search",
    "ls": "search",
    "fetch": "fetch",
    "ast_grep": "search",
    "ast_edit": "edit",
    "todo_write": "think",
    "sequential_thinking": "think",
}
"""Tool name -> ACP tool kind (the client's icon); anything else is ``other``."""

PLAN_TOOL = "todo_write"
MAX_TITLE = 80


def tool_kind(name: str) -> str:
    return KINDS.get(name, "other")


def _path_of(args: dict[str, Any], cwd: str) -> str | None:
    path = args.get("path")
    if not isinstance(path, str) or not path or path.startswith("artifact://"):
        return None
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))


def tool_title(name: str, args: dict[str, Any], cwd: str) -> str:
    """What the client shows for a call: ``bash: ls -la``, ``read src/x.py``."""
    if name == "bash" and isinstance(args.get("command"), str):
        detail = " ".join(args["command"].split())
    elif isinstance(args.get("path"), str):
        detail = args["path"]
    elif isinstance(args.get("pattern"), str):
        detail = args["pattern"]
    elif isinstance(args.get("url"), str):
        detail = args["url"]
    else:
        return name
    title = f"{name} {detail}" if name != "bash" else f"bash: {detail}"
    return title if len(title) <= MAX_TITLE else title[: MAX_TITLE - 1] + "…"


def tool_locations(args: dict[str, Any], cwd: str) -> list[schema.ToolCallLocation] | None:
    path = _path_of(args, cwd)
    if path is None:
        return None
    line = args.get("offset")
    return [schema.ToolCallLocation(path=path, line=line if isinstance(line, int) else None)]


def call_started(
    call_id: str, name: str, args: dict[str, Any], cwd: str, view: ToolRendering | None = None
) -> Any:
    """A call the client shows; its title is the tool's ``render_call`` when it has one."""
    drawn = view.call(name, args, _options(call_id, args)) if view else None
    title = rendered_text(drawn).strip() if drawn else ""
    if title:
        title = " ".join(title.split("\n", 1)[0].split())
        title = title if len(title) <= MAX_TITLE else title[: MAX_TITLE - 1] + "…"
    return start_tool_call(
        call_id,
        title or tool_title(name, args, cwd),
        kind=tool_kind(name),  # type: ignore[arg-type]
        status="pending",
        locations=tool_locations(args, cwd),
        raw_input=args,
    )


def _options(
    call_id: str, args: dict[str, Any], *, partial: bool = False, is_error: bool = False
) -> ToolRenderOptions:
    return {
        "mode": "acp",
        "tool_call_id": call_id,
        "args": args,
        "expanded": True,
        "partial": partial,
        "is_error": is_error,
    }


def rendered_content(
    view: ToolRendering | None,
    call_id: str,
    name: str,
    args: dict[str, Any],
    result: Any,
    *,
    partial: bool = False,
    is_error: bool = False,
) -> list[Any] | None:
    """The tool's ``render_result`` as the call's content (plain text); None when it
    has none, or it failed (reported), and the default content is sent."""
    options = _options(call_id, args, partial=partial, is_error=is_error)
    drawn = view.result(name, result, options) if view else None
    return [tool_content(text_block(rendered_text(drawn)))] if drawn else None


def _text_of(content: Any) -> str:
    parts = []
    for block in content or []:
        text = getattr(block, "text", None)
        if text is None and isinstance(block, dict):
            text = block.get("text")
        if isinstance(text, str):
            parts.append(text)
    return "".join(parts)


def hunks(path: str, diff: str) -> list[Any]:
    """A unified diff (the edit tool's ``details.diff``) as one ACP diff per hunk, each
    with the old and new text of the lines it covers."""
    found: list[Any] = []
    old: list[str] | None = None
    new: list[str] = []
    for line in diff.splitlines():
        if line.startswith("@@"):
            if old is not None:
                found.append(tool_diff_content(path, "\n".join(new), "\n".join(old)))
            old, new = [], []
        elif old is None or line.startswith("\\"):
            continue
        elif line.startswith("-"):
            old.append(line[1:])
        elif line.startswith("+"):
            new.append(line[1:])
        else:
            old.append(line[1:])
            new.append(line[1:])
    if old is not None:
        found.append(tool_diff_content(path, "\n".join(new), "\n".join(old)))
    return found


def file_hunks(diff: str, cwd: str) -> list[Any]:
    """A unified diff over several files (``ast_edit``'s ``details.diff``, each file under
    its ``--- a/NAME``/``+++ b/NAME`` header) as ACP diffs, each with its file's path."""
    found: list[Any] = []
    lines = diff.splitlines()
    starts = [
        i
        for i, line in enumerate(lines[:-1])
        if line.startswith("--- ") and lines[i + 1].startswith("+++ ")
    ]
    for start, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        name = lines[start + 1][4:].removeprefix("b/")
        path = os.path.normpath(os.path.join(cwd, name))
        found += hunks(path, "\n".join(lines[start + 2 : end]))
    return found


def diagnostics_content(details: Any) -> list[Any]:
    """A language server's lines after a write or edit (omp-lsp's
    ``details["diagnostics"]``), as text under the diff."""
    notes = details.get("diagnostics") if isinstance(details, dict) else None
    if not isinstance(notes, list) or not notes:
        return []
    return [tool_content(text_block("\n".join(str(line) for line in notes)))]


def result_content(
    name: str, args: dict[str, Any], result: Any, cwd: str, before: str | None
) -> list[Any]:
    """What the client shows under a finished call: diffs for edit, write and an applied
    ast_edit (a language server's diagnostics after them), text for everything else.
    ``before`` is a written file's earlier text (None: it was new)."""
    details = result.get("details") if isinstance(result, dict) else None
    path = _path_of(args, cwd)
    if isinstance(details, dict) and not details.get("isError"):
        diff = details.get("diff")
        if path and name == "edit" and isinstance(diff, str):
            return hunks(path, diff) + diagnostics_content(details)
        if path and name == "write" and isinstance(args.get("content"), str) and "bytes" in details:
            written = tool_diff_content(path, args["content"], before)
            return [written, *diagnostics_content(details)]
        if name == "ast_edit" and details.get("applied") and isinstance(diff, str):
            return file_hunks(diff, cwd)
    text = _text_of(result.get("content") if isinstance(result, dict) else None)
    return [tool_content(text_block(text))] if text else []


def call_finished(
    call_id: str,
    name: str,
    args: dict[str, Any],
    result: Any,
    is_error: bool,
    cwd: str,
    before: str | None = None,
    view: ToolRendering | None = None,
) -> Any:
    content = rendered_content(view, call_id, name, args, result, is_error=is_error)
    if content is None and not is_error:
        content = result_content(name, args, result, cwd, before)
    elif content is None:
        text = _text_of(result.get("content") if isinstance(result, dict) else None)
        content = [tool_content(text_block(text))] if text else []
    details = result.get("details") if isinstance(result, dict) else None
    return update_tool_call(
        call_id,
        status="failed" if is_error else "completed",
        content=content,
        raw_output={"details": details} if details is not None else None,
    )


def plan_of(details: Any) -> Any | None:
    """The ACP plan of a ``todo_write`` result (its ``details.todos``)."""
    todos = details.get("todos") if isinstance(details, dict) else None
    if not isinstance(todos, list):
        return None
    entries = [
        plan_entry(str(t.get("content", "")), status=t.get("status", "pending"))
        for t in todos
        if isinstance(t, dict) and t.get("status") in ("pending", "in_progress", "completed")
    ]
    return update_plan(entries)


def _user_blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [text_block(content)] if content else []
    blocks = []
    for block in content or []:
        kind = getattr(block, "type", None)
        if kind == "text" and block.text:
            blocks.append(text_block(block.text))
        elif kind == "image":
            blocks.append(
                schema.ImageContentBlock(type="image", data=block.data, mime_type=block.mime_type)
            )
    return blocks


def replay(messages: list[Any], cwd: str, view: ToolRendering | None = None) -> list[Any]:
    """The updates that show a saved conversation as it happened (``session/load``)."""
    updates: list[Any] = []
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    for message in messages:
        role = getattr(message, "role", None)
        if role == "user":
            updates += [update_user_message(b) for b in _user_blocks(message.content)]
        elif role == "assistant":
            for block in message.content:
                kind = block.type
                if kind == "thinking" and block.thinking:
                    updates.append(update_agent_thought_text(block.thinking))
                elif kind == "text" and block.text:
                    updates.append(update_agent_message(text_block(block.text)))
                elif kind == "toolCall":
                    calls[block.id] = (block.name, block.arguments)
                    updates.append(call_started(block.id, block.name, block.arguments, cwd, view))
        elif role == "toolResult":
            name, args = calls.get(message.tool_call_id, (message.tool_name, {}))
            result = {"content": message.content, "details": message.details}
            updates.append(
                call_finished(
                    message.tool_call_id, name, args, result, message.is_error, cwd, view=view
                )
            )
            if name == PLAN_TOOL and not message.is_error and (plan := plan_of(message.details)):
                updates.append(plan)
    return updates
