"""The ACP agent: the SDK's ``acp.Agent`` interface over omp sessions, several at once
on one connection. Each session is built for its cwd with ``omp.create_session``, as
the CLI builds one with the flags omp was started with."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import PROTOCOL_VERSION, RequestError, schema

from omp_mode_acp.session import AcpSession

if TYPE_CHECKING:
    from omp import AgentSession

SESSION_SERVERS_KEY = "omp-mcp.session-servers"
"""Where the MCP plugin takes servers given to one session (omp_mcp.session_servers);
a string, so this plugin works without the MCP plugin installed."""


@dataclass
class ServerConfig:
    """What the command line gave: the CLI's flag values (model, thinking, tools,
    --script, ...), whether project code may load (``--trust``) and the ``-e``
    extensions, absolute (a session's directory is not the one omp started in; the CLI
    checked them before plugins loaded)."""

    flags: dict[str, Any] = field(default_factory=dict)
    trust: bool = False
    extension_paths: list[Path] = field(default_factory=list)

    @classmethod
    def from_flags(cls, flags: dict[str, Any]) -> ServerConfig:
        paths = [Path(p).expanduser().absolute() for p in flags.get("extension") or []]
        return cls(flags=dict(flags), trust=bool(flags.get("trust")), extension_paths=paths)


async def _build(config: ServerConfig, cwd: str, resume: str | None) -> AgentSession:
    """A session (not started) for ``cwd``; ``resume``: a saved session's id."""
    from omp import OmpError, create_session

    folder = Path(cwd)
    if not folder.is_absolute() or not folder.is_dir():
        raise RequestError.invalid_params({"cwd": f"{cwd} is not an absolute directory"})
    flags = dict(config.flags)
    if os.environ.get("OMP_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        flags["offline"] = True
    try:
        return await create_session(
            cwd=folder,
            cli_flags=flags,
            session=resume or "new",
            trust=config.trust,
            extensions=config.extension_paths,
            discover_extensions=not flags.get("no-extensions"),
            plugins=[] if flags.get("no-plugins") else None,
            mode="acp",
        )
    except OmpError as exc:
        raise RequestError.invalid_params({"details": str(exc)}) from None


def _mcp_plugin() -> bool:
    """Whether the MCP plugin is installed: it connects http and sse servers (ACP lets an
    editor pass those only to an agent that says so; stdio servers always)."""
    from importlib.util import find_spec

    return find_spec("omp_mcp") is not None


def _server_entry(server: Any) -> dict[str, Any]:
    """An ACP ``McpServer`` (stdio, http or sse) as a server entry for the MCP plugin."""
    if hasattr(server, "model_dump"):
        return server.model_dump(by_alias=True, exclude_none=True)
    return dict(server)


class OmpAgent:
    """Implements ``acp.interfaces.Agent``."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.conn: Any = None
        self.client_caps: Any = None
        self.sessions: dict[str, AcpSession] = {}
        self.redactors: list[Callable[[bytes], bytes]] = []
        """The transport's: each session opened adds its secrets' redactor."""

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: Any = None,
        client_info: Any = None,
        **kwargs: Any,
    ) -> schema.InitializeResponse:
        from omp import __version__

        self.client_caps = client_capabilities
        return schema.InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=schema.AgentCapabilities(
                load_session=True,
                prompt_capabilities=schema.PromptCapabilities(image=True, embedded_context=True),
                mcp_capabilities=schema.McpCapabilities(http=_mcp_plugin(), sse=_mcp_plugin()),
            ),
            agent_info=schema.Implementation(name="omp", title="omp", version=__version__),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None

    async def _open(self, cwd: str, resume: str | None, mcp_servers: Any) -> AcpSession:
        session = await _build(self.config, cwd, resume)
        self.redactors.append(session.redact_bytes)
        if mcp_servers:
            session.state[SESSION_SERVERS_KEY] = [_server_entry(s) for s in mcp_servers]
        acp_session = AcpSession(self.conn, session, self.client_caps)
        self.sessions[acp_session.id] = acp_session
        return acp_session

    @staticmethod
    def _report_unconnected(acp_session: AcpSession) -> None:
        """The MCP plugin takes the servers when the session starts; left there, no
        plugin did (it is not installed or disabled)."""
        left = acp_session.session.state.pop(SESSION_SERVERS_KEY, None)
        if left:
            names = ", ".join(str(s.get("name", "?")) for s in left)
            print(
                f"omp: MCP servers passed by the client need the MCP plugin (omp-mcp), "
                f"which is not loaded; not connected: {names}",
                file=sys.stderr,
                flush=True,
            )

    async def new_session(
        self, cwd: str, mcp_servers: Any = None, **kwargs: Any
    ) -> schema.NewSessionResponse:
        acp_session = await self._open(cwd, None, mcp_servers)
        await acp_session.start()
        self._report_unconnected(acp_session)
        return schema.NewSessionResponse(
            session_id=acp_session.id,
            modes=acp_session.modes(),
            config_options=acp_session.config_options(),
        )

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **kwargs: Any
    ) -> schema.LoadSessionResponse:
        previous = self.sessions.pop(session_id, None)
        if previous is not None:
            await previous.close()
            with contextlib.suppress(ValueError):  # its replacement brings its own
                self.redactors.remove(previous.session.redact_bytes)
        acp_session = await self._open(cwd, session_id, mcp_servers)
        await acp_session.replay()
        await acp_session.start()
        self._report_unconnected(acp_session)
        return schema.LoadSessionResponse(
            modes=acp_session.modes(), config_options=acp_session.config_options()
        )

    def _session(self, session_id: str) -> AcpSession:
        found = self.sessions.get(session_id)
        if found is None:
            raise RequestError.invalid_params({"sessionId": f"no session {session_id!r}"})
        return found

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> Any:
        stop = await self._session(session_id).prompt(prompt)
        return schema.PromptResponse(stop_reason=stop)  # type: ignore[arg-type]

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        found = self.sessions.get(session_id)
        if found is not None:
            found.cancel()

    async def set_session_mode(self, mode_id: str, session_id: str, **kwargs: Any) -> Any:
        acp_session = self._session(session_id)
        acp_session.set_mode(mode_id)
        await acp_session.send(acp_session.mode_update())
        return schema.SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: Any, **kwargs: Any
    ) -> Any:
        acp_session = self._session(session_id)
        await acp_session.set_option(config_id, value)
        return schema.SetSessionConfigOptionResponse(config_options=acp_session.config_options())

    async def close(self) -> None:
        for acp_session in list(self.sessions.values()):
            await acp_session.close()
        self.sessions.clear()
