"""One session's language servers: started lazily per (server, workspace root), reused,
stopped when idle or with the session; a server that dies is restarted once, then
reported (``status_lines``) and left off."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omp_lsp.client import LspClient
from omp_lsp.config import ServerConfig, available_servers, merged_servers
from omp_lsp.rpc import LspError

STATE_KEY = "omp-lsp"
INIT_TIMEOUT = 30.0
MAX_RESTARTS = 1

Key = tuple[str, Path]


def manager_for(ctx: Any) -> LspManager | None:
    """This session's manager, or None when lsp is off (``--no-lsp``, ``lsp.enabled``)."""
    return ctx.state.get(STATE_KEY)  # type: ignore[no-any-return]


@dataclass
class _Slot:
    """What the manager knows of one (server, root): its start, deaths and last error."""

    starting: asyncio.Task[LspClient] | None = None
    client: LspClient | None = None
    deaths: int = 0
    failed: str | None = None
    idle: asyncio.TimerHandle | None = None


class LspManager:
    def __init__(
        self,
        settings: Any,
        cwd: Path,
        trusted: bool,
        agent_dir: Path,
    ) -> None:
        self.cwd = cwd
        self.settings = settings
        self.configs: list[ServerConfig] = available_servers(settings, cwd, trusted, agent_dir)
        self.problems: list[str] = merged_servers(settings, cwd, trusted, agent_dir)[1]
        self.request_timeout = _ms(settings, "lsp.requestTimeoutMs", 10_000)
        self.idle_timeout = _ms(settings, "lsp.idleTimeoutMs", 600_000)
        self._slots: dict[Key, _Slot] = {}
        self._closed = False
        self.reported: set[str] = set()  # failures already told to the model
        self._stopping: set[asyncio.Task[None]] = set()  # idle stops under way

    def configs_for(self, path: Path) -> list[ServerConfig]:
        return [c for c in self.configs if c.covers(path)]

    def _absolute(self, path: str | Path) -> Path:
        p = Path(path)
        return p if p.is_absolute() else self.cwd / p

    async def clients_for(self, path: str | Path, timeout: float | None = None) -> list[LspClient]:
        """Every server covering ``path``, started if needed; those not up within
        ``timeout`` seconds (None: their start's own budget) or failed are left out
        (their start goes on in the background)."""
        target = self._absolute(path)
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        ups = [
            self._up(config, config.root_for(target, self.cwd), deadline)
            for config in self.configs_for(target)
        ]
        clients = [c for c in await asyncio.gather(*ups) if c is not None]
        for client in clients:
            self._touch(client)
        return clients

    async def _up(
        self, config: ServerConfig, root: Path, deadline: float | None
    ) -> LspClient | None:
        """The client once started (through one restart), or None: failed or not in time."""
        loop = asyncio.get_running_loop()
        for _ in range(MAX_RESTARTS + 2):
            task = self._ensure(config, root)
            if task is None:
                return None
            remaining = None if deadline is None else max(0.0, deadline - loop.time())
            await asyncio.wait([asyncio.shield(task)], timeout=remaining)
            if not task.done():
                return None
            if not task.cancelled() and task.exception() is None and task.result().alive:
                return task.result()
        return None

    async def client_for(self, path: str | Path, timeout: float | None = None) -> LspClient | None:
        clients = await self.clients_for(path, timeout)
        return clients[0] if clients else None

    def _ensure(self, config: ServerConfig, root: Path) -> asyncio.Task[LspClient] | None:
        if self._closed:
            return None
        slot = self._slots.setdefault((config.name, root), _Slot())
        if slot.failed is not None:
            return None
        if slot.starting is None or (slot.client is not None and not slot.client.alive):
            slot.client = None
            slot.starting = asyncio.get_running_loop().create_task(self._start(config, root, slot))
            slot.starting.add_done_callback(_quiet)
        return slot.starting

    async def _start(self, config: ServerConfig, root: Path, slot: _Slot) -> LspClient:
        try:
            client = await LspClient.start(config, root, self.request_timeout, INIT_TIMEOUT)
        except (OSError, LspError) as e:
            self._died(slot, config, root, f"did not start: {e}")
            raise
        client.on_exit = lambda c: self._died(slot, config, root, f"exited (pid {c.pid})")
        slot.client = client
        if self._closed:  # the session ended while it started
            await client.shutdown()
        return client

    def _died(self, slot: _Slot, config: ServerConfig, root: Path, why: str) -> None:
        slot.deaths += 1
        slot.client = None
        if slot.deaths > MAX_RESTARTS:
            slot.failed = f"{why}; restarted {MAX_RESTARTS} time(s), giving up"
            slot.starting = None
        else:
            slot.starting = None  # the next call starts it again

    def _touch(self, client: LspClient) -> None:
        """(Re)arm ``client``'s idle stop; a request or sync since pushes it back."""
        if self.idle_timeout <= 0:
            return
        slot = self._slots.get((client.name, client.root))
        if slot is None:
            return
        if slot.idle is not None:
            slot.idle.cancel()
        loop = asyncio.get_running_loop()
        client.last_used = max(client.last_used, loop.time())
        slot.idle = loop.call_at(
            client.last_used + self.idle_timeout, lambda: self._idle_due(client)
        )

    def _idle_due(self, client: LspClient) -> None:
        loop = asyncio.get_running_loop()
        if client.busy or client.last_used + self.idle_timeout > loop.time():
            self._touch(client)  # used meanwhile
            return
        slot = self._slots.get((client.name, client.root))
        if slot is not None and slot.client is client:
            slot.client, slot.starting, slot.idle = None, None, None
        self._stopping.add(loop.create_task(client.shutdown()))

    def running(self) -> list[LspClient]:
        return [s.client for s in self._slots.values() if s.client is not None and s.client.alive]

    def failures(self) -> dict[str, str]:
        """Server name -> why it is off (died twice, did not start)."""
        return {name: slot.failed for (name, _), slot in self._slots.items() if slot.failed}

    def status_lines(self) -> list[str]:
        lines = []
        for (name, root), slot in sorted(self._slots.items(), key=lambda kv: kv[0]):
            if slot.failed:
                state = f"failed: {slot.failed}"
            elif slot.client is not None and slot.client.alive:
                state = f"running (pid {slot.client.pid})"
            else:
                state = "starting" if slot.starting and not slot.starting.done() else "stopped"
            lines.append(f"{name} [{root}]: {state}")
        idle = {c.name for c in self.configs} - {name for name, _ in self._slots}
        lines.extend(f"{name}: available (not started)" for name in sorted(idle))
        return lines

    async def restart_all(self) -> None:
        """Stop every server and forget failures: the next call starts them again."""
        slots, self._slots = self._slots, {}
        await _stop(slots.values())

    async def close(self) -> None:
        self._closed = True
        await self.restart_all()
        await asyncio.gather(*self._stopping, return_exceptions=True)


def _ms(settings: Any, key: str, default: int) -> float:
    """A milliseconds setting in seconds (``default`` when unset)."""
    value = settings.get(key)
    return float(default if value is None else value) / 1000


def _quiet(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved: a failed restart is reported through the slot


async def _stop(slots: Any) -> None:
    stops = []
    for slot in slots:
        if slot.idle is not None:
            slot.idle.cancel()
        if slot.starting is not None and not slot.starting.done():
            slot.starting.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await slot.starting
        if slot.client is not None:
            stops.append(slot.client.shutdown())
    await asyncio.gather(*stops, return_exceptions=True)
