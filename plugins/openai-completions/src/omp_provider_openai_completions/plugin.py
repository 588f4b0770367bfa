"""Hook implementations. Cheap to import (``omp --help`` loads this module): httpx and
the wire format load only when providers are registered."""

from __future__ import annotations

import omp

API = "openai-completions"


@omp.hookimpl
def omp_register_providers(api):
    from omp.llm.config import load_providers
    from omp.llm.provider import HttpProvider

    from omp_provider_openai_completions.wire import WIRE

    return [
        HttpProvider(cfg, WIRE, api.agent_dir)
        for cfg in load_providers(api.agent_dir)
        if cfg.api == API
    ]
