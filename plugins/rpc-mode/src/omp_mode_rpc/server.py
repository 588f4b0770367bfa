"""The RPC server: stdin lines in, frames out (§2.1).

A thread reads stdin so that a blocked read never stalls the event loop. Control
frames (dialog answers, host tool progress and results) act at once; every other
command waits its turn in one queue, in arrival order (``abort`` too, as in omp: it
stops what the commands before it started). ``prompt`` is answered when accepted and
runs in the background, as does ``bash`` (so ``abort_bash`` can overtake it). On EOF
open dialogs and host tool calls are rejected, accepted work is drained, and the mode
returns 0.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import TYPE_CHECKING, Any, Literal

from omp import ImageContent, json_type_name

from omp_mode_rpc.bash import UserBash
from omp_mode_rpc.commands import COMMANDS, NO_DATA
from omp_mode_rpc.frames import FrameWriter, frame_channel, message_update_line, ready_frame
from omp_mode_rpc.host_tools import HostTools
from omp_mode_rpc.input import OversizedLine, input_lines
from omp_mode_rpc.slash import available_commands
from omp_mode_rpc.state import RpcError, one_line
from omp_mode_rpc.subagents import KINDS as SUBAGENT_FRAMES
from omp_mode_rpc.subagents import SubagentFrames
from omp_mode_rpc.ui import RpcUI

if TYPE_CHECKING:
    from omp import AgentSession, AssistantMessage, Event

CONTROL = ("extension_ui_response", "host_tool_update", "host_tool_result", "host_uri_result")


async def serve(session: AgentSession, request: object, writer: FrameWriter | None = None) -> int:
    """Run the protocol on this process's stdin/stdout. Whatever else writes to
    stdout (plugins, libraries, child processes) goes to stderr meanwhile. ``writer``:
    the frame channel when the caller opened it (and sent ``ready``) already."""
    if writer is not None:
        return await RpcServer(session, writer, ready_sent=True).run()
    with frame_channel() as opened:
        return await RpcServer(session, opened).run()


class RpcServer:
    DEFERRED = object()
    """A handler's data when it answers later itself (``bash``)."""

    def __init__(
        self, session: AgentSession, writer: FrameWriter, ready_sent: bool = False
    ) -> None:
        self.session = session
        self.writer = writer
        writer.redact = session.redact_bytes  # what the user typed, say
        self._ready_sent = ready_sent
        self.compacting = False
        self.retrying = False
        self.host_tools = HostTools(session.context.api, self.send)
        self.subagents = SubagentFrames(self.send)
        self._agent_starts = 0
        self._aborts = 0
        """Bumped by every abort: a prompt accepted before one never runs its turn."""
        self._last_reply: tuple[AssistantMessage, float] | None = None
        """The last assistant message and its output tokens per second (omp's
        tokensPerSecond; messages here carry no duration, so it is timed here)."""
        self._shutting_down = False
        self._running_prompt: int | None = None
        """The abort count when the prompt now in ``session.prompt`` was accepted."""
        self._prompts: set[asyncio.Future[Any]] = set()
        self.bash = UserBash(session, self.respond, self._check_shutdown)
        self._lines: asyncio.Queue[bytes | OversizedLine | None] = asyncio.Queue()
        self._commands: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    # -- output -----------------------------------------------------------------------

    def send(self, frame: dict[str, Any]) -> None:
        self.writer.write(frame)

    def respond(
        self,
        request_id: Any,
        command: Any,
        data: Any = NO_DATA,
        error: str | None = None,
        code: str | None = None,
    ) -> None:
        frame: dict[str, Any] = {} if request_id is None else {"id": request_id}
        frame["type"] = "response"
        if command is not None:
            frame["command"] = command
        if error is None:
            frame["success"] = True
            if data is not NO_DATA:
                frame["data"] = data
        else:
            frame["success"] = False
            frame["error"] = error
            if code:
                frame["code"] = code
        self.send(frame)

    @property
    def ui(self) -> RpcUI | None:
        """The session's UI when it is this mode's own (the client's dialogs)."""
        ui = self.session.context.ui
        return ui if isinstance(ui, RpcUI) else None

    def _on_event(self, event: Event) -> None:
        if event.type == "message_update":
            line = message_update_line(event)
            if line is not None:
                self.writer.write_encoded(
                    line, lambda: event.model_dump(mode="json", exclude_none=True)
                )
                return
        frame = event.model_dump(mode="json", exclude_none=True)
        kind = frame.get("type")
        if kind in SUBAGENT_FRAMES:  # gated by the client's subscription
            self.subagents.on_frame(frame)
            return
        if kind == "agent_start":
            self._agent_starts += 1
            if self._running_prompt is not None and self._running_prompt != self._aborts:
                self.session.abort()  # aborted while its input hooks ran
        elif kind == "agent_end":
            frame.setdefault("isTerminal", True)
        elif kind == "message_end" and frame.get("message", {}).get("role") == "assistant":
            self._time_reply(getattr(event, "message", None))
        elif kind == "auto_retry_start":
            self.retrying = True
        elif kind == "auto_retry_end":
            self.retrying = False
        self.send(frame)

    def _time_reply(self, message: Any) -> None:
        started = getattr(message, "timestamp", None)
        output = getattr(getattr(message, "usage", None), "output", 0)
        if not isinstance(started, int | float) or not isinstance(output, int):
            return
        duration_ms = time.time() * 1000 - started
        if output > 0 and duration_ms >= 100:  # omp's floor: shorter is not measurable
            self._last_reply = (message, output * 1000 / duration_ms)

    def tokens_per_second(self) -> float | None:
        """The rate of the conversation's last reply, when it was timed."""
        messages = reversed(self.session.messages)
        last = next((m for m in messages if getattr(m, "role", "") == "assistant"), None)
        if last is None or self._last_reply is None or self._last_reply[0] is not last:
            return None
        return self._last_reply[1]

    def announce_commands(self) -> None:
        """``available_commands_update``: at startup and after the session changed."""
        self.send(
            {"type": "available_commands_update", "commands": available_commands(self.session)}
        )

    # -- the run ------------------------------------------------------------------------

    async def run(self) -> int:
        if not self._ready_sent:
            self.send(ready_frame())
        self.session.subscribe(self._on_event)
        if self.ui is not None:
            self.ui.attach(self.send)
        await self.session.start()
        self.announce_commands()
        self._start_reader(asyncio.get_running_loop())
        worker = asyncio.ensure_future(self._work())
        try:
            while (line := await self._lines.get()) is not None:
                self._receive(line)
        except asyncio.CancelledError:  # a signal: stop what runs, keep the session
            self.session.abort()
            self._reject_pending()
            worker.cancel()
            raise
        self._reject_pending()
        self._commands.put_nowait(None)
        await worker
        while pending := [t for t in self._prompts | self.bash.tasks if not t.done()]:
            await asyncio.gather(*pending, return_exceptions=True)
        await self.session.wait_for_idle()
        return 0

    def _reject_pending(self) -> None:
        if self.ui is not None:
            self.ui.reject_all()
        self.host_tools.reject_all()

    def _start_reader(self, loop: asyncio.AbstractEventLoop) -> None:
        def read() -> None:
            stream = open(0, "rb", buffering=1 << 16, closefd=False)  # noqa: SIM115
            try:
                for raw in input_lines(stream):
                    loop.call_soon_threadsafe(self._lines.put_nowait, raw)
            except (OSError, ValueError):
                pass
            try:
                loop.call_soon_threadsafe(self._lines.put_nowait, None)
            except RuntimeError:
                pass  # the loop already ended

        threading.Thread(target=read, name="omp-rpc-stdin", daemon=True).start()

    def _receive(self, raw: bytes | OversizedLine) -> None:
        if isinstance(raw, OversizedLine):
            self.respond(None, "parse", error=f"Failed to parse command: {raw}")
            return
        line = raw.strip()
        if not line:
            return
        try:
            frame = json.loads(line.decode("utf-8-sig"))
            if not isinstance(frame, dict):
                raise ValueError(f"expected a JSON object, got {json_type_name(frame)}")
        except (ValueError, RecursionError) as exc:
            self.respond(None, "parse", error=f"Failed to parse command: {exc}")
            return
        kind = frame.get("type")
        if kind in CONTROL:
            self._control(kind, frame)
        else:
            self._commands.put_nowait(frame)

    def _control(self, kind: str, frame: dict[str, Any]) -> None:
        if kind == "extension_ui_response":
            if self.ui is not None:
                self.ui.resolve(frame)
        elif kind == "host_tool_update":
            self.host_tools.update(frame)
        elif kind == "host_tool_result":
            self.host_tools.resolve(frame)

    async def _work(self) -> None:
        while (frame := await self._commands.get()) is not None:
            await self._execute(frame)
            self._check_shutdown()

    def _check_shutdown(self, _done: Any = None) -> None:
        """ctx.shutdown(): end as on EOF, after the command, prompt or bash that asked
        (checked as each settles, so no further frame is needed)."""
        if self.session.shutdown_requested and not self._shutting_down:
            self._shutting_down = True
            self._lines.put_nowait(None)

    async def _execute(self, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        handler = COMMANDS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            name = "undefined" if kind is None else kind
            self.respond(None, kind, error=f"Unknown command: {name}")
            return
        request_id = frame.get("id")
        try:
            data = await handler(self, frame)
        except RpcError as exc:
            self.respond(request_id, kind, error=one_line(exc), code=exc.code)
        except Exception as exc:
            self.respond(request_id, kind, error=one_line(exc))
        else:
            if data is not self.DEFERRED:
                self.respond(request_id, kind, data)

    # -- prompts ----------------------------------------------------------------------

    def is_busy(self) -> bool:
        return self.session.is_streaming or any(not t.done() for t in self._prompts)

    def start_prompt(self, request_id: Any, command: str, message: str, images: Any) -> None:
        accepted = self._aborts
        task = asyncio.ensure_future(self._prompt(request_id, command, message, images, accepted))
        self._prompts.add(task)
        task.add_done_callback(self._prompts.discard)
        task.add_done_callback(self._check_shutdown)

    async def _prompt(
        self, request_id: Any, command: str, message: str, images: Any, accepted: int
    ) -> None:
        """The prompt was answered when accepted; what happens later (a local-only
        prompt, a failure) is a ``prompt_result`` frame with its id, never a second
        response: one response per request id."""
        before = self._agent_starts
        ran = accepted == self._aborts  # else aborted before it began: no turn
        error = None
        if ran:
            self._running_prompt = accepted
            try:
                attached = [ImageContent.model_validate(i) for i in images or ()]
                await self.session.prompt(message, attached or None, source="rpc")
            except Exception as exc:
                error = one_line(exc)
            finally:
                self._running_prompt = None
        if self._agent_starts == before and error is None:
            # A command may have handed the agent a turn that starts after it returned.
            await self.session.wait_for_idle()
            if ran and self._agent_starts == before:
                error = self.session.abort_reason  # a failed slash command says why
        invoked = self._agent_starts != before
        if error or (not invoked and command in ("prompt", "abort_and_prompt")):
            frame: dict[str, Any] = {"type": "prompt_result", "agentInvoked": invoked}
            if error:
                frame["error"] = error
            self.send({"id": request_id, **frame} if request_id is not None else frame)

    def queue_message(
        self, message: str, images: Any, behaviour: Literal["steer", "followUp"]
    ) -> None:
        attached = [ImageContent.model_validate(i) for i in images or ()]
        self.session.queue(message, attached or None, deliver_as=behaviour)

    async def abort_and_wait(self) -> None:
        """Stop the running prompt (and any accepted one not yet begun) and wait until
        the session is idle, as omp's ``session.abort()`` does."""
        self._aborts += 1
        if self.is_busy():
            self.session.abort()
        while pending := [t for t in self._prompts if not t.done()]:
            await asyncio.gather(*pending, return_exceptions=True)
        await self.session.wait_for_idle()
