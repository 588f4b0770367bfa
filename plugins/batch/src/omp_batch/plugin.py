"""Entry module: only the hook, cheap to import (``omp --help`` loads it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import omp
from omp import SettingSpec, Subcommand

if TYPE_CHECKING:
    from omp import SubcommandContext


def _run(args: list[str], ctx: SubcommandContext) -> int:
    from omp_batch.command import run

    return run(args, ctx)


@omp.hookimpl
def omp_register_subcommands(api: Any) -> list[Subcommand]:
    return [Subcommand("batch", "run many tasks (a JSONL file) as independent sessions", _run)]


@omp.hookimpl
def omp_register_settings(api: Any) -> list[SettingSpec]:
    return [
        SettingSpec(
            f"batch.{unit}PerMinute",
            "map",
            {},
            f"omp batch: provider name (or *) to {unit} per minute, shared by every worker",
            items="integer",
        )
        for unit in ("requests", "tokens")
    ]
