"""``ctx.ui`` in the terminal: dialogs open inside the application, decorations
(statuses, widgets, the working message, the title, the editor's text) show at once."""

from __future__ import annotations

import sys
from typing import Any

from omp import UI


class TerminalUI(UI):
    """Forwards to the running ``InteractiveApp`` (attached as ``app`` once it exists);
    before that, notifications go to stderr and dialogs take their default."""

    def __init__(self) -> None:
        super().__init__()
        self.app: Any = None
        self.pending_approvals: set[str] = set()
        """Tool calls whose approval is being asked (omp_tool_approval_requested)."""

    def approval_started(self, tool_call_id: str) -> None:
        self.pending_approvals.add(tool_call_id)
        self._redraw()

    def approval_ended(self, tool_call_id: str) -> None:
        self.pending_approvals.discard(tool_call_id)
        self._redraw()

    async def _ask_select(self, title: str, options: list[Any]) -> str | None:
        if self.app is None:
            return None
        return await self.app.dialogs.select(title, options)

    async def _ask_confirm(self, title: str, message: str) -> bool:
        if self.app is None:
            return False
        return bool(await self.app.dialogs.confirm(title, message))

    async def _ask_input(self, title: str, placeholder: str) -> str | None:
        if self.app is None:
            return None
        return await self.app.dialogs.text(title, placeholder, multiline=False)

    async def _ask_editor(self, title: str, prefill: str) -> str | None:
        if self.app is None:
            return None
        return await self.app.dialogs.text(title, prefill, multiline=True)

    def notify(self, message: str, level: str = "info") -> None:
        if self.app is None:
            prefix = "" if level == "info" else f"{level}: "
            print(f"omp: {prefix}{message}", file=sys.stderr, flush=True)
            return
        self.app.notify(message, level)

    def set_status(self, key: str, text: str | None) -> None:
        super().set_status(key, text)
        self._redraw()

    def set_working_message(self, text: str | None) -> None:
        super().set_working_message(text)
        self._redraw()

    def set_widget(self, key: str, lines: list[str] | None, **options: Any) -> None:
        super().set_widget(key, lines, **options)
        self._redraw()

    def set_title(self, title: str) -> None:
        super().set_title(title)
        if self.app is not None:
            self.app.show_title()

    def set_editor_text(self, text: str) -> None:
        super().set_editor_text(text)
        if self.app is not None:
            self.app.editor.set_text(text)

    def get_editor_text(self) -> str:
        return self.app.editor.text if self.app is not None else self.editor_text

    def set_tools_expanded(self, expanded: bool) -> None:
        super().set_tools_expanded(expanded)
        if self.app is not None:
            self.app.transcript.set_tools_expanded(self.tools_expanded)
            self._redraw()

    def session_switched(self, reason: str) -> None:
        """A new, resumed or forked session became current (omp_session_switch)."""
        if self.app is not None:
            self.app.session_switched(reason)

    def _redraw(self) -> None:
        if self.app is not None:
            self.app.invalidate()
