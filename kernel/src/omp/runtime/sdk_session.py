"""The public face of a running session (``omp.AgentSession``), as the SDK hands it
out (``omp.runtime.sdk.create_session``): prompt, steer, listen, move to another session file."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, cast

from omp.base.errors import OmpError
from omp.base.thinking import ThinkingLevel
from omp.runtime.sdk_client import ClientMembers
from omp.runtime.sdk_controls import SessionControls

if TYPE_CHECKING:
    from omp.agent.approval import ToolApproval
    from omp.agent.events import Event
    from omp.agent.messages import AgentMessage, AssistantMessage, ImageContent, ToolCall
    from omp.agent.providers import Model
    from omp.agent.tools import Tool
    from omp.base.files import FileAccess
    from omp.plugin.contrib import Command, Renderer
    from omp.runtime.session import AgentSession as RuntimeSession
    from omp.runtime.tool_render import ToolRendering
    from omp.runtime.ui import UI

Listener = Callable[["Event"], "Awaitable[None] | None"]
"""Called with every event of the session, in order (sync or async)."""

ApprovalMode = Literal["always-ask", "write", "yolo"]
"""``tools.approvalMode``: ask before every tool call, before those of tools that
require approval, or never."""

ApprovalGate = Callable[
    ["ToolCall", "Callable[[], Awaitable[str | None]]"], "Awaitable[str | None]"
]
"""Runs around each approval decision (``AgentSession.guard_approval``): called with the
tool call and ``decide`` (the session's own decision, asking through its UI where
needed), it returns None when the call may run, else why it may not."""


@dataclass(frozen=True)
class SessionChange:
    """What ``new``, ``switch`` or ``fork`` did: ``cancelled`` when a plugin's
    ``session_before_*`` guard refused; ``editor_text``, for a fork before a user
    message, is that message's text (to edit and send again)."""

    cancelled: bool
    editor_text: str | None = None


