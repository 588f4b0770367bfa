"""The SDK's log records: the details (tracebacks included) go to the debug log, the
user gets one line per problem, naming the server.

The SDK logs what a server does wrong (a line on its stdout that is not JSON-RPC, a
notification it cannot validate) with ``logger.exception``; with no handler installed
Python prints each record and its traceback on stderr, in the middle of the user's
run. A connection's task sets ``current_server``, so a record logged while serving
that server is reported as its problem (``Connection.problem``).
"""

from __future__ import annotations

import contextvars
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

SDK_LOGGER = "mcp"
MAX_LOG_BYTES = 1 << 20
QUOTED_CHARS = 60

current_server: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "omp_mcp_current_server", default=None
)
"""The ``Connection`` whose task is running (each connection's task sets it)."""


def debug_log_path() -> Path:
    from omp import agent_dir

    return agent_dir() / "logs" / "mcp.log"


class _SdkRecords(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            connection = current_server.get()
            path = debug_log_path()  # per record: each session may have its agent dir
            details = self.format(record)
            line = summary(record)
            if connection is not None:
                details = connection.config.redact(f"[{connection.name}] {details}")
                line = connection.config.redact(line)
            _append(path, details)
            if connection is not None:
                connection.problem(line, path)
            else:
                print(f"omp: mcp: {line} (details in {path})", file=sys.stderr, flush=True)
        except Exception:
            self.handleError(record)


def _append(path: Path, details: str) -> None:
    """Add to the debug log; over ``MAX_LOG_BYTES`` it is moved to ``mcp.log.1`` first."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > MAX_LOG_BYTES:
            os.replace(path, path.with_suffix(".log.1"))
        with open(path, "a", encoding="utf-8") as log:
            log.write(details + "\n")
    except OSError:
        pass  # a debug log that cannot be written must not break the session


def summary(record: logging.LogRecord) -> str:
    """One readable line for a record."""
    exc = record.exc_info[1] if record.exc_info else None
    message = record.getMessage()
    if message.startswith("Failed to parse JSONRPC message") and exc is not None:
        return _not_json_rpc(exc)
    text = " ".join(message.split())
    if exc is not None:
        from omp_mcp.errors import describe_error

        text += f": {describe_error(exc)}"
    return text


def _not_json_rpc(exc: BaseException) -> str:
    errors = getattr(exc, "errors", None)
    first: dict[str, Any] = {}
    if callable(errors):
        try:
            first = (errors() or [{}])[0]
        except Exception:
            first = {}
    what = first.get("msg") if first.get("type") == "json_invalid" else "not a JSON-RPC message"
    if "input" not in first:
        return f"sent a line that is not JSON-RPC ({what})"
    line = first["input"]
    if not isinstance(line, str):
        line = json.dumps(line, default=str)
    quoted = line if len(line) <= QUOTED_CHARS else line[:QUOTED_CHARS] + "…"
    return f"sent a line that is not JSON-RPC ({what}): {quoted!r}"


def route_sdk_logs() -> None:
    """Send the SDK's records through the handler above, once per process. With
    ``OMP_DEBUG=1`` they also reach stderr as before, tracebacks included."""
    logger = logging.getLogger(SDK_LOGGER)
    if any(isinstance(h, _SdkRecords) for h in logger.handlers):
        return
    logger.addHandler(_SdkRecords())
    logger.propagate = os.environ.get("OMP_DEBUG") == "1"
