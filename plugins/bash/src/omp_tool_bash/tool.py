"""The ``bash`` tool: run a shell command in the session's working directory."""

from __future__ import annotations

import json
import math
import os
import signal as signals
import tempfile
import time
from typing import Any

from omp import Tool, ToolResult, tool_cwd
from pydantic import BaseModel, Field

from omp_tool_bash.artifact import SETTING as ARTIFACT_SETTING
from omp_tool_bash.limits import ARTIFACT_MAX_BYTES, HARD_LIMIT_BYTES
from omp_tool_bash.output import MAX_BYTES, MAX_LINES, OutputSink, human_size
from omp_tool_bash.runner import Outcome, command_env, run_command, shell_argv

DEFAULT_TIMEOUT = 120.0
MIN_TIMEOUT = 1.0
MAX_TIMEOUT = 3600.0
UPDATE_INTERVAL = 0.05
"""Seconds between streaming updates."""
ARTIFACT_SCHEME = "artifact://"
HARD_LIMIT_SETTING = "bash.outputHardLimitBytes"
MIN_LIMIT_BYTES = 4096
"""The smallest value of either output limit setting."""


class BashParams(BaseModel):
    command: str = Field(description="The shell command to run (bash -c).")
    timeout: float | None = Field(
        default=None,
        allow_inf_nan=False,
        description=f"Timeout in seconds (default {DEFAULT_TIMEOUT:g}, at most {MAX_TIMEOUT:g}).",
    )


class BashTool(Tool):
    name = "bash"
    label = "Bash"
    description = (
        "Run a shell command with bash in the working directory. Non-interactive: stdin is "
        "empty, pagers and prompts are off. stdout and stderr are merged. Output over "
        f"{MAX_LINES} lines or {MAX_BYTES // 1024} KB keeps the tail; the full output is saved "
        "as an artifact. A non-zero exit code is an error."
    )
    parameters = BashParams
    exclusive = True

    async def execute(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        cwd = _working_dir(ctx)
        timeout = clamp_timeout(params.timeout)
        base = {"command": params.command, "cwd": cwd, "timeoutSeconds": timeout}
        if not params.command.strip():
            return ToolResult.error("The command is empty: give a shell command to run.", base)
        if not os.path.isdir(cwd):
            return ToolResult.error(f"Working directory does not exist: {cwd}", base)
        try:
            artifact_max = _byte_setting(ctx, ARTIFACT_SETTING, ARTIFACT_MAX_BYTES)
            hard_limit = _byte_setting(ctx, HARD_LIMIT_SETTING, HARD_LIMIT_BYTES)
        except ValueError as exc:
            return ToolResult.error(str(exc), base)

        sink = OutputSink(_spill_opener(ctx), artifact_max, hard_limit)
        sent = {"version": 0, "at": -math.inf}

        def tick() -> None:
            now = time.monotonic()
            if on_update is None or sink.version == sent["version"]:
                return
            if now - sent["at"] < UPDATE_INTERVAL:
                return
            sent.update(version=sink.version, at=now)
            details = {"totalBytes": sink.total_bytes, "totalLines": sink.total_lines}
            on_update(ToolResult.text(sink.live_text(), details))

        try:
            outcome = await run_command(
                shell_argv(params.command), cwd, timeout, signal, sink, tick, command_env(ctx)
            )
        except OSError as exc:
            return ToolResult.error(f"Could not start the shell: {exc.strerror or exc}", base)
        finally:
            sink.close()
        return _result(outcome, sink, timeout, base)


def clamp_timeout(value: float | None) -> float:
    if value is None:
        return DEFAULT_TIMEOUT
    return min(max(float(value), MIN_TIMEOUT), MAX_TIMEOUT)


def _working_dir(ctx: Any) -> str:
    return os.path.normpath(os.path.expanduser(str(tool_cwd(ctx))))


def _byte_setting(ctx: Any, key: str, default: int) -> int:
    """A byte-count setting of the session; ValueError (one line) when it is not one."""
    settings = getattr(ctx, "settings", None)
    value = settings.get(key, default) if settings is not None else default
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < MIN_LIMIT_BYTES:
        raise ValueError(
            f"Invalid setting {key}: expected a whole number of bytes of at least "
            f"{MIN_LIMIT_BYTES}, got {json.dumps(value, default=str)}"
        )
    return value


def _spill_opener(ctx: Any) -> Any:
    """Where the output goes once it is too long: an artifact of the session, or (with
    no artifact store) a temporary file."""
    try:
        store = getattr(ctx, "artifacts", None)
    except Exception:
        store = None

    def open_spill() -> tuple[str, str]:
        if store is not None:
            try:
                artifact_id = store.save(b"", ".txt")
                return str(store.path(artifact_id)), ARTIFACT_SCHEME + artifact_id
            except Exception:
                pass
        fd, path = tempfile.mkstemp(prefix="omp-bash-", suffix=".txt")
        os.close(fd)
        return path, path

    return open_spill


def _seconds(value: float) -> str:
    return f"{value:g}"


def _result(outcome: Outcome, sink: OutputSink, timeout: float, base: dict[str, Any]) -> ToolResult:
    rendered = sink.render()
    parts = [rendered.text] if rendered.text else ["(no output)"]
    if outcome.detached:
        parts.append(
            "[The command exited but left background processes holding its output; "
            "their later output is not shown. Redirect it to a file (cmd > log 2>&1 &).]"
        )
    code = outcome.exit_code
    if outcome.output_limited:
        parts.append(
            f"Command stopped: its output passed the limit of {human_size(sink.hard_limit)} "
            f"({HARD_LIMIT_SETTING})"
        )
    elif outcome.timed_out:
        parts.append(f"Command timed out after {_seconds(timeout)} s")
    elif outcome.aborted:
        parts.append("Command was aborted")
    elif code is not None and code < 0:
        parts.append(f"Command was killed by signal {_signal_name(-code)}")
    elif code:
        parts.append(f"Exit code: {code}")
    details = {
        **base,
        "exitCode": code,
        "timedOut": outcome.timed_out,
        "aborted": outcome.aborted,
        "outputLimited": outcome.output_limited,
        "truncated": rendered.truncated,
        "artifact": rendered.reference,
        "artifactTruncated": sink.artifact_omitted > 0,
        "durationMs": outcome.duration_ms,
        "totalBytes": sink.total_bytes,
        "totalLines": sink.total_lines,
    }
    failed = outcome.timed_out or outcome.aborted or outcome.output_limited or code != 0
    return ToolResult.text("\n\n".join(parts), details, is_error=failed)


def _signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return str(number)
