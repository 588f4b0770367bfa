"""Run one shell command in its own process group: stream its merged output, stop it on
timeout, abort or output past the sink's hard limit (TERM to the whole group, KILL
after a grace), and never leave it running when the call ends."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal as signals
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from omp import track_process_group, untrack_process_group

from omp_tool_bash.output import OutputSink

NON_INTERACTIVE_ENV = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "MANPAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "EDITOR": "true",
    "VISUAL": "true",
    "GIT_EDITOR": "true",
    "CI": "1",
    "TERM": "dumb",
    "NO_COLOR": "1",
    "DEBIAN_FRONTEND": "noninteractive",
    "PIP_NO_INPUT": "1",
    "npm_config_yes": "true",
}
KILL_GRACE = 2.0
"""Seconds between TERM and KILL to the process group."""
REAP_SECONDS = 1.0
"""How long to wait for the group to vanish after KILL."""
DRAIN_SECONDS = 0.5
"""After the shell ends, how long to wait for the rest of its output (background
processes may keep the pipe open forever)."""
POLL_MAX = 0.05
READ_CHUNK = 64 * 1024
READS_PER_WAKEUP = 16


@dataclass
class Outcome:
    exit_code: int | None
    timed_out: bool
    aborted: bool
    output_limited: bool
    """Stopped because its output passed the sink's hard limit."""
    detached: bool
    """The shell ended but something it started still held the output open."""
    duration_ms: int


def shell_argv(command: str) -> list[str]:
    bash = shutil.which("bash")
    return [bash, "-c", command] if bash else ["/bin/sh", "-c", command]


def command_env(ctx: Any = None) -> dict[str, str]:
    """omp's environment made non-interactive, without omp's provider keys unless the
    session's ``bash.passProviderKeys`` says so (``ctx.api.child_env``)."""
    api = getattr(ctx, "api", None)
    base = api.child_env() if api is not None else dict(os.environ)
    return {**base, **NON_INTERACTIVE_ENV}


async def run_command(
    argv: list[str],
    cwd: str,
    timeout: float,
    signal: Any,
    sink: OutputSink,
    on_tick: Callable[[], None] = lambda: None,
    env: dict[str, str] | None = None,
) -> Outcome:
    """Run ``argv`` until it exits, ``timeout`` seconds pass or ``signal`` aborts.
    Raises OSError when the process cannot be started."""
    loop = asyncio.get_running_loop()
    started = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=command_env() if env is None else env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    eof = asyncio.Event()

    def readable() -> None:
        for _ in range(READS_PER_WAKEUP):  # then yield to the loop (abort stays prompt)
            try:
                chunk = os.read(fd, READ_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                loop.remove_reader(fd)
                eof.set()
                return
            sink.feed(chunk)
            if sink.limit_reached:  # take no more: the command is about to be stopped
                loop.remove_reader(fd)
                eof.set()
                return

    loop.add_reader(fd, readable)
    track_process_group(proc.pid)
    settled = False  # True once the shell exited or its group was stopped
    try:
        try:
            how = await _supervise(proc, started + timeout, signal, sink, on_tick)
        except asyncio.CancelledError:
            if not getattr(signal, "aborted", False):
                raise
            # The kernel cancels an aborted tool; finish the job and report it.
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            how = "aborted"
        if how != "exited":
            await _stop_group(proc)
        settled = True
        detached = not await _drain(eof, on_tick)
    finally:
        if not settled:  # cancelled or failed on the way: leave nothing running
            _signal_group(proc.pid, signals.SIGKILL)
            proc.poll()
        untrack_process_group(proc.pid)
        loop.remove_reader(fd)
        proc.stdout.close()
    code = proc.returncode if how == "exited" else None
    return Outcome(
        exit_code=code,
        timed_out=how == "timed_out",
        aborted=how == "aborted",
        output_limited=how == "output_limited",
        detached=detached and how == "exited",
        duration_ms=int((time.monotonic() - started) * 1000),
    )


async def _supervise(
    proc: subprocess.Popen[bytes],
    deadline: float,
    signal: Any,
    sink: OutputSink,
    on_tick: Callable[[], None],
) -> str:
    delay = 0.002
    while True:
        if sink.limit_reached:
            return "output_limited"
        if proc.poll() is not None:
            return "exited"
        if getattr(signal, "aborted", False):
            return "aborted"
        left = deadline - time.monotonic()
        if left <= 0:
            return "timed_out"
        on_tick()
        await asyncio.sleep(min(delay, left))
        delay = min(delay * 2, POLL_MAX)


async def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    """TERM the whole group, KILL whatever is left after the grace."""
    _signal_group(proc.pid, signals.SIGTERM)
    if await _wait_group_gone(proc, KILL_GRACE):
        return
    _signal_group(proc.pid, signals.SIGKILL)
    await _wait_group_gone(proc, REAP_SECONDS)


async def _wait_group_gone(proc: subprocess.Popen[bytes], seconds: float) -> bool:
    end = time.monotonic() + seconds
    while True:
        proc.poll()  # reap the shell itself
        if not _group_alive(proc.pid):
            return True
        if time.monotonic() >= end:
            return False
        await asyncio.sleep(0.02)


async def _drain(eof: asyncio.Event, on_tick: Callable[[], None]) -> bool:
    """Wait briefly for the end of the output; whether it came."""
    end = time.monotonic() + DRAIN_SECONDS
    while not eof.is_set():
        left = end - time.monotonic()
        if left <= 0:
            return False
        on_tick()
        try:
            await asyncio.wait_for(eof.wait(), min(left, POLL_MAX))
        except TimeoutError:
            pass
    return True


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(pgid: int) -> bool:
    """Whether any live (non-zombie) process is in the group. Zombies do not count: an
    orphan is reaped by init, which in some containers never happens."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        entries = None
    if entries is None or not os.path.exists("/proc/self/stat"):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    for name in entries:
        if not name.isdigit():
            continue
        state_pgrp = process_state(int(name))
        if state_pgrp and state_pgrp[1] == pgid and state_pgrp[0] not in "ZX":
            return True
    return False


def process_state(pid: int) -> tuple[str, int] | None:
    """(state letter, process group) of a process from /proc, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = raw[raw.rfind(")") + 2 :].split()
    if len(fields) < 3:
        return None
    return fields[0], int(fields[2])
