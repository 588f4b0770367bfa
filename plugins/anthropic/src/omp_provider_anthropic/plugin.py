"""Hook implementation of the Anthropic Messages provider. Cheap to import: httpx and
the wire format load only when providers are registered."""

from __future__ import annotations

import omp

API = "anthropic-messages"


@omp.hookimpl
def omp_register_providers(api):
    from omp.llm.config import load_providers
    from omp.llm.provider import HttpProvider

    from omp_provider_anthropic.wire import WIRE

    return [
        HttpProvider(cfg, WIRE, api.agent_dir)
        for cfg in load_providers(api.agent_dir)
        if cfg.api == API
    ]
