"""After ``write``/``edit``: sync the file to its servers and tell the model which errors
and warnings appeared or changed, within ``lsp.diagnosticsBudgetMs``. The write itself
has happened already; nothing here can fail it (a late server is only mentioned)."""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from pathlib import Path
from typing import Any

from omp_lsp.client import LspClient
from omp_lsp.manager import LspManager
from omp_lsp.rpc import LspError

SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}
MAX_SHOWN = 20


def _key(d: dict[str, Any]) -> tuple[Any, ...]:
    """What makes a diagnostic 'the same' across an edit: not its position, which moves."""
    return (d.get("severity"), d.get("source"), str(d.get("code")), d.get("message"))


def format_diagnostic(d: dict[str, Any], shown_path: str) -> str:
    start = d.get("range", {}).get("start", {})
    severity = SEVERITY.get(d.get("severity") or 1, "error")
    source = f"[{d['source']}] " if d.get("source") else ""
    code = f" ({d['code']})" if d.get("code") else ""
    message = str(d.get("message", "")).strip().replace("\n", " ")
    line, col = start.get("line", 0) + 1, start.get("character", 0) + 1
    return f"{shown_path}:{line}:{col} [{severity}] {source}{message}{code}"


def new_problems(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Errors and warnings in ``after`` that ``before`` did not have (as a multiset)."""
    seen = Counter(_key(d) for d in before)
    fresh = []
    for d in after:
        if (d.get("severity") or 1) > 2:
            continue
        if seen[_key(d)] > 0:
            seen[_key(d)] -= 1
        else:
            fresh.append(d)
    return sorted(fresh, key=lambda d: (d["range"]["start"]["line"], d.get("severity") or 1))


async def _one(
    client: LspClient, path: Path, text: str, budget_end: float
) -> tuple[str, list[dict[str, Any]], int] | str:
    before = client.diagnostics(path) if client.is_open(path) else []
    seen = client.publications(path)
    await client.sync(path, text)
    await client.save(path, text)
    remaining = budget_end - asyncio.get_running_loop().time()
    after = await client.wait_diagnostics(path, seen, remaining)
    if after is None:
        return f"{client.name}: diagnostics not ready"
    serious = [d for d in before if (d.get("severity") or 1) <= 2]
    resolved = sum((Counter(map(_key, serious)) - Counter(map(_key, after))).values())
    return client.name, new_problems(before, after), resolved


async def diagnostics_note(
    manager: LspManager, path: Path, budget: float, format_on_write: bool = False
) -> str | None:
    """The text to append to the tool result, or None when nothing is worth saying."""
    if not manager.configs_for(path) or not path.is_file():
        return None
    loop = asyncio.get_running_loop()
    end = loop.time() + budget
    clients = await manager.clients_for(path, timeout=budget)
    shown = os.path.relpath(path, manager.cwd)
    lines: list[str] = []
    failures = manager.failures()
    for config in manager.configs_for(path):
        if config.name in failures and config.name not in manager.reported:
            manager.reported.add(config.name)
            lines.append(f"LSP server {config.name} {failures[config.name]}")
    if not clients:
        if not lines and not any(c.name in failures for c in manager.configs_for(path)):
            lines.append(f"LSP diagnostics not ready within {budget * 1000:.0f}ms")
        return "\n".join(lines) or None
    text = path.read_text(encoding="utf-8", errors="replace")
    if format_on_write:
        from omp_lsp.formatting import format_file

        text = await format_file(clients[0], path, text, end - loop.time())
    results = await asyncio.gather(
        *(_one(c, path, text, end) for c in clients), return_exceptions=True
    )
    problems: list[str] = []
    resolved = 0
    for outcome in results:
        if isinstance(outcome, LspError | OSError):
            lines.append(f"LSP: {outcome}")
        elif isinstance(outcome, BaseException):
            raise outcome
        elif isinstance(outcome, str):
            lines.append(f"LSP {outcome} within {budget * 1000:.0f}ms")
        else:
            _, fresh, fixed = outcome
            resolved += fixed
            problems.extend(format_diagnostic(d, shown) for d in fresh)
    problems = list(dict.fromkeys(problems))
    if problems:
        more = len(problems) - MAX_SHOWN
        lines.append("LSP diagnostics (new or changed):")
        lines.extend(problems[:MAX_SHOWN])
        if more > 0:
            lines.append(f"... {more} more")
    elif resolved:
        lines.append(f"LSP: {resolved} diagnostic(s) resolved; no new errors or warnings")
    return "\n".join(lines) or None
