"""Finished transcript output printed into the terminal's own scrollback, above the
application: batched, and written while the application is erased (prompt_toolkit's
run_in_terminal), so it never interleaves with the editor."""

from __future__ import annotations

import asyncio
import sys
from typing import Any


class Scrollback:
    def __init__(self) -> None:
        self.application: Any = None
        self._pending: list[str] = []
        self._scheduled = False

    def write(self, text: str) -> None:
        if not text:
            return
        if not text.endswith("\n"):
            text += "\n"
        app = self.application
        if app is None or not app.is_running:
            self._pending.append(text)
            self.write_pending()
            return
        self._pending.append(text)
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        from prompt_toolkit.application import run_in_terminal

        self._scheduled = False
        if self._pending and self.application.is_running:
            run_in_terminal(self.write_pending)

    def write_pending(self) -> None:
        if not self._pending:
            return
        chunk = "".join(self._pending)
        self._pending.clear()
        sys.stdout.write(chunk)
        sys.stdout.flush()
