"""Commands the user runs straight from the prompt, as in omp.

``!cmd`` runs a shell command and adds a ``bashExecution`` message (command, output,
exit code) to the conversation, so the model sees it with the next prompt; ``!!cmd``
runs it and shows it but keeps it out of the model's context. ``$code`` and ``$$code``
do the same with Python (a ``pythonExecution`` message): this project has no Python
REPL, so the code runs as ``python3 -c``. Handlers of user_bash / user_python see each
run first and may supply its result instead. Commands run through ``api.exec``, the
runtime's one process runner (without omp's provider keys); the output keeps its last
3000 lines / 50 KiB, with every secret omp knows hidden.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from dataclasses import dataclass
from typing import Any

from omp.agent.events import UserBashEvent, UserPythonEvent
from omp.agent.messages import BashExecutionMessage, PythonExecutionMessage

MAX_LINES = 3000
MAX_BYTES = 50 * 1024
_PREFIXES = (
    ("!!", "bash", True),
    ("!", "bash", False),
    ("$$", "python", True),
    ("$", "python", False),
)


def parse(text: str) -> tuple[str, str, str, bool] | None:
    """(prefix, kind, code, exclude_from_context) for a user command, else None."""
    for prefix, kind, exclude in _PREFIXES:
        if text.startswith(prefix):
            return prefix, kind, text[len(prefix) :].strip(), exclude
    return None


async def run_user_command(session: Any, text: str) -> bool:
    """Run ``text`` if it is a user command (then True), else leave it (False)."""
    parsed = parse(text)
    if parsed is None:
        return False
    prefix, kind, code, exclude = parsed
    if not code:
        await session.notice(f"nothing to run after {prefix}", "warning")
        return True
    try:
        message = (await execute(session, kind, code, exclude)).message
    except OSError as exc:
        await session.notice(f"cannot run {kind}: {exc.strerror or exc}", "error")
        return True
    if session.agent.is_streaming:
        session.agent.steer(message)
    else:
        await session.agent.add_message(message)
    return True


@dataclass
class ShellRun:
    """One user command's message (output cut to its tail) and its full output's size."""

    message: Any
    total_lines: int
    total_bytes: int


async def execute(
    session: Any, kind: str, code: str, exclude: bool = False, signal: Any = None
) -> ShellRun:
    """Run ``code`` (``kind`` bash or python) as the user's command, through the
    user_bash / user_python hooks; the message is not yet added to the conversation.
    An abort ``signal`` (``omp.base.abort.AbortSignal``) kills the command's process group and
    the run ends as cancelled. Raises OSError when the program cannot be started."""
    if kind == "bash":
        bash = UserBashEvent(command=code, exclude_from_context=exclude, cwd=session.cwd)
        program = shutil.which("bash") or "/bin/sh"
        override = await session.hooks.user_bash(bash)
    else:
        python = UserPythonEvent(code=code, exclude_from_context=exclude, cwd=session.cwd)
        program = shutil.which("python3") or sys.executable
        override = await session.hooks.user_python(python)
    if override is not None:
        output, exit_code, cancelled = _from_result(override.result)
    else:
        output, exit_code, cancelled = await _exec(session, program, code, signal)
    output = session.secrets.redact(output)
    total_lines, total_bytes = len(output.splitlines()), len(output.encode("utf-8"))
    output, truncated = _tail(output)
    fields = {
        "output": output,
        "exit_code": exit_code,
        "cancelled": cancelled,
        "truncated": truncated,
        "exclude_from_context": exclude or None,
    }
    if kind == "bash":
        message: Any = BashExecutionMessage(command=code, **fields)
    else:
        message = PythonExecutionMessage(code=code, **fields)
    return ShellRun(message, total_lines, total_bytes)


async def _exec(session: Any, program: str, code: str, signal: Any) -> tuple[str, int | None, bool]:
    running = asyncio.ensure_future(session.api.exec(program, ["-c", code]))
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


def _from_result(result: Any) -> tuple[str, int | None, bool]:
    """(output, exit code, cancelled) of a handler's result: an ``api.exec`` result or a
    dict with stdout/stderr/code/killed, or output/exit_code/cancelled (camelCase too)."""
    if not isinstance(result, dict):
        result = dict(vars(result)) if hasattr(result, "__dict__") else {"output": str(result)}
    if "output" in result:
        output = str(result.get("output") or "")
    else:
        output = str(result.get("stdout") or "") + str(result.get("stderr") or "")
    code = next((result[k] for k in ("exit_code", "exitCode", "code") if k in result), 0)
    cancelled = bool(result.get("cancelled") or result.get("killed"))
    return output, code, cancelled


def _tail(output: str) -> tuple[str, bool]:
    """The end of ``output`` within MAX_LINES and MAX_BYTES, and whether it was cut."""
    lines = output.splitlines(keepends=True)
    truncated = len(lines) > MAX_LINES
    if truncated:
        output = "".join(lines[-MAX_LINES:])
    data = output.encode("utf-8")
    if len(data) > MAX_BYTES:
        output = data[-MAX_BYTES:].decode("utf-8", "ignore")
        truncated = True
    return output, truncated
