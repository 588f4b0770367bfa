"""The json run mode (``--mode json``): line 1 is the session header, then one JSON
line per event, as omp writes them."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import omp
from omp import RunMode


@omp.hookimpl
def omp_register_modes(api):
    return [
        RunMode(
            "json",
            "Print the session header, then every event as a JSON line",
            run=run_json,
            make_ui=_event_ui,
            public_session=True,
        )
    ]


def _event_ui(session: Any) -> omp.EventUI:
    """The UI, imported when the mode runs: it brings asyncio, which ``omp --help``
    (it lists the modes) does not need."""
    from omp import EventUI

    return EventUI(session)


def _write(payload: dict[str, Any], redact: Callable[[str], str] = str) -> None:
    sys.stdout.write(redact(json.dumps(payload, ensure_ascii=False, separators=(",", ":"))) + "\n")
    sys.stdout.flush()


async def run_json(session: omp.AgentSession, request: Any) -> int:
    if not request.prompts:
        print("omp: no prompt given: pass text as arguments, or pipe it on stdin", file=sys.stderr)
        return 2
    redact = session.redact  # what the user typed, or a plugin's notice
    _write(session.header)
    session.subscribe(
        lambda event: _write(event.model_dump(mode="json", exclude_none=True), redact)
    )
    final = await session.run_prompts(request.prompts, request.images)
    if session.abort_reason:
        return 1
    return 1 if final is not None and final.stop_reason in ("error", "aborted") else 0
