"""The context handed to every hook handler and tool (``ctx``), and the richer one
command handlers get."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import os
    from collections.abc import Mapping, Sequence

    from omp.agent.events import Event, SubagentSpawnDecision, SubagentSpawnEvent
    from omp.agent.providers import Model, ModelRegistry
    from omp.agent.tools import Tool
    from omp.base.files import FileAccess
    from omp.config.settings import Settings
    from omp.runtime.api import OmpAPI
    from omp.runtime.sdk_session import AgentSession as PublicSession
    from omp.runtime.session import AgentSession
    from omp.runtime.ui import UI
    from omp.session.artifacts import ArtifactStore, FileLedger
    from omp.session.file import SessionView


class HandlerContext:
    """What a handler may look at and control in the running session."""

    def __init__(self, session: AgentSession) -> None:
        self._session = session

    @property
    def ui(self) -> UI:
        """Dialogs and decorations of the mode's user interface (``omp.UI``); without one,
        dialogs answer their default at once (``has_ui`` tells)."""
        return self._session.ui

    @property
    def has_ui(self) -> bool:
        return self._session.has_ui

    @property
    def mode(self) -> str:
        return self._session.mode_name

    @property
    def cwd(self) -> str:
        return self._session.cwd

    @property
    def session_id(self) -> str:
        return self._session.session_id

    @property
    def parent_session_id(self) -> str | None:
        """The id of the session that made this one (``create_child_session``), else None."""
        return self._session.parent_session_id

    @property
    def session_depth(self) -> int:
        """0 in a top-level session, 1 in its child sessions, 2 in theirs..."""
        return self._session.session_depth

    async def create_child_session(
        self,
        *,
        name: str,
        system_prompt: str | None = None,
        append_system_prompt: str | None = None,
        tools: Sequence[str] | None = None,
        extra_tools: Sequence[Tool] = (),
        model: str | None = None,
        thinking_level: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        session_init: Mapping[str, Any] | None = None,
    ) -> PublicSession:
        """A child session (a subagent) of this one, started, in this process with the
        same plugins and no UI; prompt it, then ``dispose()`` it. Its file is
        ``<this session's file without .jsonl>/<name>.jsonl`` (in memory when this
        session is). ``tools`` (each active here; None: all of these) and
        ``extra_tools`` (registered for it alone) are its active tools; the system
        prompt is replaced or appended to as ``--system-prompt`` and
        ``--append-system-prompt`` do; ``model`` (a pattern, ``:level`` suffix allowed),
        ``thinking_level`` and ``cwd`` default to this session's. ``session_init``
        fields go into its ``session_init`` entry (with systemPrompt, tools,
        resolvedModel, thinkingLevel) and omp_session_init event. OmpError for a tool
        not active here, an unknown model or a name taken."""
        from omp.runtime.sdk_child import create_child_session
        from omp.runtime.sdk_session import AgentSession as PublicSession

        child = await create_child_session(
            self._session,
            name=name,
            system_prompt=system_prompt,
            append_system_prompt=append_system_prompt,
            tools=tools,
            extra_tools=extra_tools,
            model=model,
            thinking_level=thinking_level,
            cwd=cwd,
            session_init=session_init,
        )
        return PublicSession(child)

    async def subagent_spawn(self, event: SubagentSpawnEvent) -> SubagentSpawnDecision | None:
        """Ask the plugins whether a child session may start (omp_subagent_spawn): None
        lets it start as it is; a decision with ``block`` stops it (``reason`` says
        why), else its ``task``, ``model`` and ``tools`` that are not None replace the
        event's."""
        return await self._session.hooks.subagent_spawn(event)

    async def announce(self, event: Event) -> None:
        """Hand ``event`` (a SubagentProgressEvent, say) to this session's subscribers -
        the run mode - without running hooks or writing it to the session."""
        await self._session._notify(event)

    @property
    def session(self) -> SessionView:
        """A read-only view of the session (entries, branch, context)."""
        return self._session.session_view

    @property
    def model_registry(self) -> ModelRegistry:
        """Every model the installed providers offer, and which provider serves each."""
        return self._session.models

    @property
    def model(self) -> Model | None:
        """The model the next request goes to (None before one is chosen)."""
        return self._session.agent.model

    @property
    def settings(self) -> Settings:
        """The merged settings (user, project, CLI, environment) of this session."""
        return self._session.settings

    @property
    def api(self) -> OmpAPI:
        """This session's runtime actions (``omp.runtime.api.OmpAPI``), for tools and anything
        that has ``ctx`` but was not handed ``api``."""
        return self._session.api

    @property
    def state(self) -> dict[str, Any]:
        """Plugin state that belongs to this session, never to the process: key it by
        your plugin's name (``ctx.state.setdefault("my-plugin", MyState())``). Two
        sessions in one process never see each other's entries, and a new, resumed or
        forked session starts with an empty one (rebuild it in ``session_start``);
        branching and tree navigation keep it. What must outlive a session goes in
        ``ctx.api.process_state`` (see omp.runtime.scope)."""
        return self._session.plugin_state

    @property
    def is_project_trusted(self) -> bool:
        """Whether the user trusts this project directory (its extensions and full
        settings loaded); a plugin that reads project files to run them checks this."""
        return bool(self._session.settings.trust.trusted)

    @property
    def artifacts(self) -> ArtifactStore:
        """Spill large outputs, read ``artifact://ID``."""
        return self._session.artifacts

    @property
    def file_reads(self) -> FileLedger:
        """What the model last read of each file."""
        return self._session.file_reads

    @property
    def files(self) -> FileAccess:
        """Ask it before reading or writing a user's file (an
        editor client may hold unsaved text); None/False means use the disk."""
        return self._session.files

    async def search(self, kind: str, *, on_partial: Any = None, **params: Any) -> Any:
        """Run a grep/find/tree search through the omp_search hook (the first backend
        that answers wins); OmpError when no backend is installed. ``on_partial``: see
        SearchEvent."""
        return await self._session.search(kind, params, on_partial)

    def get_context_usage(self) -> dict[str, Any] | None:
        """Tokens of the last model response against the model's window, or None."""
        return self._session.context_usage()

    def get_system_prompt(self) -> list[str]:
        """The system prompt's sections as the model gets them for the current prompt
        (before_agent_start changes included)."""
        session = self._session
        return list(session.effective_system_prompt or session.system_prompt_sections)

    def is_idle(self) -> bool:
        return not self._session.agent.is_streaming

    def set_session_name(self, name: str) -> str:
        """Name this session (as ``/name``, ``api.set_session_name``); listings and
        ``/resume`` show the name. Returns it as stored (whitespace runs collapsed);
        an empty name is an OmpError."""
        from omp.runtime.actions import set_session_name

        return set_session_name(self._session, name)

    def get_session_name(self) -> str | None:
        """This session's name, or None when it has none."""
        return self._session.session_file.name

    async def compact(self, instructions: str | None = None) -> dict[str, Any]:
        """Summarise the older conversation now (``/compact``). Safe to await from
        anywhere (an event hook, a tool, a command, another task): a running agent goes
        on, and sends the compacted conversation from its next request. Returns summary,
        first_kept_entry_id, tokens_before and tokens_after; OmpError when nothing
        could be compacted (nothing is written)."""
        return await self._session.compact(instructions)

    def abort(self, reason: str | None = None) -> None:
        """Stop the run. A ``reason`` is shown to the user as why the run stopped and
        makes one-shot modes exit non-zero."""
        self._session.abort(reason)

    def has_pending_messages(self) -> bool:
        return self._session.agent.has_pending()

    def shutdown(self) -> None:
        """Ask the mode to end the session once the current work stops."""
        self._session.request_shutdown()


