"""``bash`` through the client's terminal (``terminal/*``) when it advertises one: the
editor runs the command and shows it live; the model gets the output as from bash."""

from __future__ import annotations

import asyncio
from typing import Any

from acp.helpers import tool_terminal_ref, update_tool_call
from omp import AgentSession, Tool, ToolResult

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 3600.0
OUTPUT_LIMIT = 256 * 1024
"""Bytes of output the client keeps (it drops the oldest beyond this)."""


class ClientTerminalBash(Tool):
    """Takes the place of the installed ``bash`` tool (same name, parameters and
    description) in one ACP session."""

    def __init__(self, original: Tool, conn: Any, session_id: str) -> None:
        super().__init__(
            name=original.name,
            label=original.label,
            description=original.description,
            parameters=original.parameters,
            exclusive=original.exclusive,
            requires_approval=original.requires_approval,
        )
        self._conn = conn
        self._session_id = session_id

    async def execute(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        conn, sid = self._conn, self._session_id
        timeout = min(getattr(params, "timeout", None) or DEFAULT_TIMEOUT, MAX_TIMEOUT)
        created = await conn.create_terminal(
            session_id=sid,
            command="bash",
            args=["-c", params.command],
            cwd=ctx.cwd,
            output_byte_limit=OUTPUT_LIMIT,
        )
        terminal = created.terminal_id
        await conn.session_update(
            session_id=sid,
            update=update_tool_call(
                call_id, status="in_progress", content=[tool_terminal_ref(terminal)]
            ),
        )
        try:
            ended = await self._wait(terminal, timeout, signal)
            output = await conn.terminal_output(session_id=sid, terminal_id=terminal)
        finally:
            await conn.release_terminal(session_id=sid, terminal_id=terminal)
        text = output.output.rstrip("\n")
        status = output.exit_status
        notes = []
        if output.truncated:
            notes.append(f"[output truncated to its last {OUTPUT_LIMIT // 1024} KiB]")
        if ended == "aborted":
            notes.append("[command aborted]")
        elif ended == "timeout":
            notes.append(f"[command timed out after {timeout:g} s]")
        elif status is not None and status.exit_code not in (0, None):
            notes.append(f"[exit code {status.exit_code}]")
        elif status is not None and status.signal:
            notes.append(f"[killed by {status.signal}]")
        failed = ended != "exited" or bool(status and (status.exit_code or status.signal))
        body = "\n\n".join(part for part in [text or "(no output)", *notes] if part)
        return ToolResult.text(body, {"terminalId": terminal}, is_error=failed)

    async def _wait(self, terminal: str, timeout: float, signal: Any) -> str:
        conn, sid = self._conn, self._session_id
        exited = asyncio.ensure_future(
            conn.wait_for_terminal_exit(session_id=sid, terminal_id=terminal)
        )
        aborted = asyncio.ensure_future(signal.wait())
        done, _ = await asyncio.wait(
            {exited, aborted}, timeout=timeout, return_when="FIRST_COMPLETED"
        )
        aborted.cancel()
        if exited in done:
            return "exited"
        exited.cancel()
        await conn.kill_terminal(session_id=sid, terminal_id=terminal)
        return "aborted" if aborted in done else "timeout"


def use_client_terminal(session: AgentSession, conn: Any, session_id: str) -> None:
    """Put the client-terminal bash in place of this session's ``bash``."""
    original = session.tool("bash")
    if original is not None:
        session.replace_tool(ClientTerminalBash(original, conn, session_id))
