"""The mcp SDK, loaded off the event loop: its import takes 0.3-1.5 s, which would hold
the first prompt past the startup gate."""

from __future__ import annotations

import asyncio
import concurrent.futures
import sys
import threading

SDK_MODULES = (
    "mcp",
    "mcp.client.stdio",
    "mcp.client.sse",
    "mcp.client.streamable_http",
    "mcp.client.auth",
)
IMPORT_SWITCH_INTERVAL_S = 0.0005
_sdk_lock = threading.Lock()
_sdk_import: concurrent.futures.Future[None] | None = None


async def sdk_loaded() -> None:
    """Import the SDK in one worker thread: its import (0.3-1.5 s) must not hold the
    event loop, and with it the first prompt, past the startup gate. One thread for
    every connection, so no two threads import the same half-loaded modules."""
    global _sdk_import
    if all(name in sys.modules for name in SDK_MODULES):
        return
    with _sdk_lock:
        if _sdk_import is None:
            _sdk_import = concurrent.futures.Future()
            # Running: a waiter's cancellation (its session ended) cannot cancel it for
            # the waiters of the next session.
            _sdk_import.set_running_or_notify_cancel()
            threading.Thread(
                target=_import_sdk, args=(_sdk_import,), name="omp-mcp-import", daemon=True
            ).start()
        work = _sdk_import
    await asyncio.wrap_future(work)


def _import_sdk(outcome: concurrent.futures.Future[None]) -> None:
    import importlib

    # While this thread imports, the event loop gives up the GIL at every select() and
    # then waits a whole switch interval (5 ms) to get it back: shorter turns keep the
    # session's startup from crawling behind the import.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(min(interval, IMPORT_SWITCH_INTERVAL_S))
    try:
        for name in SDK_MODULES:
            importlib.import_module(name)
    except BaseException as exc:  # reported by every connection waiting for it
        outcome.set_exception(exc)
    else:
        outcome.set_result(None)
    finally:
        sys.setswitchinterval(interval)
