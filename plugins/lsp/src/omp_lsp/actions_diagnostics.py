"""The diagnostics action: one file, a glob, or ``*`` for every workspace file a
server covers (opened in its server, then the published diagnostics gathered)."""

from __future__ import annotations

import glob
import os
import time
from typing import Any

from omp import resolve_path

from omp_lsp.actions_base import ActionError, Call, workspace_files
from omp_lsp.actions_format import bounded, diagnostics_summary, format_diagnostic, sort_diagnostics

MAX_GLOB_TARGETS = 20
GLOB_CHARS = set("*?[{")


def _targets(call: Call) -> list[str]:
    name = call.params.file
    if not name:
        raise ActionError('file parameter required: a path, a glob, or "*" for the workspace')
    if name == "*":
        extensions = tuple(e for config in call.mgr.configs for e in config.extensions)
        return list(workspace_files(call.cwd, extensions))
    path = resolve_path(name, call.cwd)
    if os.path.isfile(path) or not GLOB_CHARS & set(name):
        if not os.path.isfile(path):
            raise ActionError(f"File not found: {name}")
        return [path]
    matches = sorted(p for p in glob.glob(path, recursive=True) if os.path.isfile(p))
    if not matches:
        raise ActionError(f"No files matched pattern: {name}")
    return matches[:MAX_GLOB_TARGETS]


async def diagnostics(call: Call) -> str:
    targets = _targets(call)
    pending: list[tuple[str, Any, int]] = []
    uncovered: list[str] = []
    for path in targets:
        clients = await call.mgr.clients_for(path)
        if not clients:
            uncovered.append(path)
        for client in clients:
            pending.append((path, client, client.publications(path)))
            await client.sync(path)
    if not pending:
        if call.params.file == "*":
            raise ActionError("No language server covers any file of this workspace")
        raise ActionError(f"No language server found for {call.rel(targets[0])}")
    deadline = time.monotonic() + call.timeout
    found: dict[str, list[dict[str, Any]]] = {}
    late: list[str] = []
    for path, client, seen in pending:
        left = max(0.5, deadline - time.monotonic())
        got = await client.wait_diagnostics(path, seen, left)
        if got is None:
            late.append(f"{call.rel(path)} ({client.name})")
            got = client.diagnostics(path)
        found.setdefault(path, []).extend(got)
    lines: list[str] = []
    every: list[dict[str, Any]] = []
    for path in targets:
        unique = sort_diagnostics(found.get(path, []))
        every.extend(unique)
        lines.extend(format_diagnostic(d, call.rel(path)) for d in unique)
    notes = [f"no language server for {call.rel(p)}" for p in uncovered]
    if late:
        notes.append("diagnostics not ready in time for: " + ", ".join(late))
    tail = "".join(f"\nnote: {n}" for n in notes)
    if not every:
        return f"OK: no issues in {_scope(call, targets)}{tail}"
    body = "\n".join(bounded(lines, call.limit, "diagnostic(s)", indent=""))
    return f"{diagnostics_summary(every)} in {_scope(call, targets)}:\n{body}{tail}"


def _scope(call: Call, targets: list[str]) -> str:
    if len(targets) == 1 and call.params.file != "*":
        return call.rel(targets[0])
    return f"{len(targets)} file(s)"
