"""Hook implementation of the Anthropic Messages provider. Cheap to import: httpx and
the wire format load only when providers are registered."""

from __future__ import annotations

import omp


@omp.hookimpl
def omp_register_providers(api):
    from omp.llm.provider import providers_for

    from omp_provider_anthropic.wire import WIRE

    return providers_for(WIRE.api, WIRE, api.agent_dir)
