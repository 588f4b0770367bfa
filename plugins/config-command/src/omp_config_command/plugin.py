"""Registers the ``config`` command family; the command itself loads when it runs."""

from __future__ import annotations

from typing import Any

import omp
from omp import Subcommand


def _run(args: list[str], runtime: Any) -> int:
    from omp_config_command.command import run

    return run(args, runtime.cwd, runtime.settings.schema)


@omp.hookimpl
def omp_register_subcommands(api: Any) -> list[Subcommand]:
    return [Subcommand("config", "read and write settings (list, get, set, unset)", _run)]
