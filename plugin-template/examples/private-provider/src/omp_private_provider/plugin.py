"""A provider for your company's OpenAI-compatible endpoint, shipped as a plugin instead
of a models.json entry: everyone who installs it gets the same models.

It reuses omp-llm's ``HttpProvider`` (keys, retries, timeouts, error redaction) and
the openai-completions plugin's wire format, so this file only describes the endpoint.
``ACME_BASE_URL`` and ``ACME_API_KEY`` come from the environment; ``--api-key`` and
``~/.omp/agent/auth.json`` work too. Use it with ``omp --model acme/acme-coder``.
"""

from __future__ import annotations

import os
from typing import Any

import omp

PROVIDER = "acme"
DEFAULT_BASE_URL = "https://llm.acme.internal/v1"
MODELS = [
    {"id": "acme-coder", "name": "Acme Coder", "context_window": 131_072, "max_tokens": 8192},
    {
        "id": "acme-coder-large",
        "name": "Acme Coder Large",
        "context_window": 262_144,
        "reasoning": True,
    },
]


@omp.hookimpl
def omp_register_providers(api: Any) -> list[Any]:
    from omp import Model
    from omp_llm.config import ProviderConfig
    from omp_llm.provider import HttpProvider
    from omp_provider_openai_completions.wire import WIRE

    base_url = os.environ.get("ACME_BASE_URL") or DEFAULT_BASE_URL
    models = [Model(provider=PROVIDER, api=WIRE.api, base_url=base_url, **m) for m in MODELS]
    config = ProviderConfig(
        name=PROVIDER,
        api=WIRE.api,
        base_url=base_url,
        models=models,
        key_env=["ACME_API_KEY"],
        source="the omp-example-private-provider plugin",
    )
    return [HttpProvider(config, WIRE, api.agent_dir)]
