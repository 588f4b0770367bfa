"""Entering the interactive mode: a terminal gets the application (its prompt drawn
before the application's modules load); anything else a clear one-line refusal (the
command line picks print mode when stdout is not a tty)."""

from __future__ import annotations

import sys
from typing import Any


async def run_interactive(session: Any, request: Any) -> int:
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
        instant.draw(session, theme)
        from omp_mode_interactive.app import InteractiveApp

        return await InteractiveApp(session, request, theme=theme, instant=instant).run()
    finally:
        instant.restore()
