"""One debug session over a DAP client: omp's state machine (launching → configuring →
stopped ⇄ running → terminated), the stop location, breakpoints as last sent, the
debuggee's output (buffered, capped) and the process groups to kill when it ends."""

from __future__ import annotations

import os
import signal as signals
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from omp import track_process_group, untrack_process_group

from omp_tool_debug.dap import DapClient

MAX_OUTPUT_CHARS = 128 * 1024
TERMINAL_EVENTS = ("terminated",)


@dataclass
class Stop:
    thread_id: int | None = None
    frame_id: int | None = None
    reason: str | None = None
    description: str | None = None
    frame_name: str | None = None
    path: str | None = None
    line: int | None = None
    column: int | None = None
    instruction_pointer: str | None = None


@dataclass
class LineBreakpoint:
    line: int
    condition: str | None = None
    hit_condition: str | None = None
    verified: bool = False
    message: str | None = None


@dataclass
class FunctionBreakpoint:
    name: str
    condition: str | None = None
    verified: bool = False
    message: str | None = None


@dataclass
class DebugSession:
    id: str
    adapter: str
    cwd: str
    program: str | None
    client: DapClient | None = None
    status: str = "launching"
    stop: Stop = field(default_factory=Stop)
    capabilities: dict[str, Any] = field(default_factory=dict)
    breakpoints: dict[str, list[LineBreakpoint]] = field(default_factory=dict)
    function_breakpoints: list[FunctionBreakpoint] = field(default_factory=list)
    exception_filters: list[str] = field(default_factory=list)
    exit_code: int | None = None
    debuggee_pid: int | None = None
    output: str = ""
    output_truncated: bool = False
    last_used: float = field(default_factory=time.monotonic)
    initialized: Future[None] = field(default_factory=Future)
    outcome: Future[str] | None = None
    _groups: set[int] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def expect_outcome(self) -> Future[str]:
        """A future resolved by the next stop ("stopped") or end ("terminated"); made
        before the request that causes it, so a fast event is not missed."""
        with self._lock:
            self.outcome = Future()
            return self.outcome

    def on_event(self, message: dict[str, Any]) -> None:
        """Called on the client's reader thread for every event and reverse request."""
        if message.get("type") == "request":
            if self.client is not None:  # runInTerminal & co: we launch internalConsole
                self.client.respond(message, False, "not supported by omp")
            return
        body = message.get("body") or {}
        event = message.get("event")
        if event == "initialized" and not self.initialized.done():
            self.initialized.set_result(None)
        elif event == "output" and body.get("category") != "telemetry":
            self._append_output(str(body.get("output", "")))
        elif event == "process" and isinstance(body.get("systemProcessId"), int):
            self._adopt(body["systemProcessId"])
        elif event == "stopped":
            self.status = "stopped"
            self.stop = Stop(
                thread_id=body.get("threadId"),
                reason=body.get("reason"),
                description=body.get("description") or body.get("text"),
            )
            self._resolve("stopped")
        elif event == "continued":
            self.status = "running"
            self.stop = Stop()
        elif event == "exited":
            self.exit_code = body.get("exitCode")
        elif event == "terminated":
            self.status = "terminated"
            self.stop = Stop()
            self._resolve("terminated")

    def note_running(self) -> None:
        self.status = "running"
        self.stop = Stop()

    def touch(self) -> None:
        self.last_used = time.monotonic()

    def kill(self) -> None:
        """Kill the debuggee's process group and the adapter's; forget both."""
        with self._lock:
            groups, self._groups = set(self._groups), set()
        for pgid in groups:
            try:
                os.killpg(pgid, signals.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            untrack_process_group(pgid)
        if self.client is not None:
            self.client.kill()
        if self.status != "terminated":
            self.status = "terminated"
        self._resolve("terminated")
        if not self.initialized.done():
            self.initialized.set_result(None)

    def _adopt(self, pid: int) -> None:
        """The debuggee's own process group (adapters often start it in a new one)."""
        self.debuggee_pid = pid
        try:
            pgid = os.getpgid(pid)
        except OSError:
            return
        if self.client is not None and pgid == self.client.proc.pid:
            return
        if pgid == os.getpgrp():
            return
        with self._lock:
            self._groups.add(pgid)
        track_process_group(pgid)

    def _append_output(self, text: str) -> None:
        with self._lock:
            self.output += text
            if len(self.output) > MAX_OUTPUT_CHARS:
                self.output = self.output[-MAX_OUTPUT_CHARS:]
                self.output_truncated = True

    def _resolve(self, state: str) -> None:
        with self._lock:
            outcome = self.outcome
        if outcome is not None and not outcome.done():
            outcome.set_result(state)
