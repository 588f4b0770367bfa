"""What the ACP client does for a session: permission requests (``ctx.ui.confirm``
from tool approval), files (``ctx.files``: unsaved buffers) when it advertises fs."""

from __future__ import annotations

import asyncio
import sys
import threading
from contextvars import ContextVar
from typing import Any

from acp import schema
from acp.helpers import text_block, tool_content
from omp import UI, AgentSession, FileAccess

from omp_mode_acp.updates import tool_kind, tool_title

_ASKING: ContextVar[Any] = ContextVar("omp_mode_acp_asking", default=None)
"""The tool call whose approval is being decided in this task (set by ApprovalGate)."""

CLIENT_TIMEOUT = 30.0
"""Seconds a tool thread waits for the client to read or write a file."""

OPTIONS = [
    schema.PermissionOption(option_id="allow_once", name="Allow", kind="allow_once"),
    schema.PermissionOption(option_id="allow_always", name="Always allow", kind="allow_always"),
    schema.PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
]


class ApprovalGate:
    """Runs around a session's tool approval (``AgentSession.guard_approval``): the call
    being decided is known to the permission request, and an approved call is reported
    as running."""

    def __init__(self, on_approved: Any) -> None:
        self._on_approved = on_approved

    async def __call__(self, call: Any, decide: Any) -> str | None:
        token = _ASKING.set(call)
        try:
            denied = await decide()
        finally:
            _ASKING.reset(token)
        if denied is None:
            await self._on_approved(call)
        return denied


class AcpUI(UI):
    """``ctx.ui`` of an ACP session: confirm is a ``session/request_permission``. A
    client that advertises form elicitation (``elicitation.form``, unstable in ACP) gets
    select, input and editor as one-field forms; for any other client select is a
    permission request with one option per label, and input and editor take their
    default. Notifications go to stderr."""

    def __init__(
        self, conn: Any, session_id: str, cwd: str, session: AgentSession, forms: bool = False
    ) -> None:
        super().__init__()
        self._conn = conn
        self._session_id = session_id
        self._cwd = cwd
        self._session = session
        self._forms = forms
        self._asked = 0

    async def _ask_select(self, title: str, options: list[Any]) -> str | None:
        labels = [str(o.get("label", "")) if isinstance(o, dict) else str(o) for o in options]
        if self._forms:
            field = schema.ElicitationStringPropertySchema(type="string", title=title, enum=labels)
            value = await self._form(title, field)
            if self._forms:
                return value if value in labels else None
        self._asked += 1
        response = await self._conn.request_permission(
            session_id=self._session_id,
            tool_call=schema.ToolCallUpdate(tool_call_id=f"omp-select-{self._asked}", title=title),
            options=[
                schema.PermissionOption(option_id=str(i), name=label, kind="allow_once")
                for i, label in enumerate(labels)
            ],
        )
        outcome = response.outcome
        if outcome.outcome != "selected" or not outcome.option_id.isdigit():
            return None
        index = int(outcome.option_id)
        return labels[index] if index < len(labels) else None

    async def _ask_input(self, title: str, placeholder: str) -> str | None:
        if not self._forms:
            return None
        field = schema.ElicitationStringPropertySchema(
            type="string", title=title, description=placeholder or None
        )
        return await self._form(title, field)

    async def _ask_editor(self, title: str, prefill: str) -> str | None:
        if not self._forms:
            return None
        field = schema.ElicitationStringPropertySchema(
            type="string", title=title, default=prefill or None
        )
        return await self._form(title, field)

    async def _form(self, title: str, field: Any) -> str | None:
        """The ``value`` of a one-field form the client shows; None when declined."""
        mode = schema.ElicitationFormSessionMode(
            session_id=self._session_id,
            requested_schema=schema.ElicitationSchema(
                properties={"value": field}, required=["value"]
            ),
        )
        try:
            response = await self._conn.create_elicitation(message=title, mode=mode)
        except Exception as exc:  # advertised but refused: ask as if it were not there
            print(f"omp: the client refused a form ({exc}); not asking with forms", file=sys.stderr)
            self._forms = False
            return None
        if getattr(response, "action", None) != "accept" or not response.content:
            return None
        value = response.content.get("value")
        return None if value is None else str(value)

    async def _ask_confirm(self, title: str, message: str) -> bool:
        call = _ASKING.get()
        if call is not None:
            tool_call = schema.ToolCallUpdate(
                tool_call_id=call.id,
                title=tool_title(call.name, call.arguments, self._cwd),
                kind=tool_kind(call.name),  # type: ignore[arg-type]
                status="pending",
                raw_input=call.arguments,
                content=[tool_content(text_block(message))] if message else None,
            )
        else:
            self._asked += 1
            tool_call = schema.ToolCallUpdate(
                tool_call_id=f"omp-confirm-{self._asked}",
                title=title,
                content=[tool_content(text_block(message))] if message else None,
            )
        response = await self._conn.request_permission(
            session_id=self._session_id, tool_call=tool_call, options=OPTIONS
        )
        outcome = response.outcome
        if outcome.outcome != "selected":
            return False
        if outcome.option_id == "allow_always" and call is not None:
            self._session.allow_tool(call.name)
        return outcome.option_id in ("allow_once", "allow_always")

    def notify(self, message: str, level: str = "info") -> None:
        prefix = "" if level == "info" else f"{level}: "
        print(f"omp: {prefix}{message}", file=sys.stderr, flush=True)


class ClientFiles(FileAccess):
    """Files through the client (``fs/read_text_file``, ``fs/write_text_file``), so
    tools read the editor's unsaved buffers; each direction only where advertised.
    Called from tool worker threads; a failed request falls back to the disk."""

    def __init__(
        self,
        conn: Any,
        session_id: str,
        loop: asyncio.AbstractEventLoop,
        can_read: bool,
        can_write: bool,
    ) -> None:
        self._conn = conn
        self._session_id = session_id
        self._loop = loop
        self._loop_thread = threading.get_ident()
        self.can_read = can_read
        self.can_write = can_write

    def _ask(self, make: Any) -> Any:
        if threading.get_ident() == self._loop_thread:
            return None  # an async tool on the loop itself: waiting here would deadlock
        future = asyncio.run_coroutine_threadsafe(make(), self._loop)
        try:
            return future.result(CLIENT_TIMEOUT)
        except Exception as exc:
            future.cancel()
            print(f"omp: the client could not serve a file: {exc}", file=sys.stderr)
            return None

    def read_text(self, path: str) -> str | None:
        if not self.can_read:
            return None
        response = self._ask(
            lambda: self._conn.read_text_file(session_id=self._session_id, path=path)
        )
        return None if response is None else response.content

    def write_text(self, path: str, text: str) -> bool:
        if not self.can_write:
            return False
        done = object()

        async def written() -> object:
            await self._conn.write_text_file(session_id=self._session_id, path=path, content=text)
            return done

        return self._ask(written) is done
