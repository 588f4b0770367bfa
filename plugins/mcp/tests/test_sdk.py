"""The SDK's import in its own thread (omp_mcp.sdk), in a fresh interpreter where it is
not imported yet."""

from __future__ import annotations

import subprocess
import sys

CANCEL_THEN_WAIT = """
import asyncio, sys
from omp_mcp.sdk import sdk_loaded

async def main():
    first = asyncio.ensure_future(sdk_loaded())
    await asyncio.sleep(0.01)
    first.cancel()  # a session that ended while the SDK was still loading
    try:
        await first
    except asyncio.CancelledError:
        pass
    assert "mcp.client.stdio" not in sys.modules, "the SDK loaded too fast to test this"
    await asyncio.wait_for(sdk_loaded(), 60)  # the next session's servers
    print("loaded", "mcp.client.stdio" in sys.modules)

asyncio.run(main())
"""


def test_a_cancelled_wait_does_not_break_the_next_one() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", CANCEL_THEN_WAIT], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "loaded True"
    assert proc.stderr == ""
