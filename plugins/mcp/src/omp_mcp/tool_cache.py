"""The tools each server offered when it last connected, kept between sessions (as omp
keeps them), so that a server still starting when the startup gate closes is offered
from the first request on: its tools are registered from here, a call to one waits for
the server, and its live list replaces them when it joins.

One file a server under ``<agent dir>/cache/mcp-tools/``, written whole (a temporary
file renamed over it) and readable by the user only. An entry counts only for the same
server configuration (a hash of it, with values taken from the environment hashed as
their ``${VAR}``, so no secret reaches the file even hashed), for 30 days, and never
when empty: a server that listed no tools is asked again rather than believed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omp import replacing

from omp_mcp.config import ServerConfig

VERSION = 1
TTL_S = 30 * 24 * 3600
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(frozen=True)
class CachedTool:
    """What ``McpTool`` reads of a server's tool (``of``: from the SDK's ``Tool``)."""

    name: str
    description: str | None = None
    input_schema: Any = None
    title: str | None = None

    @classmethod
    def of(cls, remote: Any) -> CachedTool:
        annotations = getattr(remote, "annotations", None)
        title = getattr(remote, "title", None) or getattr(annotations, "title", None)
        return cls(remote.name, remote.description, remote.input_schema, title)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
            "title": self.title,
        }


def config_key(config: ServerConfig) -> str:
    """A hash of what the server is (how it is reached and started); values taken from
    the environment enter it as their ``${VAR}``."""
    redact = config.redact
    identity = {
        "transport": config.transport,
        "command": redact(config.command),
        "args": [redact(a) for a in config.args],
        "env": {k: redact(v) for k, v in config.env.items()},
        "cwd": config.cwd,
        "url": redact(config.url),
        "headers": {k: redact(v) for k, v in config.headers.items()},
    }
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ToolCache:
    def __init__(self, agent_dir: Path) -> None:
        self.folder = agent_dir / "cache" / "mcp-tools"

    def _path(self, name: str) -> Path:
        digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
        return self.folder / f"{_UNSAFE.sub('_', name)[:48]}-{digest}.json"

    def get(self, config: ServerConfig) -> list[CachedTool] | None:
        """The server's tools as last listed for this configuration, or None."""
        try:
            data = json.loads(self._path(config.name).read_text(encoding="utf-8"))
            if (
                data.get("version") != VERSION
                or data.get("key") != config_key(config)
                or time.time() - float(data.get("saved", 0)) > TTL_S
            ):
                return None
            tools = [
                CachedTool(
                    str(t["name"]), t.get("description"), t.get("inputSchema"), t.get("title")
                )
                for t in data.get("tools", [])
            ]
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None  # missing, unreadable or not ours: the server is simply waited for
        return tools or None

    def put(self, config: ServerConfig, remote_tools: list[Any]) -> None:
        """Keep what the server listed; an empty list removes the entry. A failed write
        only costs the next session its head start."""
        path = self._path(config.name)
        tools = [CachedTool.of(t).to_json() for t in remote_tools]
        if not tools:
            with contextlib.suppress(OSError):
                path.unlink()
            return
        key = config_key(config)
        with contextlib.suppress(OSError, ValueError):
            old = json.loads(path.read_text(encoding="utf-8"))
            fresh = time.time() - float(old.get("saved", 0)) < TTL_S / 2
            if fresh and old.get("key") == key and old.get("tools") == tools:
                return  # unchanged: no write on every start
        entry = {"version": VERSION, "key": key, "saved": time.time(), "tools": tools}
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            text = json.dumps(entry)
            with replacing(path, mode=0o600, durable=False) as out:
                out.write(text.encode("utf-8"))
        except (OSError, TypeError, ValueError):
            return
