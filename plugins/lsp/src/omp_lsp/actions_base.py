"""What every lsp action shares: the call's parameters resolved against the workspace,
the clients that serve a file, and one error type whose message the model reads."""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from omp import resolve_path

from omp_lsp.actions_format import DEFAULT_LIMIT
from omp_lsp.positions import PositionError, relative, resolve_position

if TYPE_CHECKING:
    from omp_lsp.manager import LspManager

DEFAULT_TIMEOUT = 20.0
MAX_WORKSPACE_FILES = 200
SETTLE_DELAY = 0.3
SETTLE_TRIES = 6
# Clients that have answered one project-wide request the same way twice: the server
# has read the workspace (a fresh server answers from the open files alone at first).
_settled: weakref.WeakSet[Any] = weakref.WeakSet()
SKIPPED_DIRS = {"node_modules", "__pycache__", "venv", "build", "dist", "target", "site-packages"}


class ActionError(Exception):
    """An action that cannot be done as asked; the message says why in one line."""


@dataclass
class Call:
    """One lsp tool call: its parameters, workspace and server manager."""

    params: Any
    cwd: str
    mgr: LspManager

    @property
    def limit(self) -> int:
        return int(self.params.limit or DEFAULT_LIMIT)

    @property
    def timeout(self) -> float:
        return float(self.params.timeout or DEFAULT_TIMEOUT)

    def rel(self, path: str) -> str:
        return relative(path, self.cwd)

    def file(self) -> str:
        """The ``file`` parameter as an existing file's absolute path."""
        name = self.params.file
        if not name or name == "*":
            raise ActionError(f"file parameter required for {self.params.action}")
        path = resolve_path(name, self.cwd)
        if not os.path.isfile(path):
            raise ActionError(f"File not found: {name}")
        return path

    def position(self, path: str) -> dict[str, int]:
        if self.params.line is None:
            raise ActionError(f"line parameter required for {self.params.action}")
        try:
            return resolve_position(path, self.params.line, self.params.column, self.params.symbol)
        except PositionError as exc:
            raise ActionError(str(exc)) from None

    async def client(self, path: str, provider: str | None = None, sync: bool = True) -> Any:
        """The first server for ``path`` (that has ``provider``), its document synced."""
        clients = await self.mgr.clients_for(path)
        if not clients:
            failed = "; ".join(f"{n}: {why}" for n, why in self.mgr.failures().items())
            if failed:
                raise ActionError(f"No language server for {self.rel(path)} ({failed})")
            raise ActionError(f"No language server found for {self.rel(path)}")
        able = [c for c in clients if provider is None or c.supports(provider)]
        if not able:
            names = ", ".join(c.name for c in clients)
            raise ActionError(f"{names} does not support {provider} for {self.rel(path)}")
        if sync:
            await able[0].sync(path)
        return able[0]

    async def fresh_diagnostics(self, client: Any, path: str, wait: float) -> list[Any] | None:
        """Sync ``path`` and wait (up to ``wait`` s) for the diagnostics of its text;
        None when the server published none in time."""
        seen = client.publications(path)
        await client.sync(path)
        return await client.wait_diagnostics(path, seen, wait)  # type: ignore[no-any-return]

    async def request(self, client: Any, method: str, params: Any) -> Any:
        return await client.request(method, params, timeout=self.timeout)

    async def project_request(self, client: Any, method: str, params: Any) -> Any:
        """A request whose answer spans the project (references, rename, workspace
        symbols): on a fresh server, asked again until two answers agree."""
        result = await self.request(client, method, params)
        if client in _settled:
            return result
        for _ in range(SETTLE_TRIES):
            await asyncio.sleep(SETTLE_DELAY)
            again = await self.request(client, method, params)
            if again == result:
                break
            result = again
        _settled.add(client)
        return result

    async def workspace_clients(self) -> list[Any]:
        """A client of every usable server, each started on a file of its languages."""
        found: dict[int, Any] = {id(c): c for c in self.mgr.running()}
        wanted = {config.name: tuple(config.extensions) for config in self.mgr.configs}
        started = {c.name for c in found.values()}
        for path in workspace_files(self.cwd, tuple(e for es in wanted.values() for e in es)):
            missing = [n for n, exts in wanted.items() if n not in started and path.endswith(exts)]
            if not missing:
                continue
            for client in await self.mgr.clients_for(path):
                found.setdefault(id(client), client)
                started.add(client.name)
            if started >= set(wanted):
                break
        return list(found.values())

    async def resync(self, paths: list[str]) -> None:
        """Tell the servers of ``paths`` their new content (after an edit on disk)."""
        for path in paths:
            if os.path.isfile(path):
                for client in await self.mgr.clients_for(path):
                    await client.sync(path)


def workspace_files(
    cwd: str, extensions: tuple[str, ...], limit: int = MAX_WORKSPACE_FILES, budget: int = 0
) -> Iterator[str]:
    """The workspace's files with one of ``extensions`` (at most ``limit``), hidden and
    build dirs skipped; with a ``budget``, stop after looking at that many names."""
    count = seen = 0
    for root, dirs, files in os.walk(cwd):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        seen += len(dirs) + len(files)
        for name in sorted(files):
            if name.lower().endswith(extensions):
                yield os.path.join(root, name)
                count += 1
                if count >= limit:
                    return
        if budget and seen >= budget:
            return


def serves_workspace(configs: list[Any], cwd: str) -> bool:
    """Whether one of the servers ``configs`` covers a file of the workspace (a quick
    look: the lsp tool is offered only where a server can answer it)."""
    extensions = tuple(e for config in configs for e in config.extensions)
    return bool(extensions) and next(workspace_files(cwd, extensions, 1, 5000), None) is not None