@dataclass(frozen=True)
class UsageTotals:
    """What a session's answers cost: ``requests`` answers with usage, their tokens,
    ``cost`` in dollars, and ``unpriced`` answers from models without a price."""

    requests: int = 0
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    unpriced: int = 0

    @property
    def tokens(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write


class AgentSession(ClientMembers, SessionControls):
    """A running omp session: prompt it, steer it, listen to its events, move it to
    another session file. Made by ``omp.create_session``; end it with ``dispose()`` or
    ``async with``. Call its methods from the event loop it runs on."""

    def __init__(self, session: RuntimeSession) -> None:
        self._session = session
        self._busy = 0
        self._disposed = False

    # -- what it is -------------------------------------------------------------------

    @property
    def session_id(self) -> str:
        return self._session.session_file.session_id

    @property
    def parent_session_id(self) -> str | None:
        """The id of the session that made this one (a child session's), else None."""
        return self._session.parent_session_id

    @property
    def session_depth(self) -> int:
        """0 for a top-level session, 1 for its child sessions, 2 for theirs..."""
        return self._session.session_depth

    @property
    def session_file(self) -> Path | None:
        """The session's JSONL file; None for an in-memory session."""
        return self._session.session_file.path

    @property
    def cwd(self) -> Path:
        return Path(self._session.cwd)

    @property
    def model(self) -> Model | None:
        return self._session.agent.model

    @property
    def thinking_level(self) -> ThinkingLevel:
        return cast(ThinkingLevel, self._session.agent.thinking_level)

    @property
    def messages(self) -> list[AgentMessage]:
        """The conversation the model sees next (a copy)."""
        return list(self._session.agent.messages)

    @property
    def header(self) -> dict[str, Any]:
        """The session file's header record (its first line; kept in memory for an
        in-memory session)."""
        return dict(self._session.session_file.header)

    @property
    def flags(self) -> Mapping[str, Any]:
        """The command-line flag values the session was opened with, by name (omp's own
        and the plugins')."""
        return dict(self._session.flags)

    @property
    def state(self) -> dict[str, Any]:
        """The per-session plugin state, the handlers' ``ctx.state``: how a client hands
        a plugin something for this session before it starts."""
        return self._session.plugin_state

    @property
    def commands(self) -> list[Command]:
        """The slash commands a prompt may start with, by name."""
        return sorted(self._session.commands.values(), key=lambda c: c.name)

    def usable_models(self) -> list[Model]:
        """The models that can be used now (their provider has what it needs), in the
        registry's order: what a client offers to pick from."""
        session = self._session
        return session.models.usable(session.settings.data)

    @property
    def is_streaming(self) -> bool:
        """Whether a prompt is being answered."""
        return bool(self._busy) or self._session.agent.is_streaming

    async def start(self) -> None:
        """Start the session (plugins' ``session_start`` hooks run); the first prompt
        does it otherwise. Idempotent."""
        await self._started()

    # -- prompting --------------------------------------------------------------------

    async def prompt(
        self,
        text: str,
        images: Sequence[ImageContent] | None = None,
        *,
        streaming_behavior: Literal["steer", "followUp"] | None = None,
        source: Literal["interactive", "rpc", "extension"] = "interactive",
        literal: bool = False,
    ) -> AssistantMessage | None:
        """Run ``text`` to the end (plugins' input hooks, slash commands, every turn);
        the last answer (None when nothing was asked of the model: a slash command, an
        input hook that handled it). An answer that failed has ``stop_reason``
        ``"error"`` or ``"aborted"``. While a prompt runs, ``streaming_behavior`` says
        how to queue this one (else it is an error). ``source`` is what input hooks see
        (``"rpc"``: a protocol client sent it; ``"extension"``: a plugin, say to a child
        session). ``literal`` text goes to the model as it is, never run as a slash
        command or a ``!``/``$`` user command."""
        from omp.runtime.prompting import run_prompts

        session = self._live()
        if self.is_streaming:
            if streaming_behavior is None:
                raise OmpError(
                    "the session is answering a prompt; wait for it, or pass "
                    "streaming_behavior='steer' or 'followUp'"
                )
            self.queue(text, images, deliver_as=streaming_behavior)
            return None
        self._busy += 1
        try:
            answer: AssistantMessage | None = await run_prompts(
                session, [text], list(images) if images else None, source, literal=literal
            )
        finally:
            self._busy -= 1
        return answer

    async def steer(self, text: str, images: Sequence[ImageContent] | None = None) -> None:
        """Interrupt the running prompt: delivered after the current tool (the tools
        still queued are skipped). When idle, the same as ``prompt``."""
        await self._deliver("steer", text, images)

    async def follow_up(self, text: str, images: Sequence[ImageContent] | None = None) -> None:
        """Queue ``text`` for when the model would stop. When idle, the same as ``prompt``."""
        await self._deliver("followUp", text, images)

    async def _deliver(
        self, how: Literal["steer", "followUp"], text: str, images: Sequence[ImageContent] | None
    ) -> None:
        self._live()
        if self.is_streaming:
            self.queue(text, images, deliver_as=how)
        else:
            await self.prompt(text, images)

    def abort(self, reason: str | None = None) -> None:
        """Stop the running prompt (its answer ends ``aborted``); safe from a listener.
        A ``reason`` is announced as an error notice and kept in ``abort_reason``."""
        self._session.abort(reason)

    async def wait_for_idle(self) -> None:
        """Wait until no prompt runs and nothing the session started is pending."""
        await self._session.wait_for_idle()

    @property
    def abort_reason(self) -> str | None:
        """Why the current or last prompt was aborted, when a plugin (``ctx.abort``)
        or ``abort(reason)`` said; None otherwise."""
        return self._session.abort_message

    def usage_totals(self) -> UsageTotals:
        """Tokens and dollars of every answer in the conversation."""
        totals = self._session.usage_totals()
        return UsageTotals(**totals)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every event from now on; returns the function that unsubscribes."""
        return self._session.subscribe(listener)

    async def run_prompts(
        self, prompts: Sequence[str], images: Sequence[ImageContent] | None = None
    ) -> AssistantMessage | None:
        """Each prompt in turn, as ``prompt`` runs one, stopping after one that failed,
        was aborted or asked the session to shut down; the last answer of them all.
        ``images`` go with the first prompt. What a one-shot run mode does."""
        from omp.runtime.prompting import run_prompts

        session = self._live()
        if self.is_streaming:
            raise OmpError("the session is answering a prompt; wait for it")
        self._busy += 1
        try:
            answer: AssistantMessage | None = await run_prompts(
                session, list(prompts), list(images) if images else None
            )
        finally:
            self._busy -= 1
        return answer

    # -- model and thinking -----------------------------------------------------------

    async def set_model(
        self, model: str | Model, *, source: Literal["set", "cycle"] = "set"
    ) -> None:
        """Switch to ``model`` (a key, a pattern or a ``Model``) for the next request;
        OmpError, saying why, when it is unknown or cannot be used. ``source`` is what
        ``model_select`` handlers see (``"cycle"``: a client's next-model key)."""
        session = await self._started()
        pattern = model if isinstance(model, str) else model.key
        found = session.models.resolve(pattern)
        reason = session.models.provider_of(found).unavailable_reason(session.settings.data)
        if reason or not session.set_model(found.key, source):
            raise OmpError(f"model {found.key} cannot be used: {reason or 'not available'}")

    async def set_thinking_level(self, level: ThinkingLevel) -> None:
        from omp.base.thinking import THINKING_LEVELS

        if level not in THINKING_LEVELS:
            raise OmpError(
                f"unknown thinking level {level!r}; use one of " + ", ".join(THINKING_LEVELS)
            )
        (await self._started()).set_thinking_level(level)

    # -- other sessions ---------------------------------------------------------------

    async def new(self, parent_session: str | os.PathLike[str] | None = None) -> SessionChange:
        """Go on in a new, empty session (file-backed when this one is);
        ``parent_session`` (a session file) is recorded in its header."""
        parent = None if parent_session is None else str(parent_session)
        return _change(await (await self._started()).new_session(parent))

    async def switch(self, session_file: str | os.PathLike[str]) -> SessionChange:
        """Go on in another saved session."""
        return _change(await (await self._started()).switch_session(str(session_file)))

    async def fork(
        self, entry_id: str, position: Literal["before", "at"] = "before"
    ) -> SessionChange:
        """Go on in a new session holding this one's path up to ``entry_id`` (ending
        before it, or ``at`` it)."""
        return _change(await (await self._started()).fork(entry_id, position))

    # -- a client in front of the session (run modes, editors) -------------------------

    def attach_client(self, *, ui: UI | None = None, files: FileAccess | None = None) -> None:
        """Put a client in front of the session: its ``ui`` answers the plugins' dialogs
        and tool approvals (``ctx.has_ui`` becomes true); ``files`` serves the tools'
        file reads and writes (an editor's unsaved buffers, say)."""
        session = self._live()
        if ui is not None:
            session.ui = ui
            session.has_ui = True
        if files is not None:
            session.files = files

    @property
    def approval_mode(self) -> ApprovalMode:
        """Which tool calls need approval (``tools.approvalMode``); settable for this
        session."""
        return cast("ApprovalMode", self._approval().mode)

    @approval_mode.setter
    def approval_mode(self, mode: ApprovalMode) -> None:
        from omp.agent.approval import MODES

        if mode not in MODES:
            raise OmpError(f"unknown approval mode {mode!r}; use one of " + ", ".join(MODES))
        self._approval().mode = mode

    def allow_tool(self, name: str) -> None:
        """Never ask again about ``name`` in this session (an "always allow" answer)."""
        self._approval().per_tool[name] = "allow"

    def guard_approval(self, gate: ApprovalGate) -> None:
        """Run ``gate`` around every approval decision from now on (a client that shows
        which call is being asked about, or reports an approved call as running)."""
        session = self._live()
        inner = session.approval

        async def approve(call: ToolCall, tool: Tool, decision: Any) -> str | None:
            return await gate(call, lambda: inner(call, tool, decision))

        approve.__wrapped__ = inner  # type: ignore[attr-defined]
        session.approval = approve

    def tool(self, name: str) -> Tool | None:
        """The session's tool called ``name`` (active or not); None when there is none."""
        return self._session.tools.get(name)

    def replace_tool(self, tool: Tool) -> None:
        """Put ``tool`` in place of the session's tool of the same name, active as that
        one was: for a client that runs the tool itself (an editor's terminal)."""
        tools = self._live().tools
        active = tools.active_names()
        tools.unregister(tool.name)
        tools.register(tool)
        tools.set_active(active)

    def tool_rendering(self) -> ToolRendering:
        """The tools' own renderers (a call's title, a result's lines); a renderer that
        fails is reported as a plugin error."""
        from omp.runtime.tool_render import ToolRendering

        session = self._session
        return ToolRendering(session.tools, session.report_plugin_error)

    def renderer(self, kind: str, name: str) -> Renderer | None:
        """The renderer a plugin registered for ``kind`` (``"tool"``, ``"message"``)
        and ``name``; None when there is none."""
        found: Renderer | None = self._session.renderers.get((kind, name))
        return found

    def redact(self, text: str) -> str:
        """``text`` with the session's secrets (API keys, tokens) hidden: for whatever a
        client writes out."""
        return self._session.secrets.redact(text)

    def redact_bytes(self, data: bytes) -> bytes:
        """``redact`` for an encoded frame."""
        return self._session.secrets.redact_bytes(data)

    # -- the end ----------------------------------------------------------------------

    async def dispose(self) -> None:
        """End the session (``session_shutdown`` hooks run, the file is released).
        Idempotent."""
        if self._disposed:
            return
        self._disposed = True
        await self._session.shutdown()

    async def __aenter__(self) -> AgentSession:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.dispose()

    def _live(self) -> RuntimeSession:
        if self._disposed:
            raise OmpError("the session was disposed")
        return self._session

    def _approval(self) -> ToolApproval:
        """The session's ``ToolApproval``, under the gates ``guard_approval`` put round it."""
        from omp.agent.approval import ToolApproval

        approval: Any = self._session.approval
        while not isinstance(approval, ToolApproval):
            approval = approval.__wrapped__
        return approval

    async def _started(self) -> RuntimeSession:
        session = self._live()
        await session.start()
        return session


def _change(outcome: Mapping[str, Any]) -> SessionChange:
    return SessionChange(bool(outcome.get("cancelled")), outcome.get("editor_text"))
