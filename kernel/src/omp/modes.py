"""Running a session in a mode: the shared start/run/shutdown sequence."""

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


def run_mode(mode: Any, session: Any, request: ModeRequest) -> int:
    """Start the session, hand it to the mode, shut it down; the mode's exit code."""

    async def body() -> int:
        await session.start()
        try:
            outcome = mode.run(session, request)
            code = await outcome if inspect.isawaitable(outcome) else outcome
        finally:
            await session.shutdown()
        return int(code or 0)

    return asyncio.run(body())
