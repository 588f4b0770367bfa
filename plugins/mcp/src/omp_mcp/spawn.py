"""Stdio servers' processes: each one's group recorded in ``omp.base.processes`` as the SDK
spawns it (the SDK starts the server in a new session but does not hand out the
process), so that when omp is told to stop the group dies with it; ended at once when
the session ends before the server answered; checked for having exited between calls."""

from __future__ import annotations

import contextvars
import os
import signal
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


def kill_group(pid: int | None) -> None:
    """End a server's process group (SIGTERM), if it is still there."""
    if pid is None:
        return
    try:
        os.killpg(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass


def has_exited(pid: int | None) -> bool:
    """Whether a server's process has ended (and been reaped)."""
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
