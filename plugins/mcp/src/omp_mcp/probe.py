"""``omp mcp test NAME``: connect to one server, list what it offers and what its
tools cost in tokens on every request, or say why it failed (with its stderr tail).
The tools it lists are kept (``tool_cache``), so the next session offers them even
if the server is slow to start."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from omp_mcp.config import ServerConfig


def probe(config: ServerConfig, settings: Any, agent_dir: Path) -> int:
    return asyncio.run(_probe(config, settings, agent_dir))


async def _probe(config: ServerConfig, settings: Any, agent_dir: Path) -> int:
    from omp import count_tokens

    from omp_mcp.connection import Connection
    from omp_mcp.oauth import stored_provider
    from omp_mcp.tool_cache import ToolCache
    from omp_mcp.tools import sanitize_input_schema, tool_name

    timeout = settings.get("mcp.timeoutMs", 60000) / 1000
    auth = stored_provider(config, agent_dir) if config.transport != "stdio" else None
    connection = Connection(config, request_timeout=timeout, startup_timeout=timeout, auth=auth)
    connection.start()
    try:
        ready = await connection.wait_ready(timeout + 5)
        if not ready:
            error = connection.error or f"no answer within {timeout:g} s"
            print(f"omp: MCP server {config.name} failed: {error}")
            return 1
        ToolCache(agent_dir).put(config, connection.tools)
        total = 0
        print(f"{config.name}: connected ({config.transport}: {config.describe()})")
        print(f"tools ({len(connection.tools)}):")
        for tool in connection.tools:
            spec = {
                "name": tool_name(config.name, tool.name),
                "description": tool.description or "",
                "parameters": sanitize_input_schema(tool.input_schema),
            }
            tokens = count_tokens(json.dumps(spec, separators=(",", ":")))
            total += tokens
            print(f"  {spec['name']}  {tokens} tokens")
        print(f"total: {total} tokens per request when every tool is offered")
        if connection.resources:
            print(f"resources ({len(connection.resources)}):")
            for resource in connection.resources:
                print(f"  mcp://{config.name}/{resource.uri}")
        if connection.prompts:
            print(f"prompts ({len(connection.prompts)}):")
            for prompt in connection.prompts:
                print(f"  /{tool_name(config.name, prompt.name)}")
        return 0
    finally:
        await connection.close()
