"""Hook implementations of the OpenAI Responses provider. Cheap to import: httpx, pydantic
and the wire code load on the first request to one of its providers."""

from __future__ import annotations

import omp


@omp.hookimpl
def omp_register_providers(api):
    from omp_llm.provider import providers_for

    return providers_for("openai-responses", _wire, api.agent_dir)


def _wire():
    """The wire code (and httpx), loaded on the first request to one of the providers."""
    from omp_provider_openai_responses.wire import WIRE

    return WIRE
