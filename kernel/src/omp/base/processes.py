"""The process groups that tools started and that are still running.

A tool that starts a process in its own group (``start_new_session=True``) tracks the
group here while it runs, so that when omp itself is told to stop (SIGTERM, SIGHUP, a
second Ctrl+C) every group is killed at once, even if the event loop is stuck. Groups
still tracked when the interpreter exits are killed then: a worker left to a thread
omp no longer waits for (``omp.base.threads``) never outlives omp.
"""

from __future__ import annotations

import atexit
import os
import signal
import threading

_groups: set[int] = set()
_lock = threading.Lock()


def track_group(pgid: int) -> None:
    """Track process group ``pgid`` (a tool's process started in its own session)."""
    with _lock:
        _groups.add(pgid)


def untrack_group(pgid: int) -> None:
    """Forget a process group started with ``track_group`` (it has ended)."""
    with _lock:
        _groups.discard(pgid)


def running_groups() -> list[int]:
    """The tracked process groups, sorted: those omp kills when it is told to stop."""
    with _lock:
        return sorted(_groups)


def kill_groups(sig: int = signal.SIGKILL) -> list[int]:
    """Send ``sig`` to every tracked group (safe from a signal handler); the groups."""
    groups = list(_groups)
    for pgid in groups:
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            pass
    return groups


atexit.register(kill_groups)
