"""Fixtures shared by every test folder."""

from __future__ import annotations

import pytest
from replay import ReplayServer


@pytest.fixture
def replay_server():
    """A loopback HTTP server replaying queued responses (see tests/replay.py)."""
    server = ReplayServer()
    yield server
    server.close()