class CommandContext(HandlerContext):
    """For slash-command handlers: can also wait for the agent, move in the tree and
    replace the session. Each action returns ``{"cancelled": bool}`` (a plugin's
    before-event may cancel it) and refuses while the agent runs."""

    async def wait_for_idle(self) -> None:
        await self._session.wait_for_idle()

    async def branch(self, entry_id: str) -> dict[str, bool]:
        return await self._session.branch(entry_id)

    async def new_session(self, parent_session: str | None = None) -> dict[str, Any]:
        """Start an empty session; ``parent_session`` (a path) goes into its header."""
        return await self._session.new_session(parent_session)

    async def switch_session(self, path: str) -> dict[str, Any]:
        """Make another session file current (omp's ``/resume``)."""
        return await self._session.switch_session(path)

    async def fork(self, entry_id: str, position: str = "before") -> dict[str, Any]:
        """A new session holding the path to ``entry_id`` - ``before`` it (a user
        message's text comes back as ``editor_text``) or ``at`` it."""
        return await self._session.fork(entry_id, position)

    async def navigate_tree(
        self,
        target_id: str,
        summarize: bool = False,
        label: str | None = None,
        instructions: str | None = None,
    ) -> dict[str, Any]:
        """Move to another point of the tree; with ``summarize`` the branch left is
        summarised (by a plugin, else by the model, with ``instructions``)."""
        return await self._session.navigate_tree(target_id, summarize, label, instructions)

    async def prompt(self, text: str, *, literal: bool = False) -> None:
        """Run a prompt as if the user typed it (after the command returns control);
        ``literal`` text goes to the model as it is, never run as a ``!``/``$`` user
        command or a slash command."""
        await self._session.prompt(text, source="extension", literal=literal)
