"""Hook implementations of the interactive mode: the run mode, its flag, the
session-switch notice that makes the terminal show the new session's history, and the
tool approvals the spinner reports as waiting."""

from __future__ import annotations

from typing import Any

import omp
from omp import Flag, RunMode, SettingSpec


@omp.hookimpl
def omp_register_modes(api):
    return [
        RunMode(
            "interactive",
            "The terminal UI: an editor, the streamed transcript, dialogs and a footer",
            run=_run,
            has_ui=True,
            public_session=True,
        )
    ]


@omp.hookimpl
def omp_register_flags(api):
    return [Flag("hide-thinking", "Interactive mode: start with thinking blocks hidden (Ctrl+T)")]


@omp.hookimpl
def omp_session_switch(event, ctx):
    switched = getattr(ctx.ui, "session_switched", None)
    if switched is not None:
        switched(event.reason)


@omp.hookimpl
def omp_tool_approval_requested(event, ctx):
    started = getattr(ctx.ui, "approval_started", None)
    if started is not None:
        started(event.tool_call_id)


@omp.hookimpl
def omp_tool_approval_resolved(event, ctx):
    ended = getattr(ctx.ui, "approval_ended", None)
    if ended is not None:
        ended(event.tool_call_id)


async def _run(session: omp.AgentSession, request: Any) -> int:
    from omp_mode_interactive.mode import run_interactive

    return await run_interactive(session, request)


@omp.hookimpl
def omp_register_settings(api: Any) -> list[SettingSpec]:
    return [
        SettingSpec(
            "theme",
            "string",
            None,
            "terminal UI colours (unset: from the terminal's background; NO_COLOR wins)",
            choices=("dark", "light"),
            nullable=True,
        ),
        SettingSpec(
            "interactive.dialogGuardMs",
            "integer",
            400,
            "keys typed this soon after a dialog pops up go to the editor, not the dialog",
            minimum=0,
        ),
    ]
