"""Entering the interactive mode: a terminal gets the application; anything else a
clear one-line refusal (the command line picks print mode when stdout is not a tty)."""

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
    from omp_mode_interactive.app import InteractiveApp

    return await InteractiveApp(session, request).run()
