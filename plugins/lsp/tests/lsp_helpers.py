"""Helpers for the lsp plugin's tests (a unique module name: ``conftest`` clashes when
several test folders run together): settings, server pids seen during a run, and a check
that no server process (nor its group) is left."""

from __future__ import annotations

import json
import os
from typing import Any

import omp


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class PidSpy:
    """A test plugin: after each tool result, the pids of the session's running servers."""

    def __init__(self) -> None:
        self.pids: list[int] = []

    @omp.hookimpl(trylast=True)
    def omp_tool_result(self, event: Any, ctx: Any) -> None:
        manager = ctx.state.get("omp-lsp")
        if manager is not None:
            self.pids.extend(c.pid for c in manager.running() if c.pid not in self.pids)


def configure(harness: Any, lsp: dict[str, Any], servers: dict[str, Any] | None = None) -> None:
    (harness.agent_dir / "settings.json").write_text(json.dumps({"lsp": lsp}))
    if servers is not None:
        (harness.agent_dir / "lsp.json").write_text(json.dumps({"servers": servers}))


def texts(events: Any, tool: str) -> list[str]:
    return [
        "\n".join(block.text for block in e.result["content"])
        for e in events.of("tool_execution_end")
        if e.tool_name == tool
    ]
