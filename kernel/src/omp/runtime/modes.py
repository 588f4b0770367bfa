"""Running a session in a mode: handing it to the mode, then shutting it down."""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ModeRequest:
    """What the command line asked a run mode to do."""

    prompts: list[str] = field(default_factory=list)
    verbose: bool = False
    images: list[Any] = field(default_factory=list)
    """Images attached with ``@path`` arguments: they go with the first prompt (as
    ``session.prompt(text, images=...)``); the files' text is already in it."""
    pick_session: bool = False
    """``--resume`` (or ``--session``) without an id, in a terminal: the mode opens its
    session picker before the first prompt (the session given is a new, empty one)."""


def run_mode(mode: Any, session: Any, request: ModeRequest) -> int:
    """Hand the session to the mode, then shut it down; the mode's exit code.

    The mode gets the session before it starts, so it can subscribe first; the session
    starts on ``session.start()`` or with the first prompt. A signal ends the run as
    ``omp.runtime.signals`` describes (``Stopped`` carries the exit status). Threads running
    plugin code are never waited for (``omp.base.threads``).
    """

    from omp.base.threads import detach_default_executor
    from omp.runtime.signals import RunSignals, Stopped

    async def body() -> int:
        signals.attach()
        detach_default_executor()
        try:
            outcome = mode.run(_public(session) if mode.public_session else session, request)
            code = await outcome if inspect.isawaitable(outcome) else outcome
        finally:
            await session.shutdown()
        return int(code or 0)

    with RunSignals() as signals:
        try:
            return asyncio.run(body())
        except (asyncio.CancelledError, KeyboardInterrupt):
            if signals.received is None:
                raise
            raise Stopped(signals.received) from None


def _public(session: Any) -> Any:
    from omp.runtime.sdk_session import AgentSession

    return AgentSession(session)
