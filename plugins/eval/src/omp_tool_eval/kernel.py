"""One session's Jupyter kernel: started lazily, run a cell with a timeout and an abort
signal, interrupted (SIGINT to its process group) and restarted when it ignores that,
shut down with the session. The kernel's process group is tracked, so omp's SIGTERM
handling takes it down too."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal as signals
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from omp import AbortSignal, track_process_group, untrack_process_group

from omp_tool_eval.interpreter import kernel_python
from omp_tool_eval.plugin import STATE_KEY

START_TIMEOUT = 60.0
DEATH_POLL = 0.25
"""Seconds between checks that the kernel process is still there during a cell."""
INTERRUPT_GRACE = 2.0
"""Seconds a kernel has to stop after SIGINT before it is restarted."""
SECRET_NAME = re.compile(r"(API_KEY|_TOKEN|SECRET|PASSWORD)", re.IGNORECASE)
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
SETUP = """\
import os as _omp_os, sys as _omp_sys
get_ipython().InteractiveTB.set_mode(mode="Plain")
get_ipython().colors = "nocolor"
if {cwd!r} not in _omp_sys.path:
    _omp_sys.path.insert(0, {cwd!r})
del _omp_os, _omp_sys
"""


@dataclass
class CellRun:
    """What one cell produced, in order."""

    text: list[str] = field(default_factory=list)
    images: list[tuple[str, str]] = field(default_factory=list)
    """(mime type, base64 data)"""
    error: str | None = None
    stopped: str | None = None
    """"timeout" or "aborted" when the cell did not finish by itself."""
    restarted: bool = False
    died: int | None = None
    """The exit code of a kernel that ended during the cell (it was restarted)."""
    killed: bool = False
    """Stopped by killing the process (JavaScript: node cannot be interrupted)."""

    @property
    def ok(self) -> bool:
        return self.error is None and self.stopped is None and not self.restarted

    @property
    def output(self) -> str:
        return "".join(self.text).rstrip("\n")


def session_kernel(ctx: Any, cwd: str) -> EvalKernel:
    """The session's kernel (``ctx.state``), created (not started) on first use: the
    ``eval`` tool and ``$code`` share it."""
    kernel = ctx.state.get(STATE_KEY)
    if kernel is None:
        kernel = ctx.state[STATE_KEY] = EvalKernel(cwd)
    return kernel  # type: ignore[no-any-return]


class EvalKernel:
    """A kernel for one session (``ctx.state``); not thread-safe, one cell at a time."""

    language = "Python"

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.python: str | None = None
        self._manager: Any = None
        self._client: Any = None
        self._pgid: int | None = None
        self._dir: tempfile.TemporaryDirectory[str] | None = None
        self.lock = asyncio.Lock()

    @property
    def started(self) -> bool:
        return self._client is not None

    @property
    def pid(self) -> int | None:
        process = getattr(getattr(self._manager, "provisioner", None), "process", None)
        return getattr(process, "pid", None)

    async def start(self) -> None:
        from jupyter_client.kernelspec import KernelSpec
        from jupyter_client.manager import AsyncKernelManager

        self.python = await asyncio.to_thread(kernel_python, self.cwd)
        self._dir = tempfile.TemporaryDirectory(prefix="omp-eval-")
        argv = [self.python, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        argv.append("--HistoryManager.enabled=False")
        spec = KernelSpec(argv=argv, language="python", display_name="omp eval")
        manager = AsyncKernelManager(
            kernel_spec_manager=_spec_manager(spec),
            kernel_name="omp-eval",
            connection_file=os.path.join(self._dir.name, "kernel.json"),
            transport="ipc",
            ip=os.path.join(self._dir.name, "ipc"),
        )
        self._manager = manager
        await manager.start_kernel(
            cwd=self.cwd,
            env=kernel_env(self.python),
            stdout=subprocess.DEVNULL,  # the kernel forwards what it prints over iopub
            stderr=subprocess.DEVNULL,
        )
        self._pgid = getattr(manager.provisioner, "pgid", None)
        if self._pgid:
            track_process_group(self._pgid)
        client = manager.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=START_TIMEOUT)
        except (RuntimeError, TimeoutError):
            await self.shutdown()
            raise RuntimeError(f"the Python kernel ({self.python}) did not start") from None
        self._client = client
        await self.run_silent(SETUP.format(cwd=self.cwd))

    async def prepare(self, cwd: str, reset: bool = False) -> bool:
        """Start the kernel (or restart it when ``reset``) and move it to ``cwd``; True
        when a running kernel was reset. On failure the kernel is shut down and the
        error raised."""
        try:
            was_reset = reset and self.started
            if was_reset:
                await self.restart()
            elif not self.started:
                await self.start()
            await self.run_silent(f"import os as _o; _o.chdir({cwd!r}); del _o")
        except Exception:
            await self.shutdown()
            raise
        return was_reset

    async def run_silent(self, code: str) -> CellRun:
        """Run set-up code: no history, no execution count."""
        return await self._collect(self._client.execute(code, silent=True, store_history=False))

    async def run(
        self,
        code: str,
        timeout: float | None,
        signal: AbortSignal,
        on_output: Callable[[CellRun], None] | None = None,
    ) -> CellRun:
        """Run one cell (``timeout`` None: no limit); on timeout or abort interrupt it,
        and restart a kernel that does not stop within the grace period
        (``CellRun.restarted``: its state is gone). ``on_output`` sees the run each time
        it prints."""
        msg_id = self._client.execute(code, store_history=True, allow_stdin=False)
        run = CellRun()
        done = asyncio.ensure_future(self._collect(msg_id, run, on_output))
        aborted = asyncio.ensure_future(signal.wait())
        died = asyncio.ensure_future(self._death())
        try:
            await asyncio.wait(
                {done, aborted, died}, timeout=timeout, return_when="FIRST_COMPLETED"
            )
        finally:
            aborted.cancel()
            died.cancel()
        if done.done():
            return done.result()
        if died.done() and not died.cancelled():
            done.cancel()
            run.died = died.result()
            await self.restart()
            run.restarted = True
            return run
        run.stopped = "aborted" if signal.aborted else "timeout"
        try:
            await self._manager.interrupt_kernel()
        except Exception:
            pass  # gone already: the restart below takes care of it
        try:
            await asyncio.wait_for(asyncio.shield(done), INTERRUPT_GRACE)
        except TimeoutError:
            done.cancel()
            await self.restart()
            run.restarted = True
        run.error = None  # the KeyboardInterrupt is ours, not the user's error
        return run

    async def _death(self) -> int | None:
        """Returns (the exit code) once the kernel process has ended."""
        process = self._manager.provisioner.process
        while process.poll() is None:
            await asyncio.sleep(DEATH_POLL)
        return process.returncode  # type: ignore[no-any-return]

    async def restart(self) -> None:
        await self.shutdown()
        await self.start()

    async def shutdown(self) -> None:
        """Stop the kernel and everything in its process group."""
        client, self._client = self._client, None
        manager, self._manager = self._manager, None
        if client is not None:
            client.stop_channels()
        if manager is not None:
            try:
                await manager.shutdown_kernel(now=True)
            except Exception:
                pass
        pgid, self._pgid = self._pgid, None
        if pgid:
            try:
                os.killpg(pgid, signals.SIGKILL)
            except OSError:
                pass
            untrack_process_group(pgid)
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    async def _collect(
        self,
        msg_id: str,
        run: CellRun | None = None,
        on_output: Callable[[CellRun], None] | None = None,
    ) -> CellRun:
        run = run or CellRun()
        while True:
            msg = await self._client.get_iopub_msg()
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                run.text.append(content.get("text", ""))
                if on_output is not None:
                    on_output(run)
            elif kind in ("execute_result", "display_data"):
                _add_display(run, content.get("data", {}))
            elif kind == "error":
                run.error = trim_traceback(content)
            elif kind == "status" and content.get("execution_state") == "idle":
                return run


def _spec_manager(spec: Any) -> Any:
    """A kernel-spec manager that knows only ``spec``: the kernel runs the interpreter
    chosen for the project, whatever kernel specs are installed."""
    from jupyter_client.kernelspec import KernelSpecManager

    class OneSpec(KernelSpecManager):
        def get_kernel_spec(self, kernel_name: str) -> Any:
            return spec

    return OneSpec()


def _add_display(run: CellRun, data: dict[str, Any]) -> None:
    for mime in ("image/png", "image/jpeg"):
        if mime in data:
            run.images.append((mime, str(data[mime]).replace("\n", "")))
            return
    if "text/markdown" in data:
        run.text.append(str(data["text/markdown"]) + "\n")
    elif "application/json" in data:
        run.text.append(json.dumps(data["application/json"], indent=2) + "\n")
    elif "text/plain" in data:
        run.text.append(str(data["text/plain"]) + "\n")


def trim_traceback(content: dict[str, Any]) -> str:
    """The traceback from the user's cell down: no ANSI colours, no kernel frames."""
    text = ANSI.sub("", "\n".join(content.get("traceback") or []))
    lines = [line for line in text.splitlines() if line.strip() and set(line) != {"-"}]
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("Cell In[")), None)
    if start is not None and start > 1:
        lines = [lines[0], *lines[start:]]
    trimmed = "\n".join(lines).strip()
    return trimmed or f"{content.get('ename', 'Error')}: {content.get('evalue', '')}"


def kernel_env(python: str) -> dict[str, str]:
    """omp's environment without secrets; a virtualenv's bin first on PATH."""
    env = {k: v for k, v in os.environ.items() if not SECRET_NAME.search(k)}
    env.pop("JPY_PARENT_PID", None)
    bin_dir = os.path.dirname(python)
    if os.path.isfile(os.path.join(bin_dir, "activate")):
        env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
        env["VIRTUAL_ENV"] = os.path.dirname(bin_dir)
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    return env
