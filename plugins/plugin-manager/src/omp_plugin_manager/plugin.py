"""Entry module: only the hook, cheap to import (every ``omp`` run loads it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import omp

if TYPE_CHECKING:
    from omp import SubcommandContext


def _run(args: list[str], ctx: SubcommandContext) -> int:
    from omp_plugin_manager.cli import run

    return run(args, ctx)


@omp.hookimpl
def omp_register_subcommands(api: Any) -> list[Any]:
    from omp import Subcommand

    return [
        Subcommand(
            "plugin",
            "add, remove, list, enable, disable, info, doctor, new and sync plugins",
            _run,
        )
    ]
