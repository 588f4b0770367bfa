"""One MCP server: its transport and client session (the official SDK), kept open in a
task on the session's event loop, with its stderr tail, its crash and restart.

A call that times out is cancelled at the server by the SDK (``notifications/cancelled``);
the server is then pinged, and restarted when it does not answer that either, so the
next call goes to a server that answers instead of waiting out the timeout again.

A stdio server runs in its own process group, tracked in ``omp.base.processes`` so that when
omp is told to stop the group dies with it; the SDK closes it on a normal exit.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any

from omp import track_process_group, untrack_process_group

from omp_mcp.config import ServerConfig
from omp_mcp.errors import describe_error, error_code, first_line, is_closed, is_timeout
from omp_mcp.sdk import sdk_loaded
from omp_mcp.sdk_logs import current_server, route_sdk_logs
from omp_mcp.spawn import has_exited, kill_group, spawned, track_spawned_groups

STDERR_TAIL_BYTES = 2000
MAX_BACKOFF_S = 30.0
HEALTH_CHECK_S = 5.0
"""The longest a ping after a timed-out call may take (a live server answers at once)."""
MAX_PROBLEM_LINES = 10
"""Problems reported per server; later ones go to the debug log only."""

Notify = Callable[["Connection", Any], Awaitable[None] | None]


class ServerDown(Exception):
    """The server is not connected (it failed to start, or crashed and waits to restart)."""


class Connection:
    """A live connection to one server; ``state`` is idle, starting, ready, failed or
    closed. ``error`` says why a failed server failed (its stderr tail included)."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        request_timeout: float,
        startup_timeout: float = 30.0,
        on_notification: Notify | None = None,
        auth: Any = None,
        auth_factory: Callable[[], Any] | None = None,
        on_failure: Callable[[Connection], None] | None = None,
        on_problem: Callable[[Connection, str], None] | None = None,
    ) -> None:
        self.config = config
        self.auth = auth
        """An httpx auth (the SDK's OAuthClientProvider) for remote servers, or None."""
        self.auth_factory = auth_factory
        """Makes ``auth`` once the SDK is loaded (it needs the SDK's modules)."""
        self._refused: int | None = None
        self.request_timeout = config.timeout or request_timeout
        self.startup_timeout = startup_timeout
        self.on_notification = on_notification
        self.on_failure = on_failure
        """Told of each failure as it happens (the session reports it once)."""
        self.on_problem = on_problem
        """Told of each problem with what the server sent (one line); else stderr."""
        self.problems = 0
        self.state = "idle"
        self.error: str | None = None
        self.pid: int | None = None
        self.tools: list[Any] = []
        self.resources: list[Any] = []
        self.prompts: list[Any] = []
        self.commands: set[str] = set()
        """The slash commands this server's prompts became in the session."""
        self.failures = 0
        self.crash_reported = False
        self._retry_at = 0.0
        self._session: Any = None
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._stderr: Any = None
        self._health: asyncio.Task[None] | None = None
        self._restarting = False
        self._closed = False
        self.pending: set[asyncio.Future[Any]] = set()
        """Work a notification started (tools listed again), awaited by ``settle``."""

    @property
    def name(self) -> str:
        return self.config.name

    # -- lifecycle ------------------------------------------------------------------

    def start(self) -> asyncio.Task[None]:
        """Connect in the background; ``wait_ready`` waits for the outcome."""
        if self._task is None or self._task.done():
            self._closed = False
            self.state, self.error = "starting", None
            self._ready, self._stop = asyncio.Event(), asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name=f"mcp:{self.name}"
            )
        return self._task

    async def wait_ready(self, timeout: float | None = None) -> bool:
        try:
            await asyncio.wait_for(asyncio.shield(self._ready.wait()), timeout)
        except TimeoutError:
            return False
        return self.state == "ready"

    async def close(self) -> None:
        self._closed = True
        self._stop.set()
        if self._health is not None:
            self._health.cancel()
        task = self._task
        if task is not None and not task.done():
            if self.state != "ready":
                # Still starting (perhaps never to answer): nothing to end gracefully,
                # and the SDK would give it 2 s to notice its closed stdin.
                kill_group(self.pid)
                task.cancel()
            try:
                await asyncio.wait_for(asyncio.shield(task), 5)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
        self.state = "closed"
        self._close_stderr()

    async def _run(self) -> None:
        if self.config.problems:
            self._fail("; ".join(self.config.problems))
            return
        token = spawned.set(self._spawned)
        serving = current_server.set(self)
        try:
            await sdk_loaded()
            route_sdk_logs()
            from mcp import ClientSession

            if self.auth is None and self.auth_factory is not None:
                self.auth = self.auth_factory()
            self._close_stderr()
            self._stderr = tempfile.TemporaryFile(  # noqa: SIM115 - lives as long as the server
                "w+", encoding="utf-8", errors="replace"
            )
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport(stack))
                session = await stack.enter_async_context(
                    ClientSession(read, write, message_handler=self._on_message)
                )
                await asyncio.wait_for(session.initialize(), self.startup_timeout)
                self._session = session
                await self.refresh()
                self.state = "ready"
                self._ready.set()
                await self._stop.wait()
        except asyncio.CancelledError:
            self.state = "closed"
            raise
        except Exception as exc:  # every way a server can fail is reported
            if self.state != "closed":
                self._fail(self._explain(describe_error(exc)))
        finally:
            spawned.reset(token)
            current_server.reset(serving)
            self._session = None
            if self.pid is not None:
                # The SDK ends the server, but its whole group only if the server itself
                # outlives the 2 s grace: children it started would be left running.
                kill_group(self.pid)
                untrack_process_group(self.pid)
            if self.state in ("ready", "starting"):
                self.state = "closed" if self._stop.is_set() else "failed"
            self._ready.set()

    def _transport(self, stack: AsyncExitStack) -> Any:
        config = self.config
        if config.transport == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            track_spawned_groups()
            # The user's whole environment, as Claude Code, Cursor and Gemini CLI give it
            # (the SDK alone passes only HOME, PATH and a few more): a server configured
            # without ``env`` still finds the token or proxy its user exported.
            env = {**os.environ, **config.env}
            params = StdioServerParameters(
                command=config.command, args=config.args, env=env, cwd=config.cwd
            )
            return stdio_client(params, errlog=self._stderr)
        if config.transport == "sse":
            from mcp.client.sse import sse_client

            return sse_client(
                config.url, headers=config.headers, timeout=self.request_timeout, auth=self.auth
            )
        from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

        client = create_mcp_http_client(headers=config.headers, auth=self.auth)
        client.event_hooks.setdefault("response", []).append(self._saw_response)
        stack.push_async_callback(client.aclose)
        return streamable_http_client(config.url, http_client=client)

    async def _saw_response(self, response: Any) -> None:
        if response.status_code in (401, 403):
            self._refused = response.status_code

    def _explain(self, error: str) -> str:
        refused, self._refused = self._refused, None
        if refused == 401:
            return f"HTTP 401 Unauthorized; if it uses OAuth, run `omp mcp login {self.name}`"
        if refused == 403:
            return f"HTTP 403 Forbidden ({error}); check its headers or `omp mcp login {self.name}`"
        return error

    def _spawned(self, pid: int) -> None:
        self.pid = pid
        track_process_group(pid)

    def _fail(self, error: str) -> None:
        tail = self.stderr_tail()
        self.error = self.config.redact(f"{error}\n{tail}" if tail else error)
        self.state = "failed"
        self.crash_reported = False
        self.failures += 1
        delay = 0.0 if self.failures <= 1 else min(MAX_BACKOFF_S, 2.0 ** (self.failures - 2))
        self._retry_at = time.monotonic() + delay
        self._ready.set()
        if self.on_failure is not None:
            self.on_failure(self)

    def problem(self, line: str, log: Any) -> None:
        """Report something wrong in what the server sent: one line each, the first few
        (the details are in the debug log ``log``)."""
        self.problems += 1
        if self.problems > MAX_PROBLEM_LINES:
            return
        if self.problems == MAX_PROBLEM_LINES:
            line += f"; further problems with this server are only written to {log}"
        elif self.problems == 1:
            line += f" (details in {log})"
        if self.on_problem is not None:
            self.on_problem(self, line)
        else:
            import sys

            print(f"omp: mcp: server {self.name}: {line}", file=sys.stderr, flush=True)

    def stderr_tail(self) -> str:
        handle = self._stderr
        if handle is None or handle.closed:
            return ""
        try:
            handle.flush()
            size = handle.seek(0, 2)
            handle.seek(max(0, size - STDERR_TAIL_BYTES))
            return handle.read().strip()
        except (OSError, ValueError):
            return ""

    def _close_stderr(self) -> None:
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception) or self.on_notification is None:
            return
        outcome = self.on_notification(self, message)
        if asyncio.iscoroutine(outcome):
            await outcome

    # -- requests ---------------------------------------------------------------------

    async def refresh(self) -> None:
        """List the server's tools, resources and prompts again."""
        session = self._session
        caps = session.server_capabilities
        self.tools = await _all(session.list_tools, "tools") if caps and caps.tools else []
        self.resources = (
            await _all(session.list_resources, "resources") if caps and caps.resources else []
        )
        self.prompts = await _all(session.list_prompts, "prompts") if caps and caps.prompts else []

    async def ensure(self) -> Any:
        """The client session, restarting a failed server when its backoff allows (and
        one whose process ended since the last call: the call restarts it). While the
        server is being checked after a timed-out call, the outcome is awaited first."""
        if self._health is not None and not self._health.done():
            await asyncio.shield(self._health)
        if self.state == "ready" and self._session is not None:
            if not has_exited(self.pid):
                return self._session
            await self._lost("the server exited between calls")
        if self.state == "starting":
            await self.wait_ready(self.startup_timeout)
        elif self.state in ("failed", "idle"):
            wait = self._retry_at - time.monotonic()
            if wait > 0:
                raise ServerDown(
                    f"MCP server {self.name} is down ({first_line(self.error)}); "
                    f"it restarts on a call in {wait:.0f} s"
                )
            self.start()
            await self.wait_ready(self.startup_timeout)
        if self.state != "ready" or self._session is None:
            raise ServerDown(f"MCP server {self.name} is not connected: {self.error or 'closed'}")
        return self._session

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        session = await self.ensure()
        try:
            result = await session.call_tool(
                name, arguments, read_timeout_seconds=self.request_timeout
            )
        except Exception as exc:
            if self._restarting:
                raise ServerDown(
                    f"MCP server {self.name} stopped answering and was restarted during {name}"
                ) from None
            if self._stop.is_set() or self.state == "closed":
                raise
            if is_timeout(exc):
                self._check_health(session)
                raise ServerDown(
                    f"MCP server {self.name} did not answer {name} within "
                    f"{self.request_timeout:g} s"
                ) from None
            if is_closed(exc) or self._task is None or self._task.done():
                await self._crashed(exc)
            detail = self.error or self.config.redact(describe_error(exc))
            raise ServerDown(f"MCP server {self.name} failed: {detail}") from None
        self.failures = 0
        return result

    def track(self, work: asyncio.Future[Any]) -> None:
        self.pending.add(work)
        work.add_done_callback(self.pending.discard)

    async def settle(self, timeout: float = 5.0) -> None:
        """Let notifications that arrived with a result finish their work (a tool list
        changed by the call), so the next model request sees the new tools."""
        for _ in range(3):
            await asyncio.sleep(0)
        if self.pending:
            await asyncio.wait(list(self.pending), timeout=timeout)

    async def read_resource(self, uri: str) -> Any:
        session = await self.ensure()
        return await session.read_resource(uri)

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        session = await self.ensure()
        return await session.get_prompt(name, arguments)

    def _check_health(self, session: Any) -> None:
        """Ping the server in the background after a call timed out (one check at a
        time); the next call waits for the outcome."""
        if self._health is None or self._health.done():
            self._health = asyncio.get_running_loop().create_task(
                self._ping_or_restart(session), name=f"mcp:{self.name}:health"
            )

    async def _ping_or_restart(self, session: Any) -> None:
        limit = min(self.request_timeout, HEALTH_CHECK_S)
        try:
            await asyncio.wait_for(session.send_ping(), limit)
            return
        except Exception as exc:
            if self._stop.is_set() or session is not self._session:
                return  # closed or restarted meanwhile
            if error_code(exc) is not None and not (is_timeout(exc) or is_closed(exc)):
                return  # it answered, if only with an error: alive
        self._restarting = True
        try:
            kill_group(self.pid)  # a stuck server may never read its closed stdin
            await self._lost(
                f"it stopped answering (a call timed out, then a ping got no answer "
                f"within {limit:g} s); restarting it"
            )
            task = self._task
            if task is not None and not task.done():
                await asyncio.wait({task}, timeout=2)
        finally:
            self._restarting = False
        if self.state == "failed" and not self._closed:
            self.start()

    async def _crashed(self, exc: BaseException) -> None:
        """The server died under a call."""
        await self._lost(f"the server exited during a call ({describe_error(exc)})")

    async def _lost(self, reason: str) -> None:
        """The server is gone: record why, stop the connection (its task cleans up)."""
        await asyncio.sleep(0.05)  # let the last stderr lines land
        self._fail(reason)
        self._stop.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._task), 5)
            except (TimeoutError, asyncio.CancelledError):
                self._task.cancel()
        self.state = "failed"


async def _all(method: Callable[..., Awaitable[Any]], field: str) -> list[Any]:
    from mcp_types import PaginatedRequestParams

    items: list[Any] = []
    cursor = None
    for _ in range(100):
        page = await method(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        items += getattr(page, field)
        cursor = page.next_cursor
        if not cursor:
            break
    return items
