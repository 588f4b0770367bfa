"""Servers given to one session rather than read from a config file: the seam another
plugin (an ACP editor's ``session/new``, an embedder) uses to add MCP servers.

Before the session starts, put a list of entries under ``ctx.state`` (the session's
``plugin_state``) at :data:`SESSION_SERVERS_KEY`::

    session.plugin_state[SESSION_SERVERS_KEY] = [
        {"name": "db", "command": "db-mcp", "args": ["--ro"], "env": {"TOKEN": "..."}},
        {"name": "docs", "type": "http", "url": "https://...", "headers": {"A": "b"}},
    ]

Each entry is a ``.mcp.json`` server entry plus its ``name``; ACP's ``McpServer``
shapes (``env`` and ``headers`` as lists of ``{"name", "value"}``) are accepted as
they are. When the session starts the MCP plugin takes the list (the key is removed, so
a caller that finds it still there after ``start()`` knows no MCP plugin took it) and
connects the servers like configured ones. Servers passed explicitly are the user's own
choice: they start in untrusted directories too, win over a configured server of the
same name, and ``disabledServers`` does not apply to them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from omp_mcp.config import ServerConfig, normalise

SESSION_SERVERS_KEY = "omp-mcp.session-servers"
SOURCE = "this session (passed by the client)"


def take_session_servers(state: dict[str, Any]) -> tuple[list[ServerConfig], list[str]]:
    """The servers queued in ``state`` (removed from it), normalised, and a warning for
    each entry that is not a server."""
    entries = state.pop(SESSION_SERVERS_KEY, None) or []
    servers: dict[str, ServerConfig] = {}
    warnings: list[str] = []
    for index, raw in enumerate(entries):
        name = raw.get("name") if isinstance(raw, Mapping) else None
        if not isinstance(name, str) or not name:
            warnings.append(f"session server #{index + 1} has no name; not started")
            continue
        if name not in servers:
            servers[name] = normalise(name, raw, "mcpServers", SOURCE, os.environ)
    return list(servers.values()), warnings
