"""The default way a user command runs: on this machine, through ``api.exec`` (the
runtime's one process runner, without omp's provider keys), ``bash -c`` or
``python3 -c``. An abort signal kills the command's process group and the run ends as
cancelled."""

from __future__ import annotations

import asyncio
import shutil
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omp import AbortSignal, OmpAPI


def program(kind: str) -> str:
    """The interpreter of a ``bash`` or ``python`` user command."""
    if kind == "bash":
        return shutil.which("bash") or "/bin/sh"
    return shutil.which("python3") or sys.executable


async def run(api: OmpAPI, kind: str, code: str, signal: AbortSignal | None) -> dict[str, Any]:
    """The command's output (stdout then stderr), exit code and whether it was cancelled,
    in the shape user_bash results take; a program that cannot start is reported in the
    output with exit code 127, as a shell would."""
    interpreter = program(kind)
    try:
        output, code_, cancelled = await _exec(api, interpreter, code, signal)
    except OSError as exc:
        return {"output": f"cannot run {interpreter}: {exc.strerror or exc}\n", "exit_code": 127}
    return {"output": output, "exit_code": code_, "cancelled": cancelled}


async def _exec(
    api: OmpAPI, interpreter: str, code: str, signal: AbortSignal | None
) -> tuple[str, int | None, bool]:
    running = asyncio.ensure_future(api.exec(interpreter, ["-c", code]))
    if signal is None:
        ran = await running
        return ran.stdout + ran.stderr, ran.code, ran.killed
    loop = asyncio.get_running_loop()

    def cancel() -> None:
        loop.call_soon_threadsafe(running.cancel)

    signal.add_listener(cancel)
    try:
        if signal.aborted:
            running.cancel()
        ran = await running
    except asyncio.CancelledError:
        if not signal.aborted:
            raise
        return "", None, True
    finally:
        signal.remove_listener(cancel)
    return ran.stdout + ran.stderr, ran.code, ran.killed
