"""Hook implementations of the OpenAI Responses provider. Cheap to import: httpx, pydantic
and the wire code load only when providers are registered."""

from __future__ import annotations

import omp


@omp.hookimpl
def omp_register_providers(api):
    from omp.llm.provider import providers_for

    from omp_provider_openai_responses.wire import WIRE

    return providers_for(WIRE.api, WIRE, api.agent_dir)
