"""Registers the ``config`` command family; the command itself loads when it runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import omp
from omp import Subcommand

if TYPE_CHECKING:
    from omp import SubcommandContext


def _run(args: list[str], ctx: SubcommandContext) -> int:
    from omp_config_command.command import run

    return run(args, ctx.cwd, ctx.settings.schema)


@omp.hookimpl
def omp_register_subcommands(api: Any) -> list[Subcommand]:
    return [Subcommand("config", "read and write settings (list, get, set, unset)", _run)]
