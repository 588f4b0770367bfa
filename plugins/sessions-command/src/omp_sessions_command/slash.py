"""/tree, /branch, /fork, /name, /resume and /export on top of the command context's
session actions. Without an argument /tree and /branch open a picker in a mode with a
UI (and list the choices elsewhere); /resume lists the choices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omp import OmpError

HIDDEN = ("label", "custom", "model_change", "thinking_level_change", "session_info")
"""Entry types omp's /tree hides by default."""
_PREVIEW = 70


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _PREVIEW else text[: _PREVIEW - 1] + "…"


def preview(entry: dict[str, Any]) -> str:
    """What an entry is, on one line."""
    from omp_sessions_command.export import _text

    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message") or {}
        role = message.get("role", "?")
        if role == "assistant":
            blocks = message.get("content") or []
            text = " ".join(b.get("text", "") for b in blocks if b.get("type") == "text")
            calls = [b.get("name", "") for b in blocks if b.get("type") == "toolCall"]
            if calls:
                text = f"{text} [calls {', '.join(calls)}]".strip()
            return f"assistant: {_one_line(text)}"
        if role == "toolResult":
            text = _one_line(_text(message.get("content")))
            return f"result of {message.get('toolName', '?')}: {text}"
        return f"{role}: {_one_line(_text(message.get('content')))}"
    if kind == "branch_summary":
        return f"branch summary: {_one_line(str(entry.get('summary', '')))}"
    if kind == "compaction":
        return f"compaction: {_one_line(str(entry.get('summary', '')))}"
    if kind == "custom_message":
        return f"{entry.get('customType', 'custom')}: {_one_line(_text(entry.get('content')))}"
    return str(kind)


