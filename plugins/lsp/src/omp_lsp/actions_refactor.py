"""Actions that change files: rename, rename_file and code_actions (list or apply one).

Edits go through ``actions_edits.apply_workspace_edit``: all files or none.
"""

from __future__ import annotations

import os
from typing import Any

from omp import resolve_path

from omp_lsp.actions_base import ActionError, Call
from omp_lsp.actions_edits import (
    EditError,
    apply_workspace_edit,
    summarize,
    text_edits_by_path,
)
from omp_lsp.actions_format import bounded, format_code_action
from omp_lsp.positions import file_of
from omp_lsp.rpc import LspError
from omp_lsp.uris import path_to_uri

MAX_RENAME_FILES = 1000
METHOD_NOT_FOUND = -32601
DIAGNOSTICS_WAIT = 5.0


async def rename(call: Call) -> str:
    if not call.params.new_name:
        raise ActionError("new_name parameter required for rename")
    path = call.file()
    position = call.position(path)
    client = await call.client(path, "renameProvider")
    edit = await call.project_request(
        client,
        "textDocument/rename",
        {
            "textDocument": {"uri": path_to_uri(path)},
            "position": position,
            "newName": call.params.new_name,
        },
    )
    if not edit:
        return "Rename returned no edits"
    if call.params.apply is False:
        return "Rename preview:\n" + "\n".join(f"  {line}" for line in summarize(edit, call.cwd))
    applied = _apply(edit, call.cwd)
    await call.resync(list(text_edits_by_path(edit)))
    return "Applied rename:\n" + "\n".join(f"  {line}" for line in applied)


def _apply(edit: dict[str, Any], cwd: str, then_move: tuple[str, str] | None = None) -> list[str]:
    try:
        return apply_workspace_edit(edit, cwd, then_move)
    except EditError as exc:
        raise ActionError(f"Nothing was changed: {exc}") from None


def _rename_pairs(source: str, dest: str) -> list[dict[str, str]]:
    if not os.path.isdir(source):
        return [{"oldUri": path_to_uri(source), "newUri": path_to_uri(dest)}]
    pairs = []
    for root, _dirs, files in os.walk(source):
        for name in sorted(files):
            old = os.path.join(root, name)
            new = os.path.join(dest, os.path.relpath(old, source))
            pairs.append({"oldUri": path_to_uri(old), "newUri": path_to_uri(new)})
            if len(pairs) > MAX_RENAME_FILES:
                raise ActionError(
                    f"directory holds more than {MAX_RENAME_FILES} files; rename in smaller parts"
                )
    return pairs


async def rename_file(call: Call) -> str:
    if not call.params.file or not call.params.new_name:
        raise ActionError("rename_file requires file (source) and new_name (destination path)")
    source = resolve_path(call.params.file, call.cwd)
    dest = resolve_path(call.params.new_name, call.cwd)
    if source == dest:
        raise ActionError("source and destination paths are identical")
    if not os.path.exists(source):
        raise ActionError(f"source path does not exist: {call.rel(source)}")
    if os.path.lexists(dest):
        raise ActionError(f"destination already exists: {call.rel(dest)}")
    pairs = _rename_pairs(source, dest)
    clients: dict[int, Any] = {}
    for path in [file_of(p["oldUri"]) for p in pairs]:
        for client in await call.mgr.clients_for(path):
            clients.setdefault(id(client), client)

    merged: dict[str, list[dict[str, Any]]] = {}
    notes: list[str] = []
    failed: list[str] = []
    for client in clients.values():
        try:
            edit = await call.project_request(client, "workspace/willRenameFiles", {"files": pairs})
        except LspError as exc:
            if exc.code != METHOD_NOT_FOUND:
                failed.append(client.name)
                notes.append(f"  {client.name}: {exc}")
            continue
        for path, edits in text_edits_by_path(edit or {}).items():
            merged.setdefault(path_to_uri(path), []).extend(edits)

    label = call.rel(source) + (f" ({len(pairs)} files)" if os.path.isdir(source) else "")
    edit = {"changes": merged}
    if call.params.apply is False:
        lines = summarize(edit, call.cwd) or ["No language server edits would be applied"]
        body = [f"  {line}" for line in lines] + (["  Server notes:", *notes] if notes else [])
        return f"Rename preview: {label} → {call.rel(dest)}\n" + "\n".join(body)
    if failed:
        raise ActionError(
            f"workspace/willRenameFiles failed on {', '.join(failed)}; no files were moved"
        )
    applied = _apply(edit, call.cwd, then_move=(source, dest))
    for client in clients.values():
        for pair in pairs:
            await client.close_document(file_of(pair["oldUri"]))
        client.notify("workspace/didRenameFiles", {"files": pairs})
    await call.resync([p for p in text_edits_by_path(edit) if os.path.isfile(p)])
    lines = [f"  {line}" for line in applied]
    if not merged:
        names = ", ".join(c.name for c in clients.values()) or "no server"
        lines.append(f"  note: {names} offered no reference updates; check importers by hand")
    return f"Renamed {label} → {call.rel(dest)}\n" + "\n".join(lines + notes)


