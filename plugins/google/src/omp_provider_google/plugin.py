"""Hook implementation of the Gemini provider. Cheap to import: httpx and the wire
format load only when providers are registered."""

from __future__ import annotations

import omp


@omp.hookimpl
def omp_register_providers(api):
    from omp.llm.config import load_providers
    from omp.llm.provider import HttpProvider

    from omp_provider_google.wire import WIRE

    return [
        HttpProvider(cfg, WIRE, api.agent_dir)
        for cfg in load_providers(api.agent_dir)
        if cfg.api == WIRE.api
    ]
