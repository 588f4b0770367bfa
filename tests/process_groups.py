"""Waiting for a process group to end, for tests that check nothing outlives omp."""

from __future__ import annotations

import os
import time


def group_gone(pgid: int, seconds: float = 5) -> bool:
    """Whether process group ``pgid`` has no process left within ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False
