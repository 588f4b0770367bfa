"""The MCP servers of one session: started when it starts, their tools registered as
they become ready, notifications handled, all closed when it ends."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omp_mcp.config import ServerConfig, load_servers
from omp_mcp.connection import Connection
from omp_mcp.deferral import SEARCH_TOOL, DeferredTools
from omp_mcp.oauth import stored_provider
from omp_mcp.tool_cache import CachedTool, ToolCache
from omp_mcp.tools import McpTool

STATE_KEY = "omp-mcp"


def manager_of(ctx: Any) -> McpManager | None:
    return ctx.state.get(STATE_KEY)


class McpManager:
    def __init__(self, ctx: Any, api: Any, session_servers: Sequence[ServerConfig] = ()) -> None:
        """``session_servers``: given to this session (omp_mcp.session_servers); they
        come before configured servers of the same name."""
        self.ctx = ctx
        self.session_servers = list(session_servers)
        self.api = api
        settings = ctx.settings
        self.gate = settings.get("mcp.startupGateMs", 250) / 1000
        self.request_timeout = settings.get("mcp.timeoutMs", 60000) / 1000
        self.max_bytes = settings.get("mcp.resultMaxBytes", 50 * 1024)
        self.deferred = DeferredTools(
            self, settings.get("mcp.toolMode", "auto"), settings.get("mcp.deferThreshold", 40)
        )
        self.import_others = settings.get("mcp.importOtherAgents", True)
        self.connections: dict[str, Connection] = {}
        self.tools: dict[str, McpTool] = {}
        self._watchers: set[asyncio.Task[Any]] = set()
        self._clashes: set[tuple[str, str]] = set()
        self._gate: asyncio.Event | None = None
        self._gate_timer: asyncio.TimerHandle | None = None
        self._waits: dict[asyncio.Future[bool], Connection] = {}
        self.tool_cache = ToolCache(Path(api.agent_dir))
        self._cached: dict[str, list[CachedTool]] = {}
        """Each server's tools as it last listed them, offered if it misses the gate."""
        self.loop = asyncio.get_running_loop()

    def configs(self) -> tuple[list[ServerConfig], list[str]]:
        configured, warnings = load_servers(
            Path(self.ctx.cwd),
            Path(self.api.agent_dir),
            trusted=self.ctx.is_project_trusted,
            import_others=self.import_others,
        )
        given = {s.name for s in self.session_servers}
        return [*self.session_servers, *(s for s in configured if s.name not in given)], warnings

    def start(self, began: float | None = None) -> None:
        """Start every enabled server and the startup gate: servers that answer within
        ``mcp.startupGateMs`` of ``began`` (the event loop's time the session started;
        default now) join before the first prompt (``settled``), the rest join in the
        background. The session's own start-up work goes on meanwhile, so the gate
        overlaps it instead of adding to it."""
        gate_ends = (self.loop.time() if began is None else began) + self.gate
        servers, warnings = self.configs()
        for warning in warnings:
            self.ctx.ui.notify(f"mcp: {warning}", "warning")
        for config in servers:
            if not config.enabled:
                continue
            self.api.secrets.add_all(config.secret_values())
            connection = Connection(
                config,
                request_timeout=self.request_timeout,
                on_notification=self._on_notification,
                auth_factory=self._auth_factory(config),
                on_failure=self._report,
                on_problem=self._problem,
            )
            self.connections[config.name] = connection
            connection.start()
        if self.connections:
            for name, connection in self.connections.items():
                cached = self.tool_cache.get(connection.config)
                if cached:
                    self._cached[name] = cached
            self._gate = asyncio.Event()
            for connection in self.connections.values():
                ready = asyncio.ensure_future(connection.wait_ready())
                ready.add_done_callback(self._joined_in_time)
                self._waits[ready] = connection
            self._gate_timer = self.loop.call_at(gate_ends, self._close_gate)

    async def settled(self) -> None:
        """Return once the startup gate is over: every server either joined or left to
        join in the background. What a prompt waits for before it is read."""
        if self._gate is not None:
            await self._gate.wait()

    def _joined_in_time(self, _ready: asyncio.Future[bool]) -> None:
        if all(ready.done() for ready in self._waits):
            self._close_gate()

    def _close_gate(self) -> None:
        """The gate's end, run straight from the loop (its timer, or the last server
        answering): the prompt waiting on it resumes on the loop's next turn, not after
        a chain of tasks, which matters while the SDK's import holds the interpreter."""
        if self._gate is None or self._gate.is_set():
            return
        if self._gate_timer is not None:
            self._gate_timer.cancel()
        for ready, connection in self._waits.items():
            if ready.done():
                self._joined(connection)
                continue
            self._watch(ready, connection)
            cached = self._cached.get(connection.name)
            if cached:  # offered now; a call waits for the server, which replaces them
                self._sync_tools(connection, cached)
        self.deferred.apply()
        self._gate.set()

    def _auth_factory(self, config: ServerConfig) -> Any:
        if config.transport == "stdio":
            return None
        agent_dir = Path(self.api.agent_dir)
        return lambda: stored_provider(config, agent_dir)

    def _watch(self, future: asyncio.Future[Any], connection: Connection) -> None:
        async def join() -> None:
            await future
            self._joined(connection)
            self.deferred.apply()

        task = asyncio.ensure_future(join())
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    def _joined(self, connection: Connection) -> None:
        if connection.state == "ready":
            self.tool_cache.put(connection.config, connection.tools)
            self._sync_tools(connection)
            self._register_prompts(connection)
        elif connection.error:
            self._report(connection)

    def _report(self, connection: Connection) -> None:
        """Say once (per failure) why a server is not there (a call that only timed
        out is no failure: its error says so, and the server is checked)."""
        if connection.crash_reported or not connection.error:
            return
        connection.crash_reported = True
        self.ctx.ui.notify(f"mcp: server {connection.name} failed: {connection.error}", "warning")

    def _problem(self, connection: Connection, line: str) -> None:
        self.ctx.ui.notify(f"mcp: server {connection.name}: {line}", "warning")

    def _sync_tools(self, connection: Connection, listed: list[Any] | None = None) -> None:
        """Register ``listed`` (default: what the server listed) as the server's tools,
        replacing the ones it had."""
        wanted: dict[str, McpTool] = {}
        others = {
            n: t.connection.name for n, t in self.tools.items() if t.connection is not connection
        }
        clashes: dict[str, str] = {}
        for remote in connection.tools if listed is None else listed:
            tool = McpTool(connection, remote, max_bytes=self.max_bytes, on_call=self._report)
            holder = others.get(tool.name) or (connection.name if tool.name in wanted else None)
            if holder is None:
                wanted[tool.name] = tool
            elif (connection.name, tool.name) not in self._clashes:
                clashes[tool.name] = holder
        if clashes:
            # Names differing only in characters providers refuse, or cut at 64.
            self._clashes |= {(connection.name, name) for name in clashes}
            holders = ", ".join(sorted(set(clashes.values())))
            self.ctx.ui.notify(
                f"mcp: {len(clashes)} tool(s) of server {connection.name} have the names of "
                f"tools of {holders} ({', '.join(sorted(clashes))}); only those are offered",
                "warning",
            )
        for name in [n for n, t in self.tools.items() if t.connection is connection]:
            if name not in wanted:
                self.api.unregister_tool(name)
                del self.tools[name]
        for name, tool in wanted.items():
            if name in self.tools:
                self.api.unregister_tool(name)
            self.api.register_tool(tool)
            self.tools[name] = tool

    def _register_prompts(self, connection: Connection) -> None:
        from omp_mcp.prompts import prompt_command

        existing = set(self.api.get_commands())
        offered = set()
        for prompt in connection.prompts:
            command = prompt_command(connection, prompt)
            offered.add(command.name)
            if command.name not in existing:
                self.api.register_command(command)
                connection.commands.add(command.name)
        for gone in connection.commands - offered:
            self.api.unregister_command(gone)
        connection.commands &= offered

    async def _on_notification(self, connection: Connection, message: Any) -> None:
        method = getattr(message, "method", "") or ""
        params = getattr(message, "params", None)
        payload = params.model_dump(mode="json", by_alias=True, exclude_none=True) if params else {}
        task = asyncio.ensure_future(self._handle(connection, method, payload))
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)
        connection.track(task)

    async def _handle(self, connection: Connection, method: str, params: dict[str, Any]) -> None:
        from omp import McpNotificationEvent

        if method.endswith("/list_changed") and connection.state == "ready":
            try:
                await connection.refresh()
            except Exception as exc:
                error = connection.config.redact(str(exc))
                self.ctx.ui.notify(
                    f"mcp: could not list {connection.name} again: {error}", "warning"
                )
            if "tools" in method:
                self.tool_cache.put(connection.config, connection.tools)
                self._sync_tools(connection)
                self.deferred.apply()
            if "prompts" in method:
                self._register_prompts(connection)
        await self.api.emit(
            McpNotificationEvent(server=connection.name, method=method, params=params)
        )

    async def close(self) -> None:
        if self._gate is not None:
            self._gate.set()  # ended here: no server joins any more
        if self._gate_timer is not None:
            self._gate_timer.cancel()
        for ready in self._waits:
            ready.cancel()
        for task in list(self._watchers):
            task.cancel()
        await asyncio.gather(*(c.close() for c in self.connections.values()))


__all__ = ["SEARCH_TOOL", "McpManager", "manager_of"]
