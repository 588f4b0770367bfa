"""MCP resources: listed in the system prompt, read through ``read`` as
``mcp://<server>/<resource uri>`` (the read tool asks the reader this plugin puts in
the session's ``omp-tool-read.schemes``)."""

from __future__ import annotations

import asyncio
from typing import Any

from omp import ToolResult

SCHEME = "mcp://"
READ_TIMEOUT_S = 60.0
LISTED = 50


def split_uri(uri: str) -> tuple[str, str]:
    """``mcp://server/demo://readme`` -> (``server``, ``demo://readme``)."""
    rest = uri.removeprefix(SCHEME)
    server, _, inner = rest.partition("/")
    if not server or not inner:
        raise ValueError(f"{uri} is not mcp://<server>/<resource uri>")
    return server, inner


def read_resource(manager: Any, uri: str) -> str | ToolResult:
    """Called by the read tool from its worker thread: the resource's text (paged by
    read like a file), or a ToolResult for images and errors."""
    from omp_mcp.results import resource_contents

    try:
        server, inner = split_uri(uri)
    except ValueError as exc:
        return ToolResult.error(str(exc))
    connection = manager.connections.get(server)
    if connection is None:
        known = ", ".join(sorted(manager.connections)) or "none"
        return ToolResult.error(f"Cannot read {uri}: no MCP server {server!r} (servers: {known})")
    future = asyncio.run_coroutine_threadsafe(connection.read_resource(inner), manager.loop)
    try:
        result = future.result(READ_TIMEOUT_S)
    except Exception as exc:
        return ToolResult.error(f"Cannot read {uri}: {connection.config.redact(str(exc))}")
    blocks = resource_contents(list(result.contents))
    if all(hasattr(b, "text") for b in blocks):
        return "\n".join(b.text for b in blocks)
    return ToolResult(blocks, {"path": uri})


def resources_section(manager: Any) -> str | None:
    """The system prompt's list of resources, or None when there are none."""
    lines = []
    for connection in manager.connections.values():
        for resource in connection.resources:
            about = f" - {resource.description}" if resource.description else ""
            lines.append(f"- {SCHEME}{connection.name}/{resource.uri}{about}")
    if not lines:
        return None
    more = f"\n(and {len(lines) - LISTED} more)" if len(lines) > LISTED else ""
    return (
        "MCP resources (read one with the read tool and its mcp:// path):\n"
        + "\n".join(lines[:LISTED])
        + more
    )
