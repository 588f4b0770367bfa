"""JavaScript cells: one ``node`` process per session running node_repl.js, driven with
JSON lines (see that file). Node cannot interrupt a running script, so a timeout or an
abort kills the process group and the next cell starts a fresh one (state lost)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import shutil
import signal as signals
from collections.abc import Callable
from pathlib import Path
from typing import Any

from omp import AbortSignal, track_process_group, untrack_process_group

from omp_tool_eval.kernel import CellRun, kernel_env
from omp_tool_eval.plugin import JS_STATE_KEY

RUNNER = Path(__file__).with_name("node_repl.js")
LINE_LIMIT = 64 * 1024 * 1024
"""The longest protocol line (a cell printing megabytes at once)."""


def node_path() -> str | None:
    """``node`` on PATH, else None (JavaScript cells are then refused)."""
    return shutil.which("node")


def session_node(ctx: Any, cwd: str) -> NodeKernel:
    """The session's node process (``ctx.state``), created (not started) on first use."""
    kernel = ctx.state.get(JS_STATE_KEY)
    if kernel is None:
        kernel = ctx.state[JS_STATE_KEY] = NodeKernel(cwd)
    return kernel  # type: ignore[no-any-return]


class NodeKernel:
    """A session's node process (``ctx.state``); one cell at a time (``lock``)."""

    language = "JavaScript"

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.python: str | None = None
        """The node binary (named as EvalKernel's interpreter)."""
        self._process: asyncio.subprocess.Process | None = None
        self._ids = itertools.count(1)
        self.lock = asyncio.Lock()

    @property
    def started(self) -> bool:
        return self._process is not None and self._process.returncode is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    async def prepare(self, cwd: str, reset: bool = False) -> bool:
        """Start node (restart it when ``reset``) and move it to ``cwd``; True when a
        running process was reset."""
        was_reset = reset and self.started
        try:
            if was_reset or not self.started:
                await self.restart()
            reply = await self._request({"op": "chdir", "cwd": cwd}, CellRun(), None)
            if reply.get("error"):
                raise RuntimeError(str(reply["error"]))
        except Exception:
            await self.shutdown()
            raise
        return was_reset

    async def _start(self) -> None:
        node = node_path()
        if node is None:
            raise RuntimeError("node is not on PATH")
        self.python = node
        self._process = await asyncio.create_subprocess_exec(
            node,
            str(RUNNER),
            cwd=self.cwd,
            env=kernel_env(node),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
            limit=LINE_LIMIT,
        )
        track_process_group(self._process.pid)

    async def run(
        self,
        code: str,
        timeout: float | None,
        signal: AbortSignal,
        on_output: Callable[[CellRun], None] | None = None,
    ) -> CellRun:
        """Run one cell; a timeout, an abort or node's death kills the process
        (``CellRun.restarted``: the next cell starts a fresh one)."""
        run = CellRun()
        done = asyncio.ensure_future(self._request({"op": "run", "code": code}, run, on_output))
        aborted = asyncio.ensure_future(signal.wait())
        try:
            await asyncio.wait({done, aborted}, timeout=timeout, return_when="FIRST_COMPLETED")
        finally:
            aborted.cancel()
        if done.done() and done.exception() is None:
            reply = done.result()
            if reply.get("value") is not None:
                run.text.append(str(reply["value"]) + "\n")
            if reply.get("error"):
                run.error = str(reply["error"])
            return run
        if done.done():  # node ended in the middle of the cell
            run.died = self._process.returncode if self._process is not None else None
        else:
            done.cancel()
            run.stopped = "aborted" if signal.aborted else "timeout"
            run.killed = True
        await self.shutdown()
        run.restarted = True
        return run

    async def _request(
        self, message: dict[str, Any], run: CellRun, on_output: Callable[[CellRun], None] | None
    ) -> dict[str, Any]:
        process = self._process
        if process is None or process.stdin is None or process.stdout is None:
            raise RuntimeError("node is not running")
        ident = str(next(self._ids))
        process.stdin.write((json.dumps({**message, "id": ident}) + "\n").encode())
        await process.stdin.drain()
        while True:
            line = await process.stdout.readline()
            if not line:
                raise RuntimeError("node exited")
            reply = json.loads(line)
            if reply.get("done") and reply.get("id") == ident:
                return reply  # type: ignore[no-any-return]
            if "text" in reply:  # a late print of an earlier cell shows here too
                run.text.append(str(reply["text"]))
                if on_output is not None:
                    on_output(run)

    async def restart(self) -> None:
        await self.shutdown()
        await self._start()

    async def shutdown(self) -> None:
        """Kill node and everything it started (its own process group)."""
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signals.SIGKILL)
        untrack_process_group(process.pid)
        with contextlib.suppress(Exception):
            await process.wait()
