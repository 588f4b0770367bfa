"""Hook implementations of the llm plugin: the user's provider configuration as the
kernel reads it (``omp.plugin.contrib.ProviderConfigSource``) and ``omp models``, the
listing of the model catalogue. Cheap to import."""

from __future__ import annotations

from typing import TYPE_CHECKING

import omp

if TYPE_CHECKING:
    from omp import SubcommandContext


@omp.hookimpl
def omp_register_provider_configs(api):
    from omp_llm.sources import source

    return [source()]


def _models(args: list[str], ctx: SubcommandContext) -> int:
    from omp_llm.models_cmd import run

    return run(args, ctx)


@omp.hookimpl
def omp_register_subcommands(api):
    return [
        omp.Subcommand(
            "models",
            "List available models (optionally matching SEARCH) and which can be used",
            _models,
        )
    ]
