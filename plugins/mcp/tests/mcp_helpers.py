"""Helpers for the MCP plugin's tests (imported by name: the test folder is on sys.path)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import isolation

DEMO = Path(__file__).with_name("demo_server.py")
DEMO_TOOLS = 12
"""How many tools demo_server.py has of its own (before ``--tools N``)."""


def stdio_server(*extra: str, **more: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(DEMO), "stdio", *extra], **more}


def configure(agent_dir: Path, servers: dict[str, Any], **settings: Any) -> None:
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    if settings:
        (agent_dir / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def tool_results(events: Any) -> dict[str, list[Any]]:
    """The results by tool name: each a dict with content (list) and details."""
    found: dict[str, list[Any]] = {}
    for event in events.of("tool_execution_end"):
        found.setdefault(event.tool_name, []).append(event)
    return found


def text_of(event: Any) -> str:
    content = event.result["content"]
    return "".join(getattr(b, "text", "") for b in content)


def run_omp(
    root: Path, *args: str, timeout: float = 60, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``omp *args`` in a private environment under ``root`` (work/, agent/, home/)."""
    return isolation.run_omp(root, *args, env=env, timeout=timeout, stdin=subprocess.DEVNULL)


def wait_for_port(port: int, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
