"""Each child's progress as omp's ``AgentProgress`` (built from the child's events), and
the throttle that hands the list to the tool's ``on_update`` (partial results with
``details={"progress": [...]}``, at most four a second) and announces it to the parent's
subscribers (``subagent_progress`` / ``subagent_lifecycle``: json and RPC frames)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

RECENT_TOOLS = 5
INTERVAL_S = 0.25


def _now_ms() -> int:
    return int(time.time() * 1000)


class ChildProgress:
    """One child's AgentProgress; ``observe`` takes the child's events."""

    def __init__(
        self, index: int, child_id: str, agent: str, source: str, task: str, model: str | None
    ) -> None:
        self.index, self.id, self.agent, self.source, self.task = (
            index,
            child_id,
            agent,
            source,
            task,
        )
        self.status = "pending"
        self.model = model
        self.session_file: str | None = None
        self.current_tool: str | None = None
        self.current_tool_start: int | None = None
        self.recent_tools: list[dict[str, Any]] = []
        self.tool_count = self.requests = self.tokens = 0
        self.cost = 0.0
        self.started = time.monotonic()
        self.ended: float | None = None

    def observe(self, event: Any) -> bool:
        """Take one child event; whether the progress changed."""
        kind = getattr(event, "type", "")
        if kind == "tool_execution_start":
            self.current_tool, self.current_tool_start = event.tool_name, _now_ms()
            return True
        if kind == "tool_execution_end":
            self.tool_count += 1
            self.recent_tools = [
                *self.recent_tools[-(RECENT_TOOLS - 1) :],
                {"tool": event.tool_name, "endMs": _now_ms()},
            ]
            self.current_tool = self.current_tool_start = None
            return True
        if kind == "message_end" and getattr(event.message, "role", "") == "assistant":
            usage = event.message.usage
            self.requests += 1
            self.tokens += usage.input + usage.output + usage.cache_read + usage.cache_write
            self.cost += usage.cost.total
            if event.message.model:
                self.model = f"{event.message.provider}/{event.message.model}"
            return True
        return False

    def finish(self, status: str) -> None:
        self.status, self.ended = status, time.monotonic()
        self.current_tool = self.current_tool_start = None

    @property
    def duration_ms(self) -> int:
        return int(((self.ended or time.monotonic()) - self.started) * 1000)

    def snapshot(self) -> dict[str, Any]:
        progress: dict[str, Any] = {
            "index": self.index,
            "id": self.id,
            "agent": self.agent,
            "agentSource": self.source,
            "status": self.status,
            "task": self.task,
            "recentTools": list(self.recent_tools),
            "toolCount": self.tool_count,
            "requests": self.requests,
            "tokens": self.tokens,
            "cost": self.cost,
            "durationMs": self.duration_ms,
        }
        if self.current_tool:
            progress["currentTool"] = self.current_tool
            progress["currentToolStartMs"] = self.current_tool_start
        if self.model:
            progress["resolvedModel"] = self.model
        return progress

    def payload(self, parent_call_id: str) -> dict[str, Any]:
        """omp's SubagentProgressPayload."""
        payload: dict[str, Any] = {
            "index": self.index,
            "agent": self.agent,
            "agentSource": self.source,
            "task": self.task,
            "parentToolCallId": parent_call_id,
            "progress": self.snapshot(),
        }
        if self.session_file:
            payload["sessionFile"] = self.session_file
        return payload

    def lifecycle(self, status: str, parent_call_id: str) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "id": self.id,
            "agent": self.agent,
            "agentSource": self.source,
            "status": status,
            "parentToolCallId": parent_call_id,
            "index": self.index,
        }
        if self.session_file:
            payload["sessionFile"] = self.session_file
        return payload


class ProgressReporter:
    """Sends the children's progress: ``on_update`` partial results throttled to one per
    ``INTERVAL_S`` (the last change is never lost), announcements to the parent."""

    def __init__(
        self, children: list[ChildProgress], call_id: str, on_update: Callable[[Any], Any], ctx: Any
    ) -> None:
        self.children, self.call_id, self.on_update, self.ctx = children, call_id, on_update, ctx
        self._last = 0.0
        self._pending: asyncio.TimerHandle | None = None
        self._announced: dict[int, float] = {}
        self._sending: set[asyncio.Future[Any]] = set()

    def changed(self, child: ChildProgress) -> None:
        self._announce_progress(child)
        now = time.monotonic()
        if now - self._last >= INTERVAL_S:
            self.flush()
        elif self._pending is None:
            loop = asyncio.get_running_loop()
            self._pending = loop.call_later(INTERVAL_S - (now - self._last), self.flush)

    def flush(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        self._last = time.monotonic()
        from omp import ToolResult

        lines = [_line(child) for child in self.children]
        progress = [child.snapshot() for child in self.children]
        self.on_update(ToolResult.text("\n".join(lines), {"progress": progress}))

    def lifecycle(self, child: ChildProgress, status: str) -> None:
        from omp import SubagentLifecycleEvent

        self._send(SubagentLifecycleEvent(payload=child.lifecycle(status, self.call_id)))
        self._announce_progress(child, force=True)
        self.changed(child)

    def close(self) -> None:
        """The last progress, if a throttled update is still waiting."""
        if self._pending is not None:
            self.flush()

    def _announce_progress(self, child: ChildProgress, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._announced.get(child.index, 0.0) < INTERVAL_S:
            return
        self._announced[child.index] = now
        from omp import SubagentProgressEvent

        self._send(SubagentProgressEvent(payload=child.payload(self.call_id)))

    def _send(self, event: Any) -> None:
        announce = getattr(self.ctx, "announce", None)
        if announce is None:
            return
        outcome = announce(event)
        if asyncio.iscoroutine(outcome):
            task = asyncio.ensure_future(outcome)
            self._sending.add(task)
            task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Future[Any]) -> None:
        self._sending.discard(task)
        if not task.cancelled():
            task.exception()  # a subscriber's failure is the session's to report


def _line(child: ChildProgress) -> str:
    doing = f" · {child.current_tool}" if child.current_tool else ""
    seconds = child.duration_ms / 1000
    return f"{child.id} [{child.agent}] {child.status}{doing} · {seconds:.1f}s · {child.tokens} tok"
