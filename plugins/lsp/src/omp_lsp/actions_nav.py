"""Navigation actions: definition, type_definition, implementation, references, hover
and symbols (a file's, or the workspace's matching ``query``)."""

from __future__ import annotations

from typing import Any

from omp_lsp.actions_base import ActionError, Call
from omp_lsp.actions_format import (
    bounded,
    format_document_symbols,
    format_workspace_symbol,
    hover_text,
    with_context,
)
from omp_lsp.positions import locations
from omp_lsp.uris import path_to_uri

# action -> (LSP method, server capability, what the output calls one result)
LOOKUPS = {
    "definition": ("textDocument/definition", "definitionProvider", "definition"),
    "type_definition": (
        "textDocument/typeDefinition",
        "typeDefinitionProvider",
        "type definition",
    ),
    "implementation": ("textDocument/implementation", "implementationProvider", "implementation"),
    "references": ("textDocument/references", "referencesProvider", "reference"),
}


async def lookup(call: Call) -> str:
    method, provider, noun = LOOKUPS[call.params.action]
    path = call.file()
    position = call.position(path)
    client = await call.client(path, provider)
    params: dict[str, Any] = {"textDocument": {"uri": path_to_uri(path)}, "position": position}
    if call.params.action == "references":
        params["context"] = {"includeDeclaration": True}
    ask = call.project_request if call.params.action == "references" else call.request
    found = locations(await ask(client, method, params))
    if not found:
        return f"No {noun}s found" if noun == "reference" else f"No {noun} found"
    lines = with_context(found, call.cwd, call.limit, f"{noun}(s)")
    return f"Found {len(found)} {noun}(s):\n" + "\n".join(lines)


async def hover(call: Call) -> str:
    path = call.file()
    position = call.position(path)
    client = await call.client(path, "hoverProvider")
    uri = path_to_uri(path)
    result = await call.request(
        client, "textDocument/hover", {"textDocument": {"uri": uri}, "position": position}
    )
    if not result or not result.get("contents"):
        return "No hover information"
    return hover_text(result["contents"]).strip() or "No hover information"


async def symbols(call: Call) -> str:
    if call.params.file and call.params.file != "*":
        return await _document_symbols(call)
    query = (call.params.query or "").strip()
    if not query:
        raise ActionError("query parameter required for workspace symbol search")
    clients = await call.workspace_clients()
    if not clients:
        raise ActionError("No language server found for this workspace")
    found: list[dict[str, Any]] = []
    failures: list[str] = []
    for client in clients:
        if not client.supports("workspaceSymbolProvider"):
            continue
        try:
            answer = await call.project_request(client, "workspace/symbol", {"query": query})
            found.extend(answer or [])
        except Exception as exc:  # one server failing leaves the others' answers
            failures.append(f"  {client.name}: {exc}")
    needle = query.lower()
    unique: dict[tuple[Any, ...], dict[str, Any]] = {}
    for s in found:
        loc = s.get("location") or {}
        if needle not in f"{s.get('name', '')} {s.get('containerName') or ''}".lower():
            continue
        start = (loc.get("range") or {}).get("start", {})
        key = (s.get("name"), s.get("kind"), loc.get("uri"), start.get("line"))
        unique.setdefault(key, s)
    failed = ("\nServer failures:\n" + "\n".join(failures)) if failures else ""
    if not unique:
        return f'No symbols matching "{query}"{failed}'
    lines = [f"  {format_workspace_symbol(s, call.cwd)}" for s in unique.values()]
    body = "\n".join(bounded(lines, call.limit, "symbol(s)"))
    return f'Found {len(unique)} symbol(s) matching "{query}":\n{body}{failed}'


async def _document_symbols(call: Call) -> str:
    path = call.file()
    client = await call.client(path, "documentSymbolProvider")
    result = await call.request(
        client, "textDocument/documentSymbol", {"textDocument": {"uri": path_to_uri(path)}}
    )
    if not result:
        return "No symbols found"
    lines = bounded(format_document_symbols(result), call.limit, "symbol(s)", indent="")
    return f"Symbols in {call.rel(path)}:\n" + "\n".join(lines)
