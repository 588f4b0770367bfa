"""Hook implementation of the llm plugin: the user's provider configuration as the
kernel reads it (``omp.plugin.contrib.ProviderConfigSource``). Cheap to import."""

from __future__ import annotations

import omp


@omp.hookimpl
def omp_register_provider_configs(api):
    from omp_llm.sources import source

    return [source()]
