"""The UI surface handlers see as ``ctx.ui``.

Dialogs (``select``, ``confirm``, ``input``, ``editor``) are awaitable and take a
``timeout`` (seconds) and an abort ``signal``; on timeout, abort or where there is no UI
they return their default (``None``, or ``False`` for confirm) at once. A mode with a
real UI subclasses ``UI`` and implements the ``_ask_*`` methods; the base class applies
timeouts and cancellation once for every mode. ``NullUI`` is what modes without a UI
give (``ctx.has_ui`` tells); decorations (status, widgets, title, editor text) do
nothing there, but what a handler stores is kept so it can be read back.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable
from typing import Any, TypeVar

from omp.base.abort import AbortSignal
from omp.base.hooktime import paused_clock

_T = TypeVar("_T")


class UI:
    """Base UI: every method has the no-UI behaviour; interactive modes override."""

    def __init__(self) -> None:
        self.statuses: dict[str, str] = {}
        self.widgets: dict[str, list[str]] = {}
        self.title: str | None = None
        self.working_message: str | None = None
        self.editor_text = ""
        self.tools_expanded = False

    # -- dialogs ----------------------------------------------------------------------

    async def select(
        self,
        title: str,
        options: list[Any],
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        """The label the user chose from ``options`` (strings or ``{"label",
        "description"}``), or None (cancelled, timed out, or no UI)."""
        return await self._dialog(self._ask_select(title, options), None, timeout, signal)

    async def confirm(
        self,
        title: str,
        message: str = "",
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> bool:
        """True only when the user said yes."""
        answer = await self._dialog(self._ask_confirm(title, message), False, timeout, signal)
        return bool(answer)

    async def input(
        self,
        title: str,
        placeholder: str = "",
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        return await self._dialog(self._ask_input(title, placeholder), None, timeout, signal)

    async def editor(
        self,
        title: str,
        prefill: str = "",
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        return await self._dialog(self._ask_editor(title, prefill), None, timeout, signal)

    async def _ask_select(self, title: str, options: list[Any]) -> str | None:
        return None

    async def _ask_confirm(self, title: str, message: str) -> bool:
        return False

    async def _ask_input(self, title: str, placeholder: str) -> str | None:
        return None

    async def _ask_editor(self, title: str, prefill: str) -> str | None:
        return None

    async def _dialog(
        self,
        pending: Awaitable[_T],
        default: _T,
        timeout: float | None,
        signal: AbortSignal | None,
    ) -> _T:
        """``pending``'s answer, or ``default`` when it times out or ``signal`` aborts."""
        task = asyncio.ensure_future(pending)
        if task.done():
            return task.result()
        loop = asyncio.get_running_loop()

        def cancel() -> None:
            loop.call_soon_threadsafe(task.cancel)

        if signal is not None:
            if signal.aborted:
                task.cancel()
                return default
            signal.add_listener(cancel)
        try:
            with paused_clock():
                async with asyncio.timeout(timeout):
                    return await task
        except TimeoutError:
            return default
        except asyncio.CancelledError:
            if signal is not None and signal.aborted:
                return default
            raise
        finally:
            if signal is not None:
                signal.remove_listener(cancel)
            task.cancel()

    # -- decorations ----------------------------------------------------------------

    def notify(self, message: str, level: str = "info") -> None:
        return None

    def set_status(self, key: str, text: str | None) -> None:
        """A line in the footer under ``key``; None removes it."""
        if text is None:
            self.statuses.pop(key, None)
        else:
            self.statuses[key] = text

    def set_working_message(self, text: str | None) -> None:
        """What the spinner says while the agent works; None restores the default."""
        self.working_message = text

    def set_widget(self, key: str, lines: list[str] | None, **options: Any) -> None:
        """Lines shown above the editor under ``key``; None removes them."""
        if lines is None:
            self.widgets.pop(key, None)
        else:
            self.widgets[key] = list(lines)

    def set_title(self, title: str) -> None:
        self.title = title

    def set_editor_text(self, text: str) -> None:
        self.editor_text = text

    def get_editor_text(self) -> str:
        return self.editor_text

    def get_tools_expanded(self) -> bool:
        return self.tools_expanded

    def set_tools_expanded(self, expanded: bool) -> None:
        self.tools_expanded = bool(expanded)


class NullUI(UI):
    """For modes with no user interface at all."""


class StderrUI(UI):
    """For one-shot modes: notifications go to stderr, dialogs take their default."""

    def __init__(self, stream: Any = None) -> None:
        super().__init__()
        self._stream = stream

    def notify(self, message: str, level: str = "info") -> None:
        prefix = "" if level == "info" else f"{level}: "
        print(f"omp: {prefix}{message}", file=self._stream or sys.stderr, flush=True)


class EventUI(UI):
    """For machine-readable modes: notifications become ``notice`` events."""

    def __init__(self, session: Any) -> None:
        super().__init__()
        self._session = session

    def notify(self, message: str, level: str = "info") -> None:
        self._session.post_notice(message, level)
