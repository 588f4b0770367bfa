"""One ACP session: an ``omp.AgentSession`` built as the CLI builds one, its events sent
to the client as ``session/update`` notifications, and what the client
asked for (prompts, cancel, mode, model, thinking level)."""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from acp import RequestError, schema
from acp.helpers import (
    update_agent_message_text,
    update_agent_thought_text,
    update_available_commands,
    update_current_mode,
    update_tool_call,
)
from omp import THINKING_LEVELS, AgentSession, OmpError, thinking_levels

from omp_mode_acp import updates
from omp_mode_acp.client import AcpUI, ApprovalGate, ClientFiles
from omp_mode_acp.prompt import prompt_input

MODES = [
    schema.SessionMode(
        id="write", name="Default", description="Ask before tools that need approval"
    ),
    schema.SessionMode(id="always-ask", name="Ask", description="Ask before every tool call"),
    schema.SessionMode(id="yolo", name="Never ask", description="Run every tool call unasked"),
    schema.SessionMode(
        id="plan", name="Plan", description="Read-only tools; the agent writes a plan to approve"
    ),
]
PLAN = "plan"
"""Not an approval mode: plan mode (plugins/plan-mode, on the event bus) over the current one."""
STOP_REASONS = {"aborted": "cancelled", "length": "max_tokens"}
SNAPSHOT_MAX_BYTES = 1 << 20
"""A file ``write`` replaces is shown as a diff against its old text up to this size."""


