"""Dialogs inside the application (select, confirm, text): one shows at a time in
place of the editor, the others wait their turn. Each resolves a future; Esc cancels.

A dialog that pops up while the user is typing must not take that typing as its answer
(a "y" of "yes, and..." approving a tool): for ``GUARD_SECONDS`` after a dialog the
agent's run opened shows (``interactive.dialogGuardMs``), typed characters are kept for
the editor instead and other keys (Enter, arrows) are dropped; Esc and Ctrl+C still
cancel. Dialogs the user opened (a command's picker) take keys at once."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

VISIBLE_OPTIONS = 10
GUARD_SECONDS = 0.4


@dataclass
class Option:
    label: str
    description: str = ""


@dataclass
class Dialog:
    kind: str  # "select" | "confirm" | "text"
    title: str
    message: str = ""
    options: list[Option] = field(default_factory=list)
    multiline: bool = False
    index: int = 0
    answer: bool = True
    future: asyncio.Future[Any] | None = None
    buffer: Any = None
    shown_at: float | None = None
    guard: bool = True
    """Whether the dialog popped up unasked: while the agent runs (a tool approval, a
    tool's question), not from a command or key of the user's (a picker they expect)."""

    def matching(self) -> list[Option]:
        if self.kind != "select":
            return []
        words = self.buffer.text.lower().split() if self.buffer is not None else []
        if not words:
            return self.options
        return [
            o for o in self.options if all(w in f"{o.label} {o.description}".lower() for w in words)
        ]


def _options(options: list[Any]) -> list[Option]:
    found = []
    for option in options:
        if isinstance(option, dict):
            found.append(Option(str(option.get("label", "")), str(option.get("description", ""))))
        else:
            found.append(Option(str(option)))
    return found


class Dialogs:
    """The dialog queue of one application; ``app`` redraws and moves the focus."""

    def __init__(self, app: Any, guard: float = GUARD_SECONDS) -> None:
        self.app = app
        self.guard = guard
        self.queue: list[Dialog] = []

    @property
    def current(self) -> Dialog | None:
        return self.queue[0] if self.queue else None

    @property
    def guarded(self) -> bool:
        """Whether the dialog on show opened too recently to take keys as its answer."""
        dialog = self.current
        if dialog is None or dialog.shown_at is None or not dialog.guard:
            return False
        return time.monotonic() - dialog.shown_at < self.guard

    async def select(
        self, title: str, options: list[Any], message: str = "", *, guard: bool = True
    ) -> str | None:
        from prompt_toolkit.buffer import Buffer

        dialog = Dialog("select", title, message, _options(options), guard=guard)
        dialog.buffer = Buffer(multiline=False, on_text_changed=lambda _: self._refilter(dialog))
        return await self._open(dialog)

    async def confirm(self, title: str, message: str = "") -> bool | None:
        return await self._open(Dialog("confirm", title, message))

    async def text(self, title: str, prefill: str = "", *, multiline: bool) -> str | None:
        from prompt_toolkit.buffer import Buffer
        from prompt_toolkit.document import Document

        dialog = Dialog("text", title, multiline=multiline)
        dialog.buffer = Buffer(multiline=multiline, document=Document(prefill, len(prefill)))
        return await self._open(dialog)

    async def _open(self, dialog: Dialog) -> Any:
        dialog.guard = dialog.guard and self.app.agent_running
        dialog.future = asyncio.get_running_loop().create_future()
        self.queue.append(dialog)
        self._show()
        try:
            return await dialog.future
        finally:
            if dialog in self.queue:
                self.queue.remove(dialog)
            self._show()

    def _refilter(self, dialog: Dialog) -> None:
        dialog.index = 0
        self.app.invalidate()

    def _show(self) -> None:
        dialog = self.current
        if dialog is not None and dialog.shown_at is None:
            dialog.shown_at = time.monotonic()
        self.app.focus_current()
        self.app.invalidate()

    # -- answers (from the key bindings) ------------------------------------------------

    def resolve(self, value: Any) -> None:
        dialog = self.current
        if dialog is not None and dialog.future is not None and not dialog.future.done():
            dialog.future.set_result(value)
        if dialog is not None:
            self.queue.remove(dialog)
        self._show()

    def cancel(self) -> None:
        dialog = self.current
        self.resolve(False if dialog is not None and dialog.kind == "confirm" else None)

    def accept(self) -> None:
        dialog = self.current
        if dialog is None:
            return
        if dialog.kind == "confirm":
            self.resolve(dialog.answer)
        elif dialog.kind == "text":
            self.resolve(dialog.buffer.text)
        else:
            shown = dialog.matching()
            self.resolve(shown[dialog.index].label if shown else None)

    def move(self, step: int) -> None:
        dialog = self.current
        if dialog is None:
            return
        if dialog.kind == "confirm":
            dialog.answer = not dialog.answer
        elif dialog.kind == "select":
            count = len(dialog.matching())
            dialog.index = (dialog.index + step) % count if count else 0
        self.app.invalidate()

    # -- drawing ------------------------------------------------------------------------

    def header(self) -> list[tuple[str, str]]:
        dialog = self.current
        if dialog is None:
            return []
        parts = [("class:dialog.title", dialog.title)]
        if dialog.message:
            parts += [("", "\n"), ("", dialog.message)]
        if dialog.kind == "select":
            parts += [("", "\n"), ("class:dialog.hint", "type to filter: ")]
        return parts

    def body(self) -> list[tuple[str, str]]:
        dialog = self.current
        if dialog is None:
            return []
        if dialog.kind == "confirm":
            yes = "class:dialog.selected" if dialog.answer else ""
            no = "" if dialog.answer else "class:dialog.selected"
            return [(yes, " Yes "), ("", "  "), (no, " No ")]
        shown = dialog.matching()
        if not shown:
            return [("class:dialog.hint", "  (nothing matches)")]
        start = max(0, min(dialog.index - VISIBLE_OPTIONS // 2, len(shown) - VISIBLE_OPTIONS))
        lines: list[tuple[str, str]] = []
        for number, option in enumerate(shown[start : start + VISIBLE_OPTIONS], start=start):
            style = "class:dialog.selected" if number == dialog.index else ""
            marker = "> " if number == dialog.index else "  "
            lines.append((style, f"{marker}{option.label}"))
            if option.description:
                lines.append(("class:dialog.hint", f"  {option.description}"))
            lines.append(("", "\n"))
        if len(shown) > VISIBLE_OPTIONS:
            lines.append(("class:dialog.hint", f"  ({len(shown)} in all)\n"))
        return lines[:-1] if lines and lines[-1] == ("", "\n") else lines

    def hint(self) -> str:
        dialog = self.current
        if dialog is None:
            return ""
        if dialog.kind == "confirm":
            return "y yes · n no · enter choose · esc cancel"
        if dialog.kind == "text" and dialog.multiline:
            return "alt+enter or ctrl+s submit · esc cancel"
        if dialog.kind == "text":
            return "enter submit · esc cancel"
        return "↑↓ move · enter choose · esc cancel"
