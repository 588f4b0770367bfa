"""Actions about the servers themselves: status, reload, capabilities and request."""

from __future__ import annotations

import json
from typing import Any

from omp_lsp.actions_base import ActionError, Call
from omp_lsp.actions_format import bounded
from omp_lsp.rpc import LspError
from omp_lsp.uris import path_to_uri


async def status(call: Call) -> str:
    if not call.mgr.configs:
        return "No language servers configured for this project"
    lines = ["Language servers:", *(f"  {line}" for line in call.mgr.status_lines())]
    return "\n".join(lines)


async def reload(call: Call) -> str:
    names = sorted({c.name for c in call.mgr.running()})
    await call.mgr.restart_all()
    if not names:
        return "No language server was running; they start on the next request"
    return f"Restarted {', '.join(names)}: they start again on the next request"


async def _clients(call: Call) -> list[Any]:
    if call.params.file and call.params.file != "*":
        return [await call.client(call.file())]
    clients = await call.workspace_clients()
    if not clients:
        raise ActionError("No language server found for this workspace")
    return clients


async def capabilities(call: Call) -> str:
    sections: list[str] = []
    for client in await _clients(call):
        text = json.dumps(client.capabilities, indent=2, sort_keys=True).splitlines()
        sections.append(f"{client.name}:")
        sections.extend(bounded([f"  {t}" for t in text], call.limit * 4, "line(s)"))
    return "\n".join(sections)


async def request(call: Call) -> str:
    method = (call.params.query or "").strip()
    if not method:
        raise ActionError("request needs query: the LSP method name (e.g. textDocument/hover)")
    client = (await _clients(call))[0]
    params: Any
    if call.params.payload is not None:
        try:
            params = json.loads(call.params.payload)
        except json.JSONDecodeError as exc:
            raise ActionError(f"invalid JSON in payload: {exc}") from None
    elif call.params.file and call.params.file != "*":
        path = call.file()
        params = {"textDocument": {"uri": path_to_uri(path)}}
        if call.params.line is not None:
            params["position"] = call.position(path)
    else:
        params = {}
    try:
        result = await call.request(client, method, params)
    except LspError as exc:
        preview = json.dumps(params)
        preview = preview if len(preview) <= 400 else preview[:397] + "..."
        raise ActionError(
            f"LSP error from {client.name} on {method}: {exc} (params: {preview})"
        ) from None
    text = result if isinstance(result, str) else json.dumps(result, indent=2)
    lines = bounded(str(text).splitlines(), call.limit * 4, "line(s)", indent="")
    return f"{client.name} ← {method}:\n" + "\n".join(lines)
