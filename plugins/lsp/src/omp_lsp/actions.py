"""The lsp tool's actions by name, and the one place their failures become text."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from omp_lsp.actions_base import ActionError, Call
from omp_lsp.actions_diagnostics import diagnostics
from omp_lsp.actions_nav import hover, lookup, symbols
from omp_lsp.actions_refactor import code_actions, rename, rename_file
from omp_lsp.actions_server import capabilities, reload, request, status
from omp_lsp.rpc import LspError, LspTimeout

ACTIONS: dict[str, Callable[[Call], Awaitable[str]]] = {
    "status": status,
    "diagnostics": diagnostics,
    "definition": lookup,
    "type_definition": lookup,
    "implementation": lookup,
    "references": lookup,
    "hover": hover,
    "symbols": symbols,
    "rename": rename,
    "rename_file": rename_file,
    "code_actions": code_actions,
    "reload": reload,
    "capabilities": capabilities,
    "request": request,
}


async def run(params: Any, cwd: str, ctx: Any) -> tuple[str, bool]:
    """The text the model reads for one call, and whether the call succeeded."""
    from omp_lsp.manager import manager_for

    mgr = manager_for(ctx)
    if mgr is None:
        return "LSP is disabled in this session (--no-lsp or lsp.enabled false)", False
    call = Call(params, cwd, mgr)
    try:
        return await ACTIONS[params.action](call), True
    except ActionError as exc:
        return f"Error: {exc}", False
    except LspTimeout:
        return (
            f"LSP {params.action} timed out after {call.timeout:g}s; the server may still be "
            "indexing: try again or pass a larger timeout",
            False,
        )
    except LspError as exc:
        return f"LSP error: {exc}", False
