"""The UI surface handlers see as ``ctx.ui``. ``NullUI`` is what modes without a UI
give: dialogs return their default and decorations do nothing (``ctx.has_ui`` tells)."""

from __future__ import annotations

import sys
from typing import Any


class UI:
    """Base UI: every method has the no-UI behaviour; interactive modes override."""

    def select(self, title: str, items: list[Any], **options: Any) -> Any:
        return None

    def confirm(self, title: str, message: str = "", **options: Any) -> bool:
        return False

    def input(self, title: str, placeholder: str = "", **options: Any) -> str | None:
        return None

    def editor(self, title: str, prefill: str = "", **options: Any) -> str | None:
        return None

    def notify(self, message: str, level: str = "info") -> None:
        return None

    def set_status(self, key: str, text: str | None) -> None:
        return None

    def set_widget(self, key: str, lines: list[str] | None, **options: Any) -> None:
        return None

    def set_title(self, title: str) -> None:
        return None


class NullUI(UI):
    """For modes with no user interface at all."""


class StderrUI(UI):
    """For one-shot modes: notifications go to stderr, dialogs take their default."""

    def __init__(self, stream: Any = None) -> None:
        self._stream = stream

    def notify(self, message: str, level: str = "info") -> None:
        prefix = "" if level == "info" else f"{level}: "
        print(f"omp: {prefix}{message}", file=self._stream or sys.stderr, flush=True)


class EventUI(UI):
    """For machine-readable modes: notifications become ``notice`` events."""

    def __init__(self, session: Any) -> None:
        self._session = session

    def notify(self, message: str, level: str = "info") -> None:
        self._session.post_notice(message, level)