class AcpSession:
    def __init__(self, conn: Any, session: AgentSession, caps: Any) -> None:
        self.conn = conn
        self.session = session
        self.id: str = session.session_id
        self.cwd: str = str(session.cwd)
        self._running: asyncio.Task[Any] | None = None
        self._cancelled = False
        self._before: dict[str, str | None] = {}
        self.view = session.tool_rendering()
        """The tools' own renderers: a call's title, a result's content."""
        session.guard_approval(ApprovalGate(self._approved))
        fs = getattr(caps, "fs", None) if caps is not None else None
        files = None
        if fs is not None and (fs.read_text_file or fs.write_text_file):
            files = ClientFiles(
                conn,
                self.id,
                asyncio.get_running_loop(),
                bool(fs.read_text_file),
                bool(fs.write_text_file),
            )
        elicitation = getattr(caps, "elicitation", None) if caps is not None else None
        forms = getattr(elicitation, "form", None) is not None
        session.attach_client(ui=AcpUI(conn, self.id, self.cwd, session, forms), files=files)
        self.planning = False
        self._mode_sent: asyncio.Future[Any] | None = None
        session.context.api.events.on("plan-mode.changed", self._plan_changed)
        if caps is not None and caps.terminal and session.tool("bash") is not None:
            from omp_mode_acp.terminal import use_client_terminal

            use_client_terminal(session, conn, self.id)
        session.subscribe(self._on_event)

    async def send(self, update: Any) -> None:
        await self.conn.session_update(session_id=self.id, update=update)

    async def start(self) -> None:
        await self.session.start()
        commands = [
            schema.AvailableCommand(
                name=c.name,
                description=c.description or c.name,
                input=schema.AvailableCommandInput(
                    root=schema.UnstructuredCommandInput(hint=c.argument_hint)
                )
                if getattr(c, "argument_hint", None)
                else None,
            )
            for c in self.session.commands
        ]
        await self.send(update_available_commands(commands))

    async def replay(self) -> None:
        for update in updates.replay(self.session.messages, self.cwd, self.view):
            await self.send(update)

    # -- what the client sees ------------------------------------------------------

    def current_mode(self) -> str:
        return PLAN if self.planning else self.session.approval_mode

    def modes(self) -> schema.SessionModeState:
        return schema.SessionModeState(current_mode_id=self.current_mode(), available_modes=MODES)

    def _plan_changed(self, data: Any) -> None:
        """Plan mode went on or off inside the session (``/plan``, an approved plan)."""
        if not isinstance(data, dict) or data.get("session_id") != self.id:
            return
        planning = bool(data.get("enabled"))
        if planning != self.planning:
            self.planning = planning
            self._mode_sent = asyncio.ensure_future(self.send(self.mode_update()))

    def config_options(self) -> list[Any]:
        session = self.session
        usable = session.usable_models()
        current = session.model
        if current is not None and current not in usable:
            usable.insert(0, current)
        models = schema.SessionConfigOptionSelect(
            id="model",
            name="Model",
            category="model",
            type="select",
            current_value=current.key if current is not None else "",
            options=[
                schema.SessionConfigSelectOption(value=m.key, name=m.name or m.key) for m in usable
            ],
        )
        levels = list(thinking_levels(current))
        if session.thinking_level not in levels:
            levels.insert(0, session.thinking_level)
        thinking = schema.SessionConfigOptionSelect(
            id="thinking",
            name="Thinking",
            category="thought_level",
            type="select",
            current_value=session.thinking_level,
            options=[schema.SessionConfigSelectOption(value=v, name=v) for v in levels],
        )
        return [models, thinking]

    # -- what the client asks --------------------------------------------------------

    def set_mode(self, mode_id: str) -> None:
        if mode_id not in {m.id for m in MODES}:
            raise RequestError.invalid_params({"modeId": f"unknown mode {mode_id!r}"})
        if (mode_id == PLAN) != self.planning:
            wanted = {"enabled": mode_id == PLAN, "session_id": self.id}
            self.session.context.api.events.emit("plan-mode.set", wanted)
            self.planning = mode_id == PLAN
        if mode_id != PLAN:
            self.session.approval_mode = mode_id  # type: ignore[assignment]

    async def set_option(self, config_id: str, value: Any) -> None:
        if config_id == "model":
            try:
                await self.session.set_model(str(value))
            except OmpError:
                raise RequestError.invalid_params(
                    {"value": f"model {value!r} cannot be used"}
                ) from None
        elif config_id == "thinking":
            if value not in THINKING_LEVELS:
                raise RequestError.invalid_params({"value": f"unknown thinking level {value!r}"})
            await self.session.set_thinking_level(value)
        else:
            raise RequestError.invalid_params({"configId": f"unknown option {config_id!r}"})

    async def prompt(self, blocks: list[Any]) -> str:
        if self._running is not None and not self._running.done():
            raise RequestError.invalid_request({"details": "a prompt is already running"})
        text, images = prompt_input(blocks)
        session = self.session
        self._cancelled = False
        self._running = asyncio.ensure_future(session.prompt(text, images))
        try:
            last = await self._running
            await session.wait_for_idle()
        except asyncio.CancelledError:
            session.abort()
            raise
        if self._cancelled:
            return "cancelled"
        if last is None:
            return "end_turn"
        if last.stop_reason == "error":
            raise RequestError.internal_error({"details": last.error_message or "the model failed"})
        return STOP_REASONS.get(last.stop_reason, "end_turn")

    def cancel(self) -> None:
        self._cancelled = True
        self.session.abort()

    async def close(self) -> None:
        self.cancel()
        await self.session.dispose()

    # -- events --------------------------------------------------------------------

    async def _approved(self, call: Any) -> None:
        await self.send(update_tool_call(call.id, status="in_progress"))

    async def _on_event(self, event: Any) -> None:
        kind = event.type
        if kind == "message_update":
            delta = event.assistant_message_event
            if delta.get("type") == "text_delta" and delta.get("delta"):
                await self.send(update_agent_message_text(delta["delta"]))
            elif delta.get("type") == "thinking_delta" and delta.get("delta"):
                await self.send(update_agent_thought_text(delta["delta"]))
        elif kind == "tool_execution_start":
            if event.tool_name == "write":
                self._before[event.tool_call_id] = self._snapshot(event.args)
            await self.send(
                updates.call_started(
                    event.tool_call_id, event.tool_name, event.args, self.cwd, self.view
                )
            )
        elif kind == "tool_execution_update":
            content = updates.rendered_content(
                self.view,
                event.tool_call_id,
                event.tool_name,
                event.args,
                event.partial_result,
                partial=True,
            ) or updates.result_content(event.tool_name, {}, event.partial_result, self.cwd, None)
            if content:
                await self.send(
                    update_tool_call(event.tool_call_id, status="in_progress", content=content)
                )
        elif kind == "tool_execution_end":
            args = getattr(event, "args", None) or {}
            before = self._before.pop(event.tool_call_id, None)
            await self.send(
                updates.call_finished(
                    event.tool_call_id,
                    event.tool_name,
                    self._args_of(event.tool_call_id) or args,
                    event.result,
                    event.is_error,
                    self.cwd,
                    before,
                    self.view,
                )
            )
            if event.tool_name == updates.PLAN_TOOL and not event.is_error:
                plan = updates.plan_of((event.result or {}).get("details"))
                if plan is not None:
                    await self.send(plan)
        elif kind == "notice" and event.level != "info":
            print(f"omp: {event.level}: {event.message}", file=sys.stderr, flush=True)
        elif kind == "extension_error" and event.occurrence == 1:
            text = f"plugin {event.extension_path} failed in {event.event}: {event.error}"
            print(f"omp: {text}", file=sys.stderr, flush=True)

    def _args_of(self, call_id: str) -> dict[str, Any] | None:
        for message in reversed(self.session.messages):
            for call in getattr(message, "tool_calls", None) or []:
                if call.id == call_id:
                    return call.arguments
        return None

    def _snapshot(self, args: dict[str, Any]) -> str | None:
        path = args.get("path")
        if not isinstance(path, str):
            return None
        full = os.path.normpath(os.path.join(self.cwd, os.path.expanduser(path)))
        try:
            if os.path.getsize(full) > SNAPSHOT_MAX_BYTES:
                return None
            with open(full, encoding="utf-8", errors="replace") as handle:
                return handle.read()
        except OSError:
            return None

    def mode_update(self) -> Any:
        return update_current_mode(self.current_mode())
