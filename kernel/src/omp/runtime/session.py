"""AgentSession: the running session that ties the loop, the hooks, the session file
and the runtime actions together. Run modes drive it; embedders can too."""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from omp.agent.approval import ToolApproval
from omp.agent.events import (
    SEARCH_KINDS,
    BeforeAgentStartEvent,
    Event,
    ExtensionErrorEvent,
    InputEvent,
    MessageEndEvent,
    ModelChangedEvent,
    ModelSelectEvent,
    NoticeEvent,
    SearchEvent,
    SessionBeforeBranchEvent,
    SessionBranchEvent,
    SessionShutdownEvent,
    SessionStartEvent,
    ThinkingLevelChangedEvent,
    ThinkingLevelSelectEvent,
)
from omp.agent.host import Approver
from omp.agent.loop import Agent, LoopSettings
from omp.agent.messages import CustomMessage, ImageContent, TextContent, UserMessage
from omp.agent.provider_hooks import ProviderHooks
from omp.agent.providers import Model, ModelRegistry
from omp.agent.tools import ToolRegistry
from omp.agent.warmup import IdleBuild
from omp.base.errors import OmpError
from omp.plugin.dispatch import HookDispatcher, HookTimeouts
from omp.plugin.hooks import Hooks
from omp.plugin.manager import plugin_source
from omp.runtime import actions as session_actions
from omp.runtime.actions import announce_restored
from omp.runtime.api import OmpAPI
from omp.runtime.commands import run_command
from omp.runtime.compaction import CompactionSession, compact_command, service_of
from omp.runtime.context import CommandContext, HandlerContext
from omp.runtime.host import SessionHost
from omp.runtime.resources import discover_resources, no_resources
from omp.runtime.scope import SessionScoped
from omp.runtime.system_prompt import join_system_prompt
from omp.runtime.user_shell import run_user_command
from omp.session.file import SessionFile, SessionView

if TYPE_CHECKING:
    from omp.config.settings import Settings

Subscriber = Callable[[Event], Any]


