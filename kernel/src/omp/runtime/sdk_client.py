"""What a client in front of a session reads and does besides prompting (a terminal UI's
footer, pickers, shortcuts and queue): members of the public ``omp.AgentSession``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from omp.agent.messages import AgentMessage
    from omp.agent.providers import Model
    from omp.base.thinking import ThinkingLevel
    from omp.config.settings import Settings
    from omp.plugin.contrib import Renderer, Shortcut
    from omp.runtime.context import HandlerContext
    from omp.runtime.session import AgentSession as RuntimeSession
    from omp.session.file import SessionView


class ClientMembers:
    """Mixed into ``omp.AgentSession``: the session's settings, file view, context
    usage, plugin contributions a client draws or binds, and its message queue."""

    _session: RuntimeSession

    @property
    def settings(self) -> Settings:
        """The merged settings (user, project, command line) the session runs with: read
        them with ``settings.get(key, default)``; change one for good with
        ``omp.save_setting``."""
        return self._session.settings

    @property
    def agent_dir(self) -> Path | None:
        """The agent directory (``~/.omp/agent`` or ``$OMP_CODING_AGENT_DIR``); None for a
        session built without one."""
        found = self._session.api.agent_dir
        return Path(found) if found is not None else None

    @property
    def session_view(self) -> SessionView:
        """The session file, read-only (entries, the current branch, its name), as
        handlers see it as ``ctx.session``; it follows ``new``, ``switch`` and ``fork``."""
        return self._session.session_view

    def context_usage(self) -> dict[str, Any] | None:
        """``tokens`` of the last answer against the model's ``context_window``, and the
        ``percent`` used (None when the window is unknown); None before any answer."""
        return self._session.context_usage()

    @property
    def context(self) -> HandlerContext:
        """What plugins' handlers get as ``ctx``: for a client that calls one itself (a
        keyboard shortcut's handler) or uses a service they use (``search``)."""
        return self._session.context

    @property
    def shortcuts(self) -> list[Shortcut]:
        """The keyboard shortcuts plugins registered, in their order: a terminal client
        binds them and calls ``handler(context)``."""
        return list(self._session.shortcuts.values())

    @property
    def renderers(self) -> Mapping[tuple[str, str], Renderer]:
        """Every renderer plugins registered, by ``(kind, name)`` (read-only; see
        ``renderer``)."""
        return MappingProxyType(self._session.renderers)

    @property
    def scoped_models(self) -> list[Model]:
        """The models a client cycles through (``--models``, ``enabledModels``); empty
        when every usable model is in the cycle."""
        return list(self._session.scoped_models)

    @property
    def shutdown_requested(self) -> bool:
        """Whether a plugin asked the session to end (``ctx.shutdown()``): a client ends
        once the running prompt is over."""
        return self._session.shutdown_requested

    @property
    def queued_messages(self) -> list[AgentMessage]:
        """The steering messages, then the follow-ups, not delivered yet (a copy)."""
        agent = self._session.agent
        return [*agent.steering, *agent.follow_up]

    def clear_queue(self) -> list[AgentMessage]:
        """Take back the steering and follow-up messages not delivered yet (steering
        first), leaving the queue empty: a client puts a stopped run's unsent messages
        back in its editor."""
        taken = self.queued_messages
        agent = self._session.agent
        agent.steering.clear()
        agent.follow_up.clear()
        return taken

    def cycle_thinking_level(self) -> ThinkingLevel | None:
        """Go to the next thinking level the model offers (``omp.next_thinking_level``;
        every level when the model is unknown), as Shift+Tab does; the new level, or
        None (nothing changed) when there is no other."""
        from omp.base.thinking import next_thinking_level

        agent = self._session.agent
        level = next_thinking_level(agent.model, agent.thinking_level)
        if level is not None:
            self._session.set_thinking_level(level, source="cycle")
        return cast("ThinkingLevel | None", level)
