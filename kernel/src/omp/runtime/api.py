"""The runtime actions plugins call: ``api`` in every hook.

The object exists from the moment plugins load (registration hooks receive it), but
its actions need a running session; called earlier they raise RuntimeNotReadyError.
Actions are plain functions, safe to call from sync or async handlers and from a
tool's worker thread; ``exec`` is the one coroutine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from omp.base.errors import OmpError, RuntimeNotReadyError
from omp.base.thinking import THINKING_LEVELS
from omp.config.secrets import Secrets
from omp.runtime.scope import Scope, check_scope

if TYPE_CHECKING:
    import logging

    from omp.agent.tools import Tool
    from omp.plugin.contrib import Command
    from omp.runtime.session import AgentSession

DeliverAs = Literal["steer", "followUp", "nextTurn"]


@dataclass
class ExecResult:
    stdout: str
    stderr: str
    code: int | None
    killed: bool


class EventBus:
    """A channel-keyed bus for plugins to talk to each other without importing each other."""

    def __init__(self, report: Callable[[str, BaseException], None] | None = None) -> None:
        self._handlers: dict[str, list[Callable[[Any], Any]]] = {}
        self._report = report

    def on(self, channel: str, handler: Callable[[Any], Any]) -> Callable[[], None]:
        self._handlers.setdefault(channel, []).append(handler)
        return lambda: self._handlers.get(channel, []).remove(handler)

    def emit(self, channel: str, data: Any = None) -> None:
        for handler in list(self._handlers.get(channel, [])):
            try:
                handler(data)
            except Exception as exc:
                if self._report is None:
                    raise
                self._report(channel, exc)


class OmpAPI:
    """Runtime actions: messages, session entries, flags, tools, model, thinking, exec."""

    def __init__(self, cwd: Any = None, agent_dir: Any = None) -> None:
        self.cwd = cwd
        """The working directory (a Path), known while plugins load."""
        self.agent_dir = agent_dir
        """The agent directory (~/.omp/agent or $OMP_CODING_AGENT_DIR), a Path."""
        self._session: AgentSession | None = None
        self._flags: dict[str, Any] | None = None
        self.events = EventBus(self._report_bus_error)
        self.secrets = Secrets()
        """The credential values omp hides (omp.config.secrets), shared by every session."""
        self.process_state: dict[str, Any] = {}
        """Plugin state of the process, shared by every session it runs and kept when
        a session is replaced (caches, connections): key it by your plugin's name.
        What belongs to one conversation goes in ``ctx.state`` instead. Usable while
        plugins load."""

    def _bind(self, session: AgentSession) -> None:
        self._session = session

    def _for_session(self, session: AgentSession) -> OmpAPI:
        """An api bound to one session, sharing this one's event bus and flags: two
        sessions in one process each act on their own conversation."""
        bound = OmpAPI(self.cwd, self.agent_dir)
        bound.events, bound._flags = self.events, self._flags
        bound.secrets, bound.process_state = self.secrets, self.process_state
        bound._bind(session)
        return bound

    @property
    def logger(self) -> logging.Logger:
        """The ``omp.plugins`` logger, for a plugin's own messages."""
        import logging  # on first use: most runs never log (omp --help builds an api)

        return logging.getLogger("omp.plugins")

    def _set_flags(self, values: dict[str, Any]) -> None:
        self._flags = dict(values)

    def _require(self, action: str) -> AgentSession:
        if self._session is None:
            raise RuntimeNotReadyError(
                f"api.{action}() cannot be called while plugins are loading; call it from "
                "an event hook, a command or a tool"
            )
        return self._session

    def _report_bus_error(self, channel: str, exc: BaseException) -> None:
        self.logger.error("event bus handler for %r failed: %s", channel, exc)

    # -- messages -----------------------------------------------------------------

    def send_message(
        self, message: Any, *, deliver_as: DeliverAs = "steer", trigger_turn: bool = False
    ) -> None:
        """Add a custom message (``{"custom_type", "content", "display", "details"}`` or a
        CustomMessage). While the agent runs, ``steer`` delivers it after the current
        tool and ``followUp`` when the model would stop; ``nextTurn`` holds it for the
        next user prompt. When idle, ``trigger_turn`` starts a run with it."""
        self._require("send_message").send_message(message, deliver_as, trigger_turn)

    def send_user_message(self, content: Any, *, deliver_as: DeliverAs | None = None) -> None:
        """Send text as if the user typed it: while the agent runs it is queued (steer by
        default); when idle - or sent from an agent_end handler - it goes through the
        whole prompt flow (once the run is over)."""
        self._require("send_user_message").send_user_message(content, deliver_as)

    def append_entry(self, custom_type: str, data: Any = None) -> None:
        """Write a ``custom`` entry to the session (plugin state; never sent to a model)."""
        self._require("append_entry").append_entry(custom_type, data)

    def set_session_name(self, name: str) -> None:
        """Name the session (pi's ``setSessionName``), as ``/name`` does: written as a
        ``session_info`` entry, shown by listings and ``/resume``. Whitespace runs
        become one space; an empty name is an OmpError."""
        from omp.runtime.actions import set_session_name

        set_session_name(self._require("set_session_name"), name)

    def get_session_name(self) -> str | None:
        """The session's name (the latest given), or None (pi's ``getSessionName``)."""
        return self._require("get_session_name").session_file.name

    # -- secrets ----------------------------------------------------------------------

    def register_secret(self, value: str, label: str) -> None:
        """Hide ``value`` (a credential your plugin knows, such as a server's token) as
        ``[REDACTED:label]`` in tool results, events, session files and exports. Callable
        at any time, while plugins load included; values under 8 characters are ignored."""
        self.secrets.add(value, label)

    def child_env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """The environment for a process started for the model or the user: ``base``
        (default: omp's own) without omp's provider keys unless ``bash.passProviderKeys``."""
        return self.secrets.child_env(base)

    # -- flags, tools, model ----------------------------------------------------------

    def get_flag(self, name: str) -> Any:
        """A flag's value (plugin or built-in, named without dashes); available once the
        command line is parsed, which is before providers are asked about models."""
        if self._flags is None:
            self._require("get_flag")
        return (self._flags or {}).get(name.lstrip("-"))

    def get_active_tools(self) -> list[str]:
        return self._require("get_active_tools").tools.active_names()

    def get_all_tools(self) -> list[dict[str, str]]:
        tools = self._require("get_all_tools").tools.all()
        return [{"name": t.name, "label": t.label, "description": t.description} for t in tools]

    def set_active_tools(self, names: list[str]) -> None:
        self._require("set_active_tools").tools.set_active(names)

    def get_tool(self, name: str, *, overridden: bool = False) -> Tool | None:
        """The tool the model calls as ``name`` (None: no such tool). With
        ``overridden=True``, the tool that a declared override of that name
        (``Tool(overrides=name)``) replaced, so the override can delegate to it:
        ``ctx.api.get_tool("read", overridden=True).execute(...)``."""
        tools = self._require("get_tool").tools
        return tools.overridden(name) if overridden else tools.get(name)

    def register_tool(self, tool: Tool, *, scope: Scope = "session") -> None:
        """Add an ``omp.agent.tools.Tool`` to this session; the next model request sees it,
        and hooks see its calls like any tool's. With ``scope="session"`` it is dropped
        when the session ends (a new, resumed or forked one replaces it); ``"process"``
        keeps it, as tools from ``omp_register_tools`` are kept."""
        from omp.agent.tools import Tool

        if not isinstance(tool, Tool):
            raise OmpError(f"register_tool takes an omp.Tool, not {type(tool).__name__}")
        check_scope(scope)
        session = self._require("register_tool")
        session.tools.register(tool)
        session.session_scoped.track("tools", tool.name, scope)

    def unregister_tool(self, name: str) -> None:
        session = self._require("unregister_tool")
        session.tools.unregister(name)
        session.session_scoped.forget("tools", name)

    def register_command(self, command: Command, *, scope: Scope = "session") -> None:
        """Add an ``omp.plugin.contrib.Command`` to this session (a slash command known only
        once the session runs); a name already taken is an error. ``scope`` as for
        ``register_tool``."""
        from omp.plugin.contrib import Command

        if not isinstance(command, Command):
            raise OmpError(f"register_command takes an omp.plugin.contrib.Command, not {command!r}")
        check_scope(scope)
        session = self._require("register_command")
        if command.name in session.commands:
            raise OmpError(f"a command named /{command.name} is already registered")
        session.commands[command.name] = command
        session.session_commands.add(command.name)
        session.session_scoped.track("commands", command.name, scope)

    def unregister_command(self, name: str) -> None:
        """Remove a slash command registered with ``register_command`` (an MCP server
        that drops a prompt, say); a name no plugin registered that way is an error."""
        runtime = self._require("unregister_command")
        if name not in runtime.commands:
            raise OmpError(f"no command named /{name} is registered")
        if name not in runtime.session_commands:
            raise OmpError(f"/{name} was not registered with register_command")
        del runtime.commands[name]
        runtime.session_commands.remove(name)
        runtime.session_scoped.forget("commands", name)

    async def emit(self, event: Any) -> None:
        """Send an ``omp.agent.events`` event from a plugin: every plugin's ``omp_<type>`` hook
        runs (by its combination rule), then the session's subscribers (the json mode
        writes it). Call it on the session's event loop."""
        from omp.agent.events import Event, MessageEndEvent

        if not isinstance(event, Event) or isinstance(event, MessageEndEvent):
            raise OmpError(f"emit takes an event from omp.agent.events, not {type(event).__name__}")
        await self._require("emit").emit(event)

    def get_commands(self) -> list[str]:
        return sorted(self._require("get_commands").commands)

    def set_model(self, model: str) -> bool:
        """Switch to ``provider/id`` (or any pattern --model accepts); False if unusable."""
        return self._require("set_model").set_model(model)

    def get_thinking_level(self) -> str:
        return self._require("get_thinking_level").agent.thinking_level

    def set_thinking_level(self, level: str) -> None:
        if level not in THINKING_LEVELS:
            raise OmpError(
                f"unknown thinking level {level!r}; use one of " + ", ".join(THINKING_LEVELS)
            )
        self._require("set_thinking_level").set_thinking_level(level)

    # -- processes --------------------------------------------------------------------

    async def exec(
        self,
        command: str,
        args: list[str] | None = None,
        *,
        cwd: str | None = None,
        timeout: float | None = None,
    ) -> ExecResult:
        """Run a program (no shell) and collect its output; killed after ``timeout`` s.
        It gets omp's environment without the provider keys (see ``child_env``)."""
        import asyncio
        import os
        import signal

        from omp.base.processes import track_group, untrack_group

        session = self._require("exec")
        proc = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd or session.cwd,
            env=self.child_env(),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        track_group(proc.pid)
        killed = False
        try:
            out, err = await asyncio.wait_for(proc.communicate(), timeout)
        except (TimeoutError, asyncio.CancelledError) as exc:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            if isinstance(exc, asyncio.CancelledError):
                raise
            killed = True
            out, err = await proc.communicate()
        finally:
            untrack_group(proc.pid)
        return ExecResult(
            out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), proc.returncode, killed
        )