def _resolve(ctx: Any, prefix: str) -> dict[str, Any]:
    """The entry whose id starts with ``prefix``."""
    exact = ctx.session.get_entry(prefix)
    if exact is not None:
        return exact
    found = [e for e in ctx.session.entries() if str(e.get("id", "")).startswith(prefix)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise OmpError(f"no entry {prefix!r} in this session (/tree lists them)")
    raise OmpError(f"entry {prefix!r} is ambiguous: {len(found)} entries start with it")


def _is_user(entry: dict[str, Any]) -> bool:
    return entry.get("type") == "message" and (entry.get("message") or {}).get("role") == "user"


def _report(ctx: Any, result: dict[str, Any], done: str) -> None:
    if result.get("cancelled"):
        ctx.ui.notify("cancelled by a plugin", "warning")
        return
    ctx.ui.notify(done)
    if result.get("editor_text") is not None and not ctx.has_ui:
        ctx.ui.notify(f"the prompt you left: {_one_line(result['editor_text'])}")


def _tree_lines(ctx: Any) -> list[str]:
    entries = ctx.session.entries()
    on_path = {e["id"] for e in ctx.session.branch_entries()}
    leaf = ctx.session.leaf_id
    children: dict[Any, list[dict[str, Any]]] = {}
    ids = {e.get("id") for e in entries}
    for entry in entries:
        parent = entry.get("parentId")
        children.setdefault(parent if parent in ids else None, []).append(entry)
    lines: list[str] = []
    stack = [(entry, 0) for entry in reversed(children.get(None, []))]
    while stack:
        entry, depth = stack.pop()
        shown = entry.get("type") not in HIDDEN
        if shown:
            mark = "*" if entry["id"] in on_path else " "
            here = "  <- here" if entry["id"] == leaf else ""
            lines.append(f"{mark} {'  ' * depth}{entry['id']}  {preview(entry)}{here}")
        below = children.get(entry["id"], [])
        stack += [
            (child, depth + (1 if shown and len(below) > 1 else 0)) for child in reversed(below)
        ]
    return lines


async def _pick(ctx: Any, title: str, lines: list[str]) -> str | None:
    """The entry id of the line chosen in the mode's picker (None: cancelled)."""
    chosen = await ctx.ui.select(title, lines)
    return chosen.replace("*", " ").split()[0] if chosen else None


async def tree(args: str, ctx: Any) -> None:
    """``/tree [ID] [--summarize [FOCUS] | --summary TEXT]``: with --summarize the model
    summarises the branch left (FOCUS: what to stress), with --summary TEXT is it."""
    target, _, summary = args.partition("--summary")
    target, summarize, focus = target.partition("--summarize")
    target = target.strip()
    if not target:
        lines = _tree_lines(ctx)
        if not lines:
            ctx.ui.notify("the session is empty")
            return
        if ctx.has_ui:
            target = await _pick(ctx, "Move to an entry (* the current path)", lines)
            if target is None:
                return
            return await tree(f"{target} {args}", ctx)
        ctx.ui.notify(
            "session tree (* the current path; /tree ID moves there):\n" + "\n".join(lines)
        )
        return
    entry = _resolve(ctx, target)
    summary = summary.strip()
    if summary:
        from omp_sessions_command.plugin import SUMMARY_KEY

        ctx.state[SUMMARY_KEY] = summary
    try:
        result = await ctx.navigate_tree(
            entry["id"],
            summarize=bool(summary or summarize),
            instructions=focus.strip() or None,
        )
    finally:
        ctx.state.pop("omp_sessions_command.summary", None)
    done = f"moved to {entry['id']}: the conversation is now the path to it"
    leaf = ctx.session.get_entry(ctx.session.leaf_id) if ctx.session.leaf_id else None
    if (summary or summarize) and (leaf or {}).get("type") == "branch_summary":
        done += ", with a summary of the branch left"
    _report(ctx, result, done)


async def branch(args: str, ctx: Any) -> None:
    target = args.strip()
    if not target:
        prompts = [e for e in ctx.session.branch_entries() if _is_user(e)]
        if not prompts:
            ctx.ui.notify("no earlier prompts on this branch")
            return
        lines = [f"  {e['id']}  {preview(e)}" for e in prompts]
        if ctx.has_ui:
            target = await _pick(ctx, "Continue from before a prompt", lines[::-1])
            if target is None:
                return
            return await branch(target, ctx)
        ctx.ui.notify(
            "earlier prompts (/branch ID continues from before one):\n" + "\n".join(lines)
        )
        return
    entry = _resolve(ctx, target)
    if not _is_user(entry):
        raise OmpError(
            f"entry {entry['id']} is not a user message; /branch continues from a prompt"
        )
    parent = entry.get("parentId")
    result = await (ctx.branch(parent) if parent else ctx.navigate_tree(entry["id"]))
    if not result.get("cancelled") and parent and not ctx.has_ui:
        result = {**result, "editor_text": preview(entry).partition(": ")[2]}
    _report(ctx, result, f"branched before {entry['id']}; the next prompt continues from there")


async def fork(args: str, ctx: Any) -> None:
    target = args.strip()
    if target:
        entry = _resolve(ctx, target)
        position = "before" if _is_user(entry) else "at"
        entry_id = entry["id"]
    else:
        entry_id, position = ctx.session.leaf_id, "at"
        if entry_id is None:
            raise OmpError("nothing to fork: the session is empty")
    result = await ctx.fork(entry_id, position)
    where = ctx.session.path or "memory"
    _report(ctx, result, f"forked into {where}")


async def name(args: str, ctx: Any) -> None:
    if not args.strip():
        current = ctx.session.name
        ctx.ui.notify(
            f"session name: {current}"
            if current
            else "this session has no name; /name TEXT sets one"
        )
        return
    ctx.ui.notify(f"session named {ctx.set_session_name(args)!r}")


def _sessions_dir(ctx: Any) -> Path:
    from omp import sessions_dir

    return sessions_dir(ctx.api.agent_dir, ctx.cwd, ctx.settings.get("sessionDir"))


async def resume(args: str, ctx: Any) -> None:
    from omp import find_session, list_sessions

    from omp_sessions_command.command import format_row

    wanted = args.strip()
    directory = _sessions_dir(ctx)
    if not wanted:
        infos = list_sessions(directory, children=True)
        if not infos:
            ctx.ui.notify(f"no saved sessions for {ctx.cwd}")
            return
        lines = [format_row(info) for info in infos[:50]]
        ctx.ui.notify("sessions (/resume ID switches):\n" + "\n".join(lines))
        return
    try:
        path = find_session(directory, wanted)
    except OmpError:
        matching = list_sessions(directory, wanted)
        if len(matching) != 1:
            raise
        path = matching[0].path
    result = await ctx.switch_session(str(path))
    _report(ctx, result, f"resumed {path.name}")


async def export(args: str, ctx: Any) -> None:
    from omp_sessions_command.export import default_name, export_session

    source = ctx.session.path
    if source is None or not Path(source).exists():
        raise OmpError("nothing to export: this session is not saved to a file")
    given, force = _without_force(args.strip())
    given = given or default_name(Path(source))
    target = Path(ctx.cwd) / Path(given).expanduser()
    written = export_session(Path(source), target, ctx.api.secrets, force=force)
    ctx.ui.notify(f"exported to {written}")


def _without_force(text: str) -> tuple[str, bool]:
    """``FILE --force`` (or ``--force FILE``): the file name as typed, and the flag."""
    flag = "--force"
    if text == flag:
        return "", True
    if text.startswith(f"{flag} "):
        return text[len(flag) :].strip(), True
    if text.endswith(f" {flag}"):
        return text[: -len(flag)].strip(), True
    return text, False
