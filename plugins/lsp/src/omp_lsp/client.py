"""One running language server for one workspace root: its process (in its own group,
tracked so omp's SIGTERM kills it), the initialize handshake, document sync, the
diagnostics it publishes, and the requests it sends us."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from omp import track_process_group, untrack_process_group

from omp_lsp.capabilities import CLIENT_CAPABILITIES
from omp_lsp.config import ServerConfig
from omp_lsp.rpc import Connection, LspError, LspServerDied, LspTimeout, log
from omp_lsp.uris import path_to_uri

__all__ = ["LspClient", "LspError", "LspServerDied", "LspTimeout"]


class LspClient:
    """A started server; build it with ``await LspClient.start(...)``."""

    def __init__(self, config: ServerConfig, root: Path, request_timeout: float) -> None:
        self.config = config
        self.name = config.name
        self.root = root
        self.request_timeout = request_timeout
        self.capabilities: dict[str, Any] = {}
        self.pid: int | None = None
        self.on_apply_edit: Callable[[dict[str, Any]], Awaitable[bool]] | None = None
        self.on_exit: Callable[[LspClient], None] | None = None
        self.stopping = False
        self.last_used = 0.0  # loop time of the last request or sync (for the idle stop)
        self.busy = 0  # requests and diagnostics waits in flight: never idle then
        self._proc: asyncio.subprocess.Process | None = None
        self._conn: Connection | None = None
        self._versions: dict[str, int] = {}
        self._diagnostics: dict[str, list[dict[str, Any]]] = {}
        self._published: dict[str, int] = {}  # uri -> publications seen
        self._changed = asyncio.Event()
        self.registrations: dict[str, dict[str, Any]] = {}

    @classmethod
    async def start(
        cls, config: ServerConfig, root: Path, request_timeout: float, init_timeout: float
    ) -> LspClient:
        client = cls(config, root, request_timeout)
        await client._spawn()
        try:
            await client._initialize(init_timeout)
        except BaseException:
            await client.shutdown()
            raise
        return client

    async def _spawn(self) -> None:
        proc = await asyncio.create_subprocess_exec(
            *self.config.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=str(self.root),
            start_new_session=True,
            limit=2**24,
        )
        self._proc, self.pid = proc, proc.pid
        track_process_group(proc.pid)
        assert proc.stdout is not None and proc.stdin is not None
        conn = Connection(proc.stdout, proc.stdin)
        self._conn = conn
        conn.request_handlers.update(
            {
                "workspace/configuration": self._configuration,
                "workspace/applyEdit": self._apply_edit,
                "workspace/workspaceFolders": lambda _: self._folders(),
                "client/registerCapability": self._register,
                "client/unregisterCapability": lambda _: None,
                "window/workDoneProgress/create": lambda _: None,
                "window/showMessageRequest": lambda _: None,
                "window/showDocument": lambda _: {"success": False},
            }
        )
        for refresh in ("semanticTokens", "codeLens", "inlayHint", "inlineValue", "diagnostic"):
            conn.request_handlers[f"workspace/{refresh}/refresh"] = lambda _: None
        conn.notification_handlers["textDocument/publishDiagnostics"] = self._publish
        asyncio.get_running_loop().create_task(self._watch(conn))

    async def _watch(self, conn: Connection) -> None:
        await conn.closed.wait()
        self._changed.set()  # diagnostics waiters see it is gone
        if not self.stopping:
            log.info("lsp server %s (pid %s) exited", self.name, self.pid)
            await self._reap()
            if self.on_exit is not None:
                self.on_exit(self)

    def _folders(self) -> list[dict[str, str]]:
        return [{"uri": path_to_uri(self.root), "name": self.root.name}]

    async def _initialize(self, timeout: float) -> None:
        assert self._conn is not None
        result = await self._conn.request(
            "initialize",
            {
                "processId": os.getpid(),
                "clientInfo": {"name": "omp"},
                "rootUri": path_to_uri(self.root),
                "rootPath": str(self.root),
                "workspaceFolders": self._folders(),
                "capabilities": CLIENT_CAPABILITIES,
                "initializationOptions": self.config.initialization_options,
            },
            timeout,
        )
        self.capabilities = dict((result or {}).get("capabilities") or {})
        self._conn.notify("initialized", {})
        if self.config.settings:
            self._conn.notify(
                "workspace/didChangeConfiguration", {"settings": self.config.settings}
            )

    # -- requests -------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self._conn is not None and not self._conn.closed.is_set() and not self.stopping

    async def request(self, method: str, params: Any = None, timeout: float | None = None) -> Any:
        """The raw JSON result of ``method``; ``LspError``/``LspTimeout``/``LspServerDied``."""
        if self._conn is None:
            raise LspServerDied(f"{self.name} is not running")
        self.busy += 1
        try:
            return await self._conn.request(method, params, timeout or self.request_timeout)
        finally:
            self.busy -= 1
            self.last_used = asyncio.get_running_loop().time()

    def notify(self, method: str, params: Any = None) -> None:
        if self._conn is not None:
            self._conn.notify(method, params)

    def supports(self, provider: str) -> bool:
        return bool(self.capabilities.get(provider)) or any(
            r.get("method", "").endswith(provider.removesuffix("Provider"))
            for r in self.registrations.values()
        )

    # -- documents ------------------------------------------------------------------

    async def sync(self, path: str | Path, text: str | None = None) -> int:
        """Open the document, or send its full new text; its version."""
        path = Path(path)
        if text is None:
            text = path.read_text(encoding="utf-8", errors="replace")
        uri = path_to_uri(path)
        self.last_used = asyncio.get_running_loop().time()
        version = self._versions.get(uri)
        if version is None:
            version = self._versions[uri] = 1
            self.notify(
                "textDocument/didOpen",
                {
                    "textDocument": {
                        "uri": uri,
                        "languageId": self.config.language_id(path),
                        "version": version,
                        "text": text,
                    }
                },
            )
        else:
            version = self._versions[uri] = version + 1
            self.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": text}],
                },
            )
        return version

    def is_open(self, path: str | Path) -> bool:
        return path_to_uri(path) in self._versions

    async def save(self, path: str | Path, text: str | None = None) -> None:
        params: dict[str, Any] = {"textDocument": {"uri": path_to_uri(path)}}
        if text is not None:
            params["text"] = text
        self.notify("textDocument/didSave", params)

    async def close_document(self, path: str | Path) -> None:
        uri = path_to_uri(path)
        if self._versions.pop(uri, None) is not None:
            self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    # -- diagnostics ----------------------------------------------------------------

    def _publish(self, params: Any) -> None:
        uri = params.get("uri", "")
        self._diagnostics[uri] = list(params.get("diagnostics") or [])
        self._published[uri] = self._published.get(uri, 0) + 1
        self._changed.set()

    def diagnostics(self, path: str | Path) -> list[dict[str, Any]]:
        return list(self._diagnostics.get(path_to_uri(path), []))

    def all_diagnostics(self) -> dict[str, list[dict[str, Any]]]:
        return {uri: list(d) for uri, d in self._diagnostics.items()}

    def publications(self, path: str | Path) -> int:
        """How many times diagnostics were published for ``path`` (to wait for the next)."""
        return self._published.get(path_to_uri(path), 0)

    async def wait_diagnostics(
        self, path: str | Path, after: int, timeout: float
    ) -> list[dict[str, Any]] | None:
        """The diagnostics of the first publication for ``path`` past number ``after``
        (see ``publications``); None when none came within ``timeout`` seconds."""
        uri = path_to_uri(path)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        self.busy += 1
        try:
            while self._published.get(uri, 0) <= after:
                remaining = deadline - loop.time()
                if remaining <= 0 or not self.alive:
                    return None
                self._changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), remaining)
        finally:
            self.busy -= 1
            self.last_used = loop.time()
        return self.diagnostics(path)

    # -- server -> client requests ---------------------------------------------------

    def _configuration(self, params: Any) -> list[Any]:
        answers: list[Any] = []
        for item in (params or {}).get("items") or []:
            value: Any = self.config.settings
            for part in (item.get("section") or "").split("."):
                if not part:
                    continue
                value = value.get(part) if isinstance(value, dict) else None
            answers.append(value)
        return answers

    async def _apply_edit(self, params: Any) -> dict[str, Any]:
        if self.on_apply_edit is None:
            return {"applied": False, "failureReason": "omp applies edits only through its tools"}
        applied = await self.on_apply_edit((params or {}).get("edit") or {})
        return {"applied": bool(applied)}

    def _register(self, params: Any) -> None:
        for registration in (params or {}).get("registrations") or []:
            self.registrations[registration.get("id", "")] = registration

    # -- ending ---------------------------------------------------------------------

    async def shutdown(self, grace: float = 1.0) -> None:
        """shutdown + exit, then the process group is killed whatever happened."""
        if self.stopping:
            return
        self.stopping = True
        self._changed.set()
        conn = self._conn
        if conn is not None and not conn.closed.is_set():
            with contextlib.suppress(LspError):
                await conn.request("shutdown", None, grace)
                conn.notify("exit", None)
        await self._reap(grace)
        if conn is not None:
            await conn.aclose()

    async def _reap(self, grace: float = 0.0) -> None:
        proc = self._proc
        if proc is None:
            return
        if grace and proc.returncode is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), grace)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # the server's helpers too
        with contextlib.suppress(ProcessLookupError):
            await proc.wait()
        untrack_process_group(proc.pid)