async def code_actions(call: Call) -> str:
    path = call.file()
    position = call.position(path)
    client = await call.client(path, "codeActionProvider", sync=False)
    # Quick fixes answer the diagnostics the request carries: those of the text on disk.
    current = await call.fresh_diagnostics(client, path, min(call.timeout, DIAGNOSTICS_WAIT))
    line = position["line"]
    diagnostics = [
        d
        for d in (client.diagnostics(path) if current is None else current)
        if d["range"]["start"]["line"] <= line <= d["range"]["end"]["line"]
    ]
    query = (call.params.query or "").strip()
    context: dict[str, Any] = {"diagnostics": diagnostics, "triggerKind": 1}
    if query and not call.params.apply:
        context["only"] = [query]
    result = await call.request(
        client,
        "textDocument/codeAction",
        {
            "textDocument": {"uri": path_to_uri(path)},
            "range": {"start": position, "end": position},
            "context": context,
        },
    )
    if not result:
        return "No code actions available"
    listing = [f"  {format_code_action(a, i)}" for i, a in enumerate(result)]
    if not call.params.apply:
        body = "\n".join(bounded(listing, call.limit, "action(s)"))
        return f"{len(result)} code action(s):\n{body}"
    if not query:
        raise ActionError("query (index or title) required to apply a code action")
    chosen = _choose(result, query)
    if chosen is None:
        return f'No code action matches "{query}". Available actions:\n' + "\n".join(listing)
    return await _apply_action(call, client, chosen)


def _choose(actions: list[dict[str, Any]], query: str) -> dict[str, Any] | None:
    if query.isdigit():
        index = int(query)
        return actions[index] if index < len(actions) else None
    needle = query.lower()
    return next((a for a in actions if needle in str(a.get("title", "")).lower()), None)


async def _apply_action(call: Call, client: Any, action: dict[str, Any]) -> str:
    title = action.get("title", "")
    command = action if isinstance(action.get("command"), str) else action.get("command")
    resolvable = client.capabilities.get("codeActionProvider")
    can_resolve = isinstance(resolvable, dict) and resolvable.get("resolveProvider")
    if "edit" not in action and command is not action and can_resolve:
        action = await call.request(client, "codeAction/resolve", action) or action
    lines: list[str] = []
    if action.get("edit"):
        lines += ["  Workspace edit:", *(f"    {x}" for x in _apply(action["edit"], call.cwd))]
        await call.resync(list(text_edits_by_path(action["edit"])))
    if isinstance(command, dict):
        lines += await _execute(call, client, command)
    if not lines:
        return f'Action "{title}" has no workspace edit or command to apply'
    return f'Applied "{title}":\n' + "\n".join(lines)


async def _execute(call: Call, client: Any, command: dict[str, Any]) -> list[str]:
    """Run a server command, applying the edits it sends back (workspace/applyEdit)."""
    applied: list[str] = []

    async def on_apply_edit(params: dict[str, Any]) -> bool:
        try:
            applied.extend(apply_workspace_edit(params["edit"], call.cwd))
        except EditError:
            return False
        await call.resync(list(text_edits_by_path(params["edit"])))
        return True

    previous, client.on_apply_edit = client.on_apply_edit, on_apply_edit
    try:
        await call.request(
            client,
            "workspace/executeCommand",
            {"command": command["command"], "arguments": command.get("arguments") or []},
        )
    finally:
        client.on_apply_edit = previous
    return ["  Executed command(s):", f"    {command['command']}", *(f"    {a}" for a in applied)]
