"""Entering the interactive mode: a terminal gets the application (its prompt drawn
before the application's modules load); anything else a clear one-line refusal (the
command line picks print mode when stdout is not a tty). The terminal's UI is put in
front of the session first, as any client's is (``attach_client``)."""

from __future__ import annotations

import sys
from typing import Any

from omp import AgentSession


async def run_interactive(session: AgentSession, request: Any) -> int:
    from omp_mode_interactive.terminal_ui import TerminalUI

    ui = TerminalUI()
    session.attach_client(ui=ui)
    if not (sys.stdout.isatty() and sys.stdin.isatty()):
        print(
            "omp: the interactive mode needs a terminal on stdin and stdout; "
            'run one prompt with omp -p "..."',
            file=sys.stderr,
        )
        return 2
    from omp_mode_interactive.instant import InstantPrompt
    from omp_mode_interactive.render.theme import choose_theme

    instant = InstantPrompt()
    theme = choose_theme(session.settings)
    try:
        instant.draw(session, ui, theme)
        from omp_mode_interactive.app import InteractiveApp

        return await InteractiveApp(session, request, ui=ui, theme=theme, instant=instant).run()
    finally:
        instant.restore()
