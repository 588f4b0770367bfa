"""The SDK's log records as one stderr line each.

The SDK reports what goes wrong in a connection with ``logging.exception`` on the root
logger, which (with no handler installed) configures a handler that prints whole
tracebacks to stderr, where an editor shows them to the user. Here each record becomes
one line; ``OMP_DEBUG=1`` keeps the traceback.
"""

from __future__ import annotations

import logging
import os
import sys


class OneLineFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = " ".join(record.getMessage().split())
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            detail = " ".join(str(exc).split())
            text += f": {type(exc).__name__}" + (f": {detail}" if detail else "")
        return f"omp acp: {text}"


def quiet_sdk_logging() -> None:
    """Install the one-line handler on the root logger, unless something (a plugin,
    the embedding program) configured logging already."""
    root = logging.getLogger()
    if root.handlers or os.environ.get("OMP_DEBUG") == "1":
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLineFormatter())
    handler.setLevel(logging.WARNING)
    root.addHandler(handler)
