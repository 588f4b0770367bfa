"""Entry module: only the hooks, cheap to import (``omp --help`` loads it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import omp
from omp import RunMode, Subcommand

if TYPE_CHECKING:
    from omp import SubcommandContext


def _command(args: list[str], ctx: SubcommandContext) -> Any:
    from omp_mode_acp.launch import run_command

    return run_command(args, ctx)


async def _mode(session: Any, request: Any) -> int:
    from omp_mode_acp.launch import run_mode

    return await run_mode(session, request)


@omp.hookimpl
def omp_register_subcommands(api: Any) -> list[Subcommand]:
    return [
        Subcommand("acp", "serve the Agent Client Protocol on stdin/stdout (editors)", _command)
    ]


@omp.hookimpl
def omp_register_modes(api: Any) -> list[RunMode]:
    return [
        RunMode(
            "acp",
            "Serve the Agent Client Protocol on stdin/stdout (editors)",
            run=_mode,
            has_ui=True,
            reads_stdin=True,
            takes_prompts=False,
            public_session=True,
        )
    ]
