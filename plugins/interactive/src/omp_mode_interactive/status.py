"""The spinner line (with the elapsed time and the working message) and the footer
(model, thinking level, context use, tokens, cost, plugin statuses)."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omp import UI, AgentSession

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK = 0.1


class StatusLine:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.since: float | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._footer: tuple[Any, str] = (None, "")

    def start(self) -> None:
        self._ticker = asyncio.ensure_future(self._tick())

    def stop(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()

    def begin(self) -> None:
        self.since = time.monotonic()

    def end(self) -> None:
        self.since = None

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(TICK)
            if self.since is not None or self.app.working:
                self.app.invalidate()

    def spinner(self) -> str:
        if self.since is None and not self.app.working:
            return ""
        since = self.since or time.monotonic()
        elapsed = time.monotonic() - since
        frame = FRAMES[int(elapsed / TICK) % len(FRAMES)]
        message = self.app.ui.working_message or "Working"
        if getattr(self.app.ui, "pending_approvals", None) and self.app.dialogs.current:
            message = "Waiting for approval"
        theme = self.app.theme
        return (
            theme.paint(frame, "accent")
            + " "
            + theme.paint(f"{message}…", "accent")
            + theme.paint(f" ({_elapsed(elapsed)} · esc to interrupt)", "muted")
        )

    def info(self) -> Any:
        return footer_info(self.app.session, self.app.ui, working=self.since is not None)

    def footer(self, width: int) -> str:
        """The footer's ANSI, drawn again only when what it shows changed."""
        try:
            from omp_mode_interactive.render.footer import render_footer
        except ImportError:
            return self._plain(width)
        info = self.info()
        key = (info, width)
        if self._footer[0] != key:
            self._footer = (key, render_footer(info, width, self.app.theme))
        return self._footer[1]

    def _plain(self, width: int) -> str:
        session = self.app.session
        model = session.model
        text = f"{model.key if model else 'no model'} · {session.thinking_level}"
        return self.app.theme.paint(text[:width], "footer")


def footer_info(session: AgentSession, ui: UI, *, working: bool = False) -> Any:
    """What the footer shows of ``session`` (the working message goes to the spinner
    while the agent works)."""
    from omp_mode_interactive.render.footer import FooterInfo

    model = session.model
    usage = session.context_usage() or {}
    totals = session.usage_totals()
    return FooterInfo(
        model=model.key if model else "no model",
        thinking_level=session.thinking_level,
        context_percent=usage.get("percent"),
        context_window=model.context_window if model else None,
        tokens_in=totals.input,
        tokens_out=totals.output,
        cost=totals.cost,
        cost_unknown=bool(totals.unpriced),
        statuses=dict(ui.statuses),
        working_message=None if working else ui.working_message,
        session_name=session.session_view.name,
        cwd=str(session.cwd),
    )


def _elapsed(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole}s" if whole < 60 else f"{whole // 60}m {whole % 60:02d}s"
