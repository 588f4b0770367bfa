"""Subagent frames (§2.6 item 10): the ``subagent_lifecycle`` and ``subagent_progress``
events a spawning tool announces (``ctx.announce``; the ``task`` tool does) go out as
frames of the same shape only once the client asked for them with
``set_subagent_subscription`` (default ``off``); ``get_subagents`` answers with the
children still running, as omp's registry keeps them. omp's third level, ``events``, is
accepted and sends what ``progress`` does: children's own events do not reach the
parent here."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Literal

from omp import OmpError

Level = Literal["off", "progress", "events"]
LEVELS: tuple[Level, ...] = ("off", "progress", "events")
KINDS = ("subagent_lifecycle", "subagent_progress")


def _same_owner(payload: dict[str, Any], snapshot: dict[str, Any]) -> bool:
    """omp's ``hasSameOwner``: one call's child id never updates another call's."""
    for key in ("parentToolCallId", "sessionFile"):
        if payload.get(key) is not None and snapshot.get(key) is not None:
            return payload[key] == snapshot[key]
    return True


class SubagentFrames:
    """The children of running spawns, as the client sees them."""

    def __init__(self, send: Callable[[dict[str, Any]], None]) -> None:
        self._send = send
        self.level: Level = "off"
        self._running: dict[str, dict[str, Any]] = {}
        """Snapshots (omp's RpcSubagentSnapshot) of started, unfinished children, by id."""

    def set_level(self, level: Any) -> dict[str, Any]:
        if level not in LEVELS:
            raise OmpError(f"Invalid subagent subscription level: {level}")
        self.level = level
        return {"level": self.level}

    def snapshots(self) -> list[dict[str, Any]]:
        return sorted(self._running.values(), key=lambda s: (s.get("index", 0), s["id"]))

    def clear(self) -> None:
        """The session changed: its children are no longer the client's concern."""
        self._running.clear()

    def on_frame(self, frame: dict[str, Any]) -> None:
        """An announced event as a frame: remember it, and send it when subscribed."""
        payload = frame.get("payload")
        if not isinstance(payload, dict):
            return
        known = self._lifecycle(payload) if frame["type"] == KINDS[0] else self._progress(payload)
        if known and self.level != "off":
            self._send({"type": frame["type"], "payload": payload})

    def _lifecycle(self, payload: dict[str, Any]) -> bool:
        """Whether the frame is sent: an end of a child never started, or another
        call's, is dropped (as omp does)."""
        child = payload.get("id")
        if not isinstance(child, str):
            return False
        existing = self._running.get(child)
        if existing is not None and not _same_owner(payload, existing):
            return False
        status = payload.get("status")
        if status != "started":
            return self._running.pop(child, None) is not None
        self._running[child] = {
            **(existing or {}),
            **{k: v for k, v in payload.items() if k != "status"},
            "status": "running",
            "lastUpdate": int(time.time() * 1000),
        }
        return True

    def _progress(self, payload: dict[str, Any]) -> bool:
        """Whether the frame is sent: only a started child's progress is."""
        progress = payload.get("progress")
        child = progress.get("id") if isinstance(progress, dict) else None
        existing = self._running.get(child) if isinstance(child, str) else None
        if existing is None or not _same_owner(payload, existing):
            return False
        existing.update(
            {k: v for k, v in payload.items() if k != "progress"},
            status=progress.get("status", existing["status"]),
            progress=progress,
            lastUpdate=int(time.time() * 1000),
        )
        return True
