"""Each stdio server's process group recorded in ``omp.processes`` as the SDK spawns it
(the SDK starts the server in a new session but does not hand out the process), so
that when omp is told to stop the group dies with it."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

spawned: contextvars.ContextVar[Callable[[int], None] | None] = contextvars.ContextVar(
    "omp_mcp_spawned", default=None
)
"""Called with the pid of a server spawned in this context (the connection's task)."""


def track_spawned_groups() -> None:
    """Record each stdio server's process group as the SDK spawns it (the SDK starts it
    in a new session but does not expose the process)."""
    from mcp.client import stdio

    original = stdio._create_platform_compatible_process
    if getattr(original, "omp_tracked", False):
        return

    async def spawn(*args: Any, **kwargs: Any) -> Any:
        process = await original(*args, **kwargs)
        callback = spawned.get()
        if callback is not None:
            callback(process.pid)
        return process

    spawn.omp_tracked = True  # type: ignore[attr-defined]
    stdio._create_platform_compatible_process = spawn
