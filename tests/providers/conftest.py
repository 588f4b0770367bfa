"""Provider tests use the shared replay server (tests/replay.py, tests/conftest.py)."""

from __future__ import annotations

from replay import FIXTURES, Recorded, ReplayServer, Reply, fixture_bytes, split_events

__all__ = ["FIXTURES", "Recorded", "ReplayServer", "Reply", "fixture_bytes", "split_events"]
