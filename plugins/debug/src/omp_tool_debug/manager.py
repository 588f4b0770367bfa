"""The debug sessions of one agent session: at most one active, launched or attached
through a DAP client, driven by the tool's operations, collected when idle, and killed
(debuggee and adapter process groups) on abort, on terminate and at shutdown."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from concurrent.futures import Future
from typing import Any

from omp_tool_debug.dap import DapClient, DapError, wait_future
from omp_tool_debug.session import DebugSession, FunctionBreakpoint, LineBreakpoint, Stop

STOP_CAPTURE_SECONDS = 5.0
"""How long launch waits for the initial stop (stopOnEntry) before calling it running."""
END_GRACE_SECONDS = 2.0

INITIALIZE_ARGS = {
    "clientID": "omp",
    "clientName": "omp",
    "adapterID": "omp",
    "pathFormat": "path",
    "linesStartAt1": True,
    "columnsStartAt1": True,
    "supportsVariableType": True,
    "supportsRunInTerminalRequest": False,
    "locale": "en",
}


class DebugError(Exception):
    """A one-line reason an operation cannot be done."""


class DebugManager:
    def __init__(self, idle_timeout: float = 600.0) -> None:
        self.idle_timeout = idle_timeout
        self.sessions: dict[str, DebugSession] = {}
        self.active: DebugSession | None = None
        self._ids = itertools.count(1)
        self._idle_timer: threading.Timer | None = None

    # lifecycle ---------------------------------------------------------------

    async def launch(
        self,
        adapter: str,
        argv: list[str],
        cwd: str,
        arguments: dict[str, Any],
        signal: Any,
        timeout: float,
    ) -> DebugSession:
        return await self._start(adapter, argv, cwd, "launch", arguments, signal, timeout)

    async def attach(
        self,
        adapter: str,
        argv: list[str],
        cwd: str,
        arguments: dict[str, Any],
        signal: Any,
        timeout: float,
    ) -> DebugSession:
        return await self._start(adapter, argv, cwd, "attach", arguments, signal, timeout)

    async def _start(
        self,
        adapter: str,
        argv: list[str],
        cwd: str,
        command: str,
        arguments: dict[str, Any],
        signal: Any,
        timeout: float,
    ) -> DebugSession:
        self._collect()
        if self.active is not None and self.active.status == "terminated":
            self.dispose(self.active)
        if self.active is not None:
            raise DebugError(
                f"Debug session {self.active.id} is still active. "
                "Terminate it before launching another."
            )
        session = DebugSession(f"debug-{next(self._ids)}", adapter, cwd, arguments.get("program"))
        try:
            session.client = DapClient(argv, cwd, session.on_event)
        except DapError as exc:
            raise DebugError(str(exc)) from None
        self.sessions[session.id] = session
        self.active = session
        client = session.client
        try:
            session.capabilities = await client.request(
                "initialize", INITIALIZE_ARGS, signal, timeout
            )
            first_stop = session.expect_outcome()
            started = client.send(command, arguments)
            await wait_future(session.initialized, signal, timeout, "initialize")
            refused = started.exception() if started.done() else None
            if refused is not None:
                raise refused
            session.status = "configuring"
            if session.capabilities.get("supportsConfigurationDoneRequest"):
                await client.request("configurationDone", None, signal, timeout)
            await wait_future(started, signal, timeout, command)
            if session.status == "configuring":
                session.status = "running"
            try:
                await wait_future(first_stop, signal, min(timeout, STOP_CAPTURE_SECONDS), "stop")
            except DapError:
                if signal is not None and signal.aborted:
                    raise
            if session.status == "stopped":
                await self._fetch_top_frame(session, signal, timeout)
        except BaseException as exc:
            self.dispose(session)
            if isinstance(exc, DapError):
                raise DebugError(f"{command} failed: {exc}") from None
            raise
        self._arm_idle_timer()
        return session

    async def terminate(self, signal: Any, timeout: float) -> DebugSession | None:
        session = self.active
        if session is None:
            return None
        client = session.client
        if client is not None and client.alive and session.status != "terminated":
            ended = session.expect_outcome()
            try:
                if session.capabilities.get("supportsTerminateRequest"):
                    await client.request("terminate", None, signal, min(timeout, END_GRACE_SECONDS))
                    await wait_future(ended, signal, END_GRACE_SECONDS, "terminate")
                await client.request(
                    "disconnect", {"terminateDebuggee": True}, signal, END_GRACE_SECONDS
                )
            except DapError:
                pass  # forced below
        self.dispose(session)
        return session

    async def disconnect(self, signal: Any, timeout: float) -> DebugSession | None:
        """Detach; an attached debuggee keeps running, a launched one (ours) is killed."""
        session = self.active
        if session is None:
            return None
        client = session.client
        if client is not None and client.alive:
            try:
                await client.request(
                    "disconnect", {"terminateDebuggee": False}, signal, END_GRACE_SECONDS
                )
            except DapError:
                pass
        self.dispose(session)
        return session

    def dispose(self, session: DebugSession) -> None:
        session.kill()
        self.sessions.pop(session.id, None)
        if self.active is session:
            self.active = None

    def shutdown(self) -> None:
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
        for session in list(self.sessions.values()):
            self.dispose(session)

    # execution ---------------------------------------------------------------

    def require(self) -> DebugSession:
        self._collect()
        session = self.active
        if session is None:
            raise DebugError("No active debug session. Launch or attach first.")
        session.touch()
        return session

    def require_stopped(self, action: str) -> DebugSession:
        session = self.require()
        if session.status != "stopped":
            raise DebugError(
                f"Cannot {action}: the program is {session.status}"
                + (" (use pause first)." if session.status == "running" else ".")
            )
        return session

    async def resume(self, command: str, signal: Any, timeout: float) -> tuple[DebugSession, bool]:
        """continue / next / stepIn / stepOut, then wait for the next stop or the end;
        (session, timed out)."""
        session = self.require_stopped(command)
        client = self._client(session)
        outcome = session.expect_outcome()
        thread_id = session.stop.thread_id or await self._first_thread(session, signal, timeout)
        before = session.stop
        session.note_running()  # before sending: the stop may come before the response
        try:
            await self._call(client, command, {"threadId": thread_id}, signal, timeout)
        except DebugError:
            if session.status == "running":
                session.status, session.stop = "stopped", before
            raise
        return session, await self._await_outcome(session, outcome, signal, timeout)

    async def pause(self, signal: Any, timeout: float) -> tuple[DebugSession, bool]:
        session = self.require()
        if session.status == "stopped":
            return session, False
        client = self._client(session)
        outcome = session.expect_outcome()
        thread_id = await self._first_thread(session, signal, timeout)
        await self._call(client, "pause", {"threadId": thread_id}, signal, timeout)
        return session, await self._await_outcome(session, outcome, signal, timeout)

    async def _await_outcome(
        self, session: DebugSession, outcome: Future[str], signal: Any, timeout: float
    ) -> bool:
        started = time.monotonic()
        try:
            await wait_future(outcome, signal, timeout, "wait")
        except DapError:
            if signal is not None and signal.aborted:
                self.dispose(session)
                raise DebugError(f"Aborted; debug session {session.id} was ended.") from None
            return True
        if session.status == "stopped":
            left = max(1.0, timeout - (time.monotonic() - started))
            await self._fetch_top_frame(session, signal, left)
        else:
            await self._settle_exit(session)
        return False

    async def _settle_exit(self, session: DebugSession) -> None:
        """After ``terminated``: give the ``exited`` event a moment, then stop the processes."""
        deadline = time.monotonic() + 0.5
        while session.exit_code is None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        session.kill()  # kept (output, exit code) until the next launch

    # inspection --------------------------------------------------------------

    async def request(
        self, command: str, arguments: dict[str, Any] | None, signal: Any, timeout: float
    ) -> dict[str, Any]:
        session = self.require()
        return await self._call(self._client(session), command, arguments, signal, timeout)

    async def threads(self, signal: Any, timeout: float) -> list[dict[str, Any]]:
        body = await self.request("threads", None, signal, timeout)
        return list(body.get("threads") or [])

    async def stack_trace(
        self, levels: int | None, signal: Any, timeout: float
    ) -> list[dict[str, Any]]:
        session = self.require_stopped("read the stack")
        thread_id = session.stop.thread_id or await self._first_thread(session, signal, timeout)
        arguments: dict[str, Any] = {"threadId": thread_id}
        if levels:
            arguments["levels"] = levels
        body = await self.request("stackTrace", arguments, signal, timeout)
        return list(body.get("stackFrames") or [])

    def frame_id(self, frame_id: int | None) -> int:
        session = self.require_stopped("inspect a frame")
        chosen = frame_id if frame_id is not None else session.stop.frame_id
        if chosen is None:
            raise DebugError("No frame: pass frame_id (see stack_trace).")
        return chosen

    def capability(self, name: str, what: str) -> None:
        if not self.require().capabilities.get(name):
            raise DebugError(f"{what} is not supported by this adapter.")

    # breakpoints -------------------------------------------------------------

    async def set_breakpoints(
        self,
        path: str,
        change: LineBreakpoint | int,
        signal: Any,
        timeout: float,
    ) -> list[LineBreakpoint]:
        """Add (a LineBreakpoint) or remove (a line number) one breakpoint of ``path``
        and send the file's whole list, as DAP wants."""
        session = self.require()
        current = [b for b in session.breakpoints.get(path, []) if b.line != _line_of(change)]
        if isinstance(change, LineBreakpoint):
            current.append(change)
            current.sort(key=lambda b: b.line)
        wire = []
        for bp in current:
            item: dict[str, Any] = {"line": bp.line}
            if bp.condition:
                item["condition"] = bp.condition
            if bp.hit_condition:
                item["hitCondition"] = bp.hit_condition
            wire.append(item)
        body = await self.request(
            "setBreakpoints",
            {"source": {"path": path}, "breakpoints": wire},
            signal,
            timeout,
        )
        for bp, answer in zip(current, body.get("breakpoints") or [], strict=False):
            bp.verified = bool(answer.get("verified"))
            bp.message = answer.get("message")
            if isinstance(answer.get("line"), int):
                bp.line = answer["line"]
        if current:
            session.breakpoints[path] = current
        else:
            session.breakpoints.pop(path, None)
        return current

    async def set_function_breakpoints(
        self, change: FunctionBreakpoint | str, signal: Any, timeout: float
    ) -> list[FunctionBreakpoint]:
        self.capability("supportsFunctionBreakpoints", "Function breakpoints")
        session = self.require()
        name = change.name if isinstance(change, FunctionBreakpoint) else change
        current = [b for b in session.function_breakpoints if b.name != name]
        if isinstance(change, FunctionBreakpoint):
            current.append(change)
        wire = [
            {"name": b.name, **({"condition": b.condition} if b.condition else {})} for b in current
        ]
        body = await self.request("setFunctionBreakpoints", {"breakpoints": wire}, signal, timeout)
        for bp, answer in zip(current, body.get("breakpoints") or [], strict=False):
            bp.verified = bool(answer.get("verified"))
            bp.message = answer.get("message")
        session.function_breakpoints = current
        return current

    async def set_exception_filters(
        self, filters: list[str], signal: Any, timeout: float
    ) -> list[str]:
        session = self.require()
        known = {
            f.get("filter") for f in session.capabilities.get("exceptionBreakpointFilters") or []
        }
        unknown = [f for f in filters if f not in known]
        if unknown:
            raise DebugError(
                f"Unknown exception filter(s) {', '.join(unknown)}; "
                f"this adapter has: {', '.join(sorted(str(k) for k in known)) or 'none'}."
            )
        await self.request("setExceptionBreakpoints", {"filters": filters}, signal, timeout)
        session.exception_filters = list(filters)
        return session.exception_filters

    # helpers -----------------------------------------------------------------

    def _client(self, session: DebugSession) -> DapClient:
        if session.client is None or not session.client.alive:
            session.kill()
            raise DebugError(f"Debug session {session.id} has ended (the adapter exited).")
        return session.client

    async def _call(
        self,
        client: DapClient,
        command: str,
        arguments: dict[str, Any] | None,
        signal: Any,
        timeout: float,
    ) -> dict[str, Any]:
        try:
            return await client.request(command, arguments, signal, timeout)
        except DapError as exc:
            if signal is not None and signal.aborted and self.active is not None:
                self.dispose(self.active)
                raise DebugError("Aborted; the debug session was ended.") from None
            raise DebugError(f"{command}: {exc}") from None

    async def _first_thread(self, session: DebugSession, signal: Any, timeout: float) -> int:
        body = await self._call(self._client(session), "threads", None, signal, timeout)
        threads = body.get("threads") or []
        if not threads:
            raise DebugError("The debuggee has no threads.")
        return int(threads[0]["id"])

    async def _fetch_top_frame(self, session: DebugSession, signal: Any, timeout: float) -> None:
        stop = session.stop
        if stop.thread_id is None:
            return
        try:
            body = await self._call(
                self._client(session),
                "stackTrace",
                {"threadId": stop.thread_id, "levels": 1},
                signal,
                timeout,
            )
        except DebugError:
            return
        frames = body.get("stackFrames") or []
        if frames:
            top = frames[0]
            session.stop = Stop(
                thread_id=stop.thread_id,
                frame_id=top.get("id"),
                reason=stop.reason,
                description=stop.description,
                frame_name=top.get("name"),
                path=(top.get("source") or {}).get("path"),
                line=top.get("line"),
                column=top.get("column"),
                instruction_pointer=top.get("instructionPointerReference"),
            )

    def _collect(self) -> None:
        """End the active session when its adapter is gone or it sat idle too long."""
        session = self.active
        if session is None:
            return
        if time.monotonic() - session.last_used > self.idle_timeout:
            self.dispose(session)
        elif not (session.client and session.client.alive):
            session.kill()

    def _arm_idle_timer(self) -> None:
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        timer = threading.Timer(min(self.idle_timeout, 30.0), self._on_idle_tick)
        timer.daemon = True
        self._idle_timer = timer
        timer.start()

    def _on_idle_tick(self) -> None:
        self._collect()
        if self.active is not None:
            self._arm_idle_timer()
        else:
            self._idle_timer = None


def _line_of(change: LineBreakpoint | int) -> int:
    return change.line if isinstance(change, LineBreakpoint) else change
