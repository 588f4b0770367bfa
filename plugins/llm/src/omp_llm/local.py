"""A local Ollama server: where it is ($OLLAMA_HOST) and which models it has installed."""

from __future__ import annotations

import json
import os
import urllib.request
from dataclasses import replace
from urllib.parse import urlsplit

from omp import Model

from omp_llm.config import ProviderConfig


def local_base_url(default: str) -> str:
    """The OpenAI-compatible base URL: $OLLAMA_HOST (host:port or a URL) plus /v1."""
    host = os.environ.get("OLLAMA_HOST", "").strip()
    if not host:
        return default.rstrip("/")
    if "://" not in host:
        host = f"http://{host}"
    parts = urlsplit(host)
    port = parts.port or 11434
    hostname = parts.hostname or "localhost"
    if hostname == "0.0.0.0":
        hostname = "localhost"
    return f"{parts.scheme}://{hostname}:{port}/v1"


def discover_models(base_url: str, config: ProviderConfig) -> list[Model] | None:
    """Installed models from /api/tags (catalogue entries keep their details), or None
    when the server does not answer that route."""
    root = base_url.removesuffix("/v1")
    try:
        with urllib.request.urlopen(f"{root}/api/tags", timeout=1.5) as response:
            data = json.loads(response.read().decode("utf-8"))
    except (OSError, ValueError):
        return None
    known = {m.id: m for m in config.models}
    template = config.models[0] if config.models else Model(provider=config.name, id="_")
    installed = []
    for entry in data.get("models", []):
        name = entry.get("name") or entry.get("model")
        if not name:
            continue
        base = known.get(name) or replace(
            template, id=name, name=name, reasoning=False, cost={"input": 0.0, "output": 0.0}
        )
        installed.append(replace(base, base_url=base_url))
    return installed