class AgentSession:
    def __init__(
        self,
        *,
        pm: Any,
        settings: Settings,
        session_file: SessionFile,
        models: ModelRegistry,
        tools: ToolRegistry,
        model: Model | None,
        commands: dict[str, Any],
        flags: dict[str, Any],
        cwd: str,
        system_prompt_sections: list[str],
        api: OmpAPI | None = None,
        mode_name: str = "print",
        has_ui: bool = False,
        ui: Any = None,
        thinking_level: str = "off",
        renderers: dict[tuple[str, str], Any] | None = None,
        restored: Any = None,
        shortcuts: dict[str, Any] | None = None,
        child: bool = False,
    ) -> None:
        """``restored`` is the session file's context when the caller already built it
        (rebuilding re-validates every message of a long session). A ``child`` session
        (omp.runtime.sdk_child) leaves the runtime's api bound to its parent."""
        from omp.runtime.ui import NullUI

        shared_api = api or OmpAPI()
        self.secrets = shared_api.secrets
        """The credential values hidden from tool results and the session file."""
        self.settings = settings
        self.session_file = session_file
        self.session_view = SessionView(session_file)
        self.models = models
        self.tools = tools
        self.commands = commands
        self.session_commands: set[str] = set()
        """Names of the commands plugins added with ``api.register_command``."""
        self.session_scoped = SessionScoped()
        """What plugins registered for this session only (omp.runtime.scope)."""
        self.flags = flags
        self.cwd = cwd
        self.system_prompt_sections = list(system_prompt_sections)
        self.effective_system_prompt: list[str] | None = None
        """The sections the model got for the current prompt (after before_agent_start)."""
        self.mode_name = mode_name
        self.has_ui = has_ui
        self._run_ending = False
        self.ui = ui or NullUI()
        self.api = shared_api._for_session(self)
        """This session's actions; the runtime's api (handed to registration hooks)
        follows the most recent session."""
        self.plugin_state: dict[str, Any] = {}
        self.runtime: Any = None
        """The omp.runtime.bootstrap.Runtime it was opened from (open_session sets it),
        which child sessions reuse; None for a session built another way."""
        self.resources = no_resources(cwd)
        """What resources_discover found (omp.runtime.resources)."""
        self.subscribers: list[Subscriber] = []
        self.next_turn: list[Any] = []
        self.shutdown_requested = False
        self.abort_message: str | None = None
        self.hook_failures: dict[tuple[str, str], int] = {}
        """(plugin, hook) -> how many times that handler failed (omp.agent.events'
        ExtensionErrorEvent.occurrence)."""
        self.startup_notices: list[str] = []
        self.scoped_models: list[Model] = []
        """The models Ctrl+P cycles through (``--models`` / ``enabledModels``; empty:
        every available model)."""
        from omp.session.artifacts import ArtifactStore, FileLedger

        folder = session_file.path.with_suffix("") / "artifacts" if session_file.path else None
        self.artifacts = ArtifactStore(folder)
        self.file_reads = FileLedger()
        """Warnings to announce when the session starts (a model fallback, say)."""
        self.renderers: dict[tuple[str, str], Any] = dict(renderers or {})
        self.shortcuts: dict[str, Any] = dict(shortcuts or {})
        """Key -> omp.plugin.contrib.Shortcut, for interactive modes to bind."""
        from omp.base.files import FileAccess

        self.files = FileAccess()
        """How tools read and write files (omp.base.files); a mode may replace it."""
        self.dispatcher = HookDispatcher(
            pm, self._report_extension_error, HookTimeouts.from_settings(settings)
        )
        self.hooks = Hooks(self.call_hook)
        """The event hooks, one typed method each (omp.plugin.hooks)."""
        self.context = HandlerContext(self)
        self._command_context = CommandContext(self)
        self._tasks: set[asyncio.Future[Any]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self.provider_hooks = ProviderHooks(self)
        """The callbacks of each provider request (before_provider_request, ...)."""
        self.approval: Approver = ToolApproval(self)
        """Whether a tool call may run; a mode may wrap it (ACP asks its client)."""
        self.compaction_session = CompactionSession(self)
        """The session as compaction plugins see it (omp.runtime.compaction)."""
        self.agent = Agent(
            models=models,
            tools=tools,
            model=model,
            emit=self.emit,
            call_hook=self.call_hook,
            tool_context=lambda: self.context,
            settings=LoopSettings(
                steering_mode=settings.get("steeringMode", "one-at-a-time"),
                follow_up_mode=settings.get("followUpMode", "one-at-a-time"),
                interrupt_mode=settings.get("interruptMode", "immediate"),
            ),
            stream_settings=settings.data if hasattr(settings, "data") else {},
            secrets=self.secrets,
            host=SessionHost(self),
        )
        self.agent.thinking_level = thinking_level
        self.commands.setdefault("compact", compact_command())
        restored = restored or session_file.build_context()
        self.agent.messages = list(restored.messages)
        self._restored_model = restored.model
        self._restored_thinking = restored.thinking_level
        if not child:
            shared_api._bind(self)
        self.api._set_flags(flags)

    @property
    def session_file(self) -> SessionFile:
        return self._session_file

    @session_file.setter
    def session_file(self, file: SessionFile) -> None:
        """Every file this session writes (new, resumed, forked) hides its secrets."""
        file.secrets = self.secrets
        self._session_file = file

    @property
    def session_id(self) -> str:
        return self.session_file.session_id

    @property
    def parent_session_id(self) -> str | None:
        """The id of the session that made this one (a subagent's parent), else None."""
        parent = self.session_file.header.get("parentSessionId")
        return parent if isinstance(parent, str) else None

    @property
    def session_depth(self) -> int:
        """0 for a top-level session, 1 for its child sessions, 2 for theirs..."""
        depth = self.session_file.header.get("taskDepth", 0)
        return depth if isinstance(depth, int) and depth > 0 else 0

    # -- events -----------------------------------------------------------------------

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Receive every event in process (sync or async callable); returns unsubscribe."""
        self.subscribers.append(subscriber)
        return lambda: self.subscribers.remove(subscriber)

    async def call_hook(self, hook_name: str, event: Event) -> Any:
        return await self.dispatcher.call(hook_name, event, self.context, self.api)

    async def emit(self, event: Event) -> None:
        """Persist (for message_end), then run the event's hooks, then the subscribers."""
        if isinstance(event, MessageEndEvent):
            self.session_file.append_message(event.message)
        elif event.type in ("agent_start", "agent_end"):
            self._run_ending = event.type == "agent_end"  # the run reads no queue any more
        await self.hooks.emit(event)
        await self._notify(event)

    async def _notify(self, event: Event) -> None:
        for subscriber in list(self.subscribers):
            outcome = subscriber(event)
            if inspect.isawaitable(outcome):
                await outcome

    async def _report_extension_error(self, plugin: str, hook: str, message: str) -> None:
        times = self.hook_failures[plugin, hook] = self.hook_failures.get((plugin, hook), 0) + 1
        await self._notify(
            ExtensionErrorEvent(
                extension_path=plugin_source(self.dispatcher.pm, plugin),
                extension_name=plugin,
                event=hook,
                error=message,
                occurrence=times,
            )
        )

    async def _report_repeated_failures(self) -> None:
        """Modes show a failing handler once; the rest are counted here, at the end."""
        for (plugin, hook), times in self.hook_failures.items():
            if times > 1:
                more = f"{times - 1} more time" + ("s" if times > 2 else "")
                await self.notice(f"plugin {plugin} failed in {hook} {more}", "warning")

    async def notice(self, message: str, level: str = "info") -> None:
        await self._notify(NoticeEvent(level=level, message=message))  # type: ignore[arg-type]

    def post_notice(self, message: str, level: str = "info") -> None:
        """Send a notice event from any thread, without waiting for it."""
        self._on_loop(lambda: self._spawn(self.notice(message, level)))

    def report_plugin_error(self, plugin: str, where: str, error: str) -> None:
        """Report a plugin's failure outside its hooks (a tool's renderer, say) as an
        ``extension_error``, from any thread, without waiting; counted as a hook's is."""
        if self._loop is None or self._loop.is_closed():
            return
        self._on_loop(lambda: self._spawn(self._report_extension_error(plugin, where, error)))

    # -- lifecycle ----------------------------------------------------------------------

    async def start(self) -> None:
        """Announce the session (load warnings, session_start hooks). Idempotent; the
        first prompt starts a session that was not started, so a mode can subscribe
        first and miss nothing."""
        if self._loop is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        for warning in [*self.session_file.load_warnings, *self.startup_notices]:
            await self.notice(warning, "warning")
        model = self.agent.model
        if model is not None and self._restored_model != model.key:
            self.session_file.append_model_change(model.key)
        await self.hooks.session_start(SessionStartEvent())
        await announce_restored(self, self._restored_model, self._restored_thinking)
        await discover_resources(self)

    async def shutdown(self) -> None:
        """End the session; its file is released for other processes to write."""
        if self._loop is None:
            self.session_file.close()
            return
        await self.wait_for_idle()
        await self.hooks.session_shutdown(SessionShutdownEvent())
        await self._report_repeated_failures()
        self.artifacts.cleanup()
        self.session_file.close()

    def abort(self, reason: str | None = None) -> None:
        """Abort the running agent; with a reason, modes report it as the run's failure."""
        if reason:
            self.abort_message = reason
            self.post_notice(reason, "error")
        self.agent.abort()

    def request_shutdown(self) -> None:
        self.shutdown_requested = True
        self.agent.abort()

    async def wait_for_idle(self) -> None:
        while True:
            await self.agent.wait_for_idle()
            pending = [t for t in self._tasks if not t.done()]
            if not pending:
                return
            await asyncio.gather(*pending, return_exceptions=True)

    def _on_loop(self, action: Callable[[], Any]) -> None:
        """Run ``action`` on the session's event loop, from any thread."""
        if self._loop is None:
            raise OmpError("the session has not started")
        if threading.get_ident() == self._loop_thread:
            action()
        else:
            self._loop.call_soon_threadsafe(action)

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- prompting ----------------------------------------------------------------------

    async def prompt(
        self,
        text: str,
        images: list[Any] | None = None,
        source: str = "interactive",
        *,
        literal: bool = False,
    ) -> None:
        """The whole prompt flow: input hooks, slash commands, before_agent_start, run.
        ``literal`` text (an expanded prompt template) is never taken for a ``!``/``$``
        user command or a slash command."""
        await self.start()
        self.abort_message = None
        idle = IdleBuild()
        try:
            outcome = await self.hooks.input(InputEvent(text=text, images=images, source=source))
        finally:
            idle.stop()
        if outcome.handled:
            return
        text, images = outcome.event.text, outcome.event.images
        if not literal and await run_user_command(self, text):
            return
        if text.startswith("/") and not literal:
            name, _, args = text[1:].partition(" ")
            command = self.commands.get(name)
            if command is not None:
                await run_command(self, command, args.strip())
                return
        start = await self.hooks.before_agent_start(
            BeforeAgentStartEvent(
                prompt=text, images=images, system_prompt=list(self.system_prompt_sections)
            ),
        )
        self.effective_system_prompt = list(start.event.system_prompt)
        self.agent.system_prompt = join_system_prompt(start.event.system_prompt)
        service = await service_of(self)
        sent = await service.check_prompt(text) if service is not None else text
        if sent is None:
            return
        content: Any = sent
        if images:
            content = [TextContent(text=sent), *(_image(i) for i in images)]
        messages = [*self.next_turn, UserMessage(content=content)]
        messages += [_custom_message(m) for m in start.added_messages]
        self.next_turn = []
        await self.agent.run(messages)

    def send_message(self, message: Any, deliver_as: str, trigger_turn: bool) -> None:
        custom = _custom_message(message)
        if deliver_as not in ("steer", "followUp", "nextTurn"):
            raise OmpError(f"unknown deliver_as {deliver_as!r}; use steer, followUp or nextTurn")

        def deliver() -> None:
            if deliver_as == "nextTurn":
                self.next_turn.append(custom)
            elif self.agent.is_streaming:
                (self.agent.steer if deliver_as == "steer" else self.agent.queue_follow_up)(custom)
            elif trigger_turn:
                self._spawn(self._run_idle([custom]))
            else:
                self._spawn(self.agent.add_message(custom))

        self._on_loop(deliver)

    def send_user_message(self, content: Any, deliver_as: str | None) -> None:
        def deliver() -> None:
            if self.agent.is_streaming and not self._run_ending:
                message = UserMessage(content=content)
                if deliver_as == "followUp":
                    self.agent.queue_follow_up(message)
                else:
                    self.agent.steer(message)
            else:  # idle, or sent from agent_end (the run reads no queue any more)
                self._spawn(self._prompt_when_idle(content))

        self._on_loop(deliver)

    async def _prompt_when_idle(self, content: Any) -> None:
        """``content`` as the next prompt: its text parts joined, its images attached."""
        await self.agent.wait_for_idle()
        parts = UserMessage(content=content).content
        if isinstance(parts, str):
            await self.prompt(parts, source="extension")
            return
        text = "\n".join(part.text for part in parts if isinstance(part, TextContent))
        images = [part for part in parts if isinstance(part, ImageContent)]
        await self.prompt(text, images or None, source="extension")

    async def _run_idle(self, messages: list[Any]) -> None:
        await self.agent.wait_for_idle()
        if not self.agent.system_prompt:
            self.agent.system_prompt = join_system_prompt(self.system_prompt_sections)
        await self.agent.run(messages)

    def append_entry(self, custom_type: str, data: Any) -> None:
        from omp.agent.tools import json_safe

        self.session_file.append_custom(custom_type, json_safe(data))

    # -- model and thinking ---------------------------------------------------------

    def set_model(self, pattern: str, source: str = "set") -> bool:
        try:
            model = self.models.resolve(pattern)
        except OmpError:
            return False
        if self.models.provider_of(model).unavailable_reason(self.settings.data):
            return False
        previous, self.agent.model = self.agent.model, model
        self.session_file.append_model_change(model.key)
        selected = ModelSelectEvent(model=model, previous_model=previous, source=source)
        self._on_loop(
            lambda: self._spawn(
                self._announce(
                    ModelChangedEvent(model=model.key), self.hooks.model_select(selected)
                )
            )
        )
        return True

    def set_thinking_level(self, level: str, source: str = "set") -> None:
        previous, self.agent.thinking_level = self.agent.thinking_level, level
        self.session_file.append_thinking_level_change(level)
        selected = ThinkingLevelSelectEvent(level=level, previous_level=previous, source=source)
        changed = ThinkingLevelChangedEvent(thinking_level=level)
        self._on_loop(
            lambda: self._spawn(self._announce(changed, self.hooks.thinking_level_select(selected)))
        )

    async def _announce(self, notice: Event, hooks: Awaitable[None]) -> None:
        """Tell subscribers (``notice``), then the hook's plugins."""
        await self._notify(notice)
        await hooks

    async def search(self, kind: str, params: dict[str, Any], on_partial: Any = None) -> Any:
        if kind not in SEARCH_KINDS:
            raise OmpError(f"unknown search kind {kind!r}: grep, find or tree")
        event = SearchEvent(kind=kind, params=params, cwd=self.cwd, on_partial=on_partial)
        outcome = await self.hooks.search(event)
        if outcome is None:
            raise OmpError(
                f"no search backend answered a {kind} search; install one (the "
                "omp-tool-search plugin has a pure-Python backend)"
            )
        return outcome.result

    def usage_totals(self) -> dict[str, Any]:
        """Tokens and dollars of every model response in the conversation, and of the
        subagents its tool results report (omp.agent.usage)."""
        from omp.agent.usage import usage_totals

        return usage_totals(self.agent.messages)

    def context_usage(self) -> dict[str, Any] | None:
        model = self.agent.model
        for message in reversed(self.agent.messages):
            usage = getattr(message, "usage", None)
            if getattr(message, "role", "") == "assistant" and usage is not None:
                tokens = usage.total_tokens or (
                    usage.input + usage.output + usage.cache_read + usage.cache_write
                )
                window = model.context_window if model else 0
                percent = round(100 * tokens / window, 1) if window else None
                return {"tokens": tokens, "context_window": window, "percent": percent}
        return None

    async def compact(self, instructions: str | None = None) -> dict[str, Any]:
        """Compact now (``/compact``, ``ctx.compact()``), safe from anywhere: a running
        agent goes on, with the compacted conversation from its next safe point
        (``Agent.compact``). Returns the compaction; OmpError when it could not be made
        (nothing was written)."""
        if not self.agent.system_prompt:
            self.agent.system_prompt = join_system_prompt(self.system_prompt_sections)
        return await self.agent.compact(instructions or None)

    # -- tree and other sessions (omp.runtime.actions) -----------------------------

    async def new_session(self, parent_session: str | None = None) -> dict[str, Any]:
        return await session_actions.new_session(self, parent_session)

    async def switch_session(self, path: str) -> dict[str, Any]:
        return await session_actions.switch_session(self, path)

    async def fork(self, entry_id: str, position: str = "before") -> dict[str, Any]:
        return await session_actions.fork(self, entry_id, position)

    async def navigate_tree(
        self,
        target_id: str,
        summarize: bool = False,
        label: str | None = None,
        instructions: str | None = None,
    ) -> dict[str, Any]:
        return await session_actions.navigate_tree(self, target_id, summarize, label, instructions)

    async def branch(self, entry_id: str) -> dict[str, bool]:
        decision = await self.hooks.session_before_branch(
            SessionBeforeBranchEvent(entry_id=entry_id)
        )
        if decision is not None and decision.cancel:
            return {"cancelled": True}
        self.session_file.branch(entry_id)
        if not (decision and decision.skip_conversation_restore):
            self.agent.messages = list(self.session_file.build_context().messages)
        path = str(self.session_file.path) if self.session_file.path else None
        await self.hooks.session_branch(SessionBranchEvent(previous_session_file=path))
        return {"cancelled": False}


def _image(value: Any) -> ImageContent:
    return value if isinstance(value, ImageContent) else ImageContent.model_validate(value)


def _custom_message(message: Any) -> CustomMessage:
    if isinstance(message, CustomMessage):
        return message
    if isinstance(message, dict):
        return CustomMessage.model_validate(message)
    raise OmpError(f"a message must be a dict or CustomMessage, not {type(message).__name__}")
