"""What the kernel asks of the user's provider configuration (``omp.plugin.contrib``
``ProviderConfigSource``): models.json problems, the custom providers no installed
plugin serves, and the credentials models.json, auth.json and the environment hold."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from omp import CREDENTIAL_NAME, Provider, ProviderConfigSource

from omp_llm.config import (
    ProviderConfig,
    auth_file,
    load_providers,
    models_file_problems,
    user_models_file,
)

_AUTH_FIELD = re.compile(r"key|token|secret|access|refresh|password", re.I)


def source() -> ProviderConfigSource:
    """models.json (or models.yml), the catalogue and auth.json, as the kernel reads them."""
    return ProviderConfigSource(
        name="models.json",
        problems=models_file_problems,
        unserved=unserved_providers,
        key_names=key_names,
        secrets=secret_values,
    )


def unserved_providers(agent_dir: Path, registered: list[Provider]) -> list[Provider]:
    """Providers from the user's models file that no installed plugin serves, so that
    naming one says why it cannot be used instead of 'unknown model'."""
    from omp_llm.provider import UnusableProvider

    if user_models_file(agent_dir) is None:
        return []
    names = {p.name for p in registered}
    apis = sorted({p.api for p in registered})
    unusable: list[Provider] = []
    for config in load_providers(agent_dir):
        if config.source != "catalogue" and config.name not in names:
            reason = (
                f"its api {config.api!r} (in {config.source}) is not served by any "
                f"installed plugin; installed apis: {', '.join(apis) or 'none'}"
            )
            unusable.append(UnusableProvider(config, reason))
    return unusable


def key_names(agent_dir: Path, env: Mapping[str, str]) -> frozenset[str]:
    """omp's provider key variables: every provider's usual ones (the catalogue's
    ``keyEnv``) and those the user's models file names as an ``apiKey``."""
    names: set[str] = set()
    for config in _configs(agent_dir):
        names.update(config.key_env)
        if config.api_key and not config.api_key.startswith("!") and config.api_key in env:
            names.add(config.api_key)
    return frozenset(names)


def secret_values(agent_dir: Path, env: Mapping[str, str]) -> list[tuple[str, str]]:
    """(label, value) of the keys in models.json (literals and variable references; a
    ``!command`` is added when a provider runs it) and in auth.json."""
    values = list(_models_file_values(_configs(agent_dir), env))
    try:
        values += _auth_file_values(agent_dir)
    except (OSError, ValueError):  # a broken auth.json is reported where it is used
        pass
    return values


def _configs(agent_dir: Path) -> list[ProviderConfig]:
    """A broken models.json is reported where it is used, not here."""
    try:
        return load_providers(agent_dir)
    except Exception:
        return []


def _models_file_values(
    configs: Iterable[ProviderConfig], env: Mapping[str, str]
) -> Iterable[tuple[str, str]]:
    for config in configs:
        if config.source == "catalogue":
            continue
        if config.api_key and not config.api_key.startswith("!"):
            label = config.api_key if config.api_key in env else f"models.json:{config.name}"
            yield label, env.get(config.api_key, config.api_key)
        for name, value in config.headers.items():
            if isinstance(value, str) and CREDENTIAL_NAME.search(name) and value[:1] != "!":
                yield f"models.json:{config.name}:{name}", env.get(value, value)


def _auth_file_values(agent_dir: Path) -> list[tuple[str, str]]:
    try:
        data = json.loads(auth_file(agent_dir).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    if not isinstance(data, dict):
        return []
    found = []
    for provider, entry in data.items():
        values = [entry] if isinstance(entry, str) else []
        if isinstance(entry, dict):  # api_key or oauth: not an account's email or id
            values = [v for k, v in entry.items() if _AUTH_FIELD.search(k) and isinstance(v, str)]
        found += [(f"auth.json:{provider}", value) for value in values]
    return found
