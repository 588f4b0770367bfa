"""What any handler's result becomes: a ``UserShellRun`` whose message keeps the last
3000 lines / 50 KiB of the output, with every secret omp knows hidden (before the cut,
so no secret is cut in half and left readable)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from omp import BashExecutionMessage, PythonExecutionMessage, UserShellRun

MAX_LINES = 3000
MAX_BYTES = 50 * 1024


def shaped(
    result: Any, command: str, kind: str, exclude: bool, redact: Callable[[str], str] = str
) -> UserShellRun:
    """The run recorded for ``command`` from a handler's ``result`` (see ``fields``)."""
    output, exit_code, cancelled = fields(result)
    output = redact(output)
    total_lines, total_bytes = len(output.splitlines()), len(output.encode("utf-8"))
    output, truncated = tail(output)
    values: dict[str, Any] = {
        "output": output,
        "exit_code": exit_code,
        "cancelled": cancelled,
        "truncated": truncated,
        "exclude_from_context": exclude or None,
    }
    if kind == "bash":
        message: Any = BashExecutionMessage(command=command, **values)
    else:
        message = PythonExecutionMessage(code=command, **values)
    return UserShellRun(message=message, total_lines=total_lines, total_bytes=total_bytes)


def fields(result: Any) -> tuple[str, int | None, bool]:
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


def tail(output: str) -> tuple[str, bool]:
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
