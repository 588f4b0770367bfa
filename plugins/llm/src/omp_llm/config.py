"""Providers and models: the bundled catalogue, the user's models.json / models.yml, and
API keys (``--api-key``, then ``auth.json``, then environment variables).

The user's file has the shape pi and omp accept, so an existing one works unchanged:
``{"providers": {"name": {"baseUrl", "api", "apiKey", "headers", "compat",
"authHeader", "models": [{"id", ...}], "modelOverrides": {...}}}}``. ``apiKey`` and
header values are the name of an environment variable, a literal, or ``!command``.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from omp import Model, OmpError, shown_settings_path, write_file

from omp_llm.model_fields import MODEL_FIELDS, PROVIDER_FIELDS, checked_fields

MODEL_DEFAULTS = {"contextWindow": 128_000, "maxTokens": 16_384}


@dataclass
class ProviderConfig:
    name: str
    api: str
    base_url: str
    models: list[Model]
    key_env: list[str] = field(default_factory=list)
    api_key: str | None = None
    """As written in models.json: an environment variable's name, a literal or !command."""
    headers: dict[str, str] = field(default_factory=dict)
    compat: dict[str, Any] = field(default_factory=dict)
    auth_header: bool = True
    priority: int = 1000
    local: bool = False
    source: str = "catalogue"

    @property
    def configured_in(self) -> str:
        """The user's file that configures this provider, or "" for the catalogue's."""
        return "" if self.source == "catalogue" else self.source


def _model(
    provider: str,
    api: str,
    base_url: str,
    data: dict[str, Any],
    compat: dict[str, Any],
    headers: dict[str, str],
) -> Model:
    if not isinstance(data.get("id"), str) or not data["id"]:
        raise ValueError("every model needs a string id")
    merged = {**MODEL_DEFAULTS, **data}
    return Model(
        provider=provider,
        id=merged["id"],
        name=str(merged.get("name") or merged["id"]),
        api=str(merged.get("api") or api),
        base_url=str(merged.get("baseUrl") or base_url),
        context_window=int(merged["contextWindow"]),
        max_tokens=int(merged["maxTokens"]),
        reasoning=bool(merged.get("reasoning", False)),
        input=tuple(merged.get("input") or ("text",)),
        cost={k: float(v) for k, v in (merged.get("cost") or {}).items()},
        compat={**compat, **(merged.get("compat") or {})},
        headers={**headers, **(merged.get("headers") or {})},
        thinking_level_map=dict(merged.get("thinkingLevelMap") or {}),
    )


@lru_cache(maxsize=1)
def _catalogue() -> dict[str, Any]:
    text = resources.files("omp_llm").joinpath("catalogue.json").read_text(encoding="utf-8")
    return json.loads(text)


def catalogue_providers() -> dict[str, ProviderConfig]:
    providers: dict[str, ProviderConfig] = {}
    for name, data in _catalogue()["providers"].items():
        compat, headers = data.get("compat") or {}, data.get("headers") or {}
        models = [
            _model(name, data["api"], data["baseUrl"], m, compat, headers)
            for m in data.get("models", [])
        ]
        providers[name] = ProviderConfig(
            name=name,
            api=data["api"],
            base_url=data["baseUrl"],
            models=models,
            key_env=list(data.get("keyEnv") or []),
            headers=headers,
            compat=compat,
            priority=int(data.get("priority", 1000)),
            local=bool(data.get("local", False)),
        )
    return providers


def user_models_file(agent_dir: Path) -> Path | None:
    for name in ("models.json", "models.yml", "models.yaml"):
        path = agent_dir / name
        if path.is_file():
            return path
    return None


def _read_user_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            data = json.loads(text)
        else:
            try:
                import yaml
            except ImportError:
                raise OmpError(
                    f"cannot read {path}: reading YAML needs PyYAML "
                    "(pip install pyyaml), or use models.json"
                ) from None
            data = yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        raise OmpError(
            f"invalid {path}: line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except OmpError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise OmpError(f"cannot read {path}: {' '.join(str(exc).split())}") from None
    except Exception as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:  # PyYAML's own message quotes the line, perhaps a key
            where = f"line {mark.line + 1}, column {mark.column + 1}"
            raise OmpError(f"invalid {path}: {where}: {getattr(exc, 'problem', '')}") from None
        raise OmpError(f"invalid {path}: {type(exc).__name__}") from None
    if not isinstance(data, dict) or not isinstance(data.get("providers", {}), dict):
        raise OmpError(f'invalid {path}: expected an object with a "providers" object')
    return data


def load_providers(agent_dir: Path) -> list[ProviderConfig]:
    """The catalogue with the user's file applied: new providers added, built-in ones
    re-pointed (baseUrl, headers, apiKey), models upserted by id, overrides applied.

    A file that cannot be read is ignored, and a provider in it that is invalid is left
    out (``models_file_problems`` says why): every other provider keeps working."""
    providers, _ = _load(agent_dir)
    return sorted(providers.values(), key=lambda p: (p.priority, p.name))


def models_file_problems(agent_dir: Path) -> list[str]:
    """Why the user's models file, or a provider in it, is not used: one line each."""
    return _load(agent_dir)[1]


def _load(agent_dir: Path) -> tuple[dict[str, ProviderConfig], list[str]]:
    providers = catalogue_providers()
    path = user_models_file(agent_dir)
    if path is None:
        return providers, []
    try:
        entries = _read_user_file(path).get("providers", {})
    except OmpError as exc:
        return providers, [f"{exc}; omp ignores this file until it is fixed"]
    problems: list[str] = []
    for name, data in entries.items():
        try:
            providers[name] = _apply_user_provider(providers.get(name), name, data, path, problems)
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            providers.pop(name, None)
            problems.append(
                f"invalid provider {name!r} in {path}: {exc}; {name} is disabled until it is fixed"
            )
    return providers, problems


def _check_shape(data: dict[str, Any]) -> None:
    for key, kind, what in (
        ("models", list, "a list"),
        ("modelOverrides", dict, "an object"),
        ("headers", dict, "an object"),
        ("compat", dict, "an object"),
    ):
        if data.get(key) is not None and not isinstance(data[key], kind):
            raise ValueError(f'"{key}" must be {what}')
    if any(not isinstance(m, dict) for m in data.get("models") or []):
        raise ValueError('every entry of "models" must be an object')
    if any(not isinstance(p, dict) for p in (data.get("modelOverrides") or {}).values()):
        raise ValueError('every entry of "modelOverrides" must be an object')


def _apply_user_provider(
    base: ProviderConfig | None,
    name: str,
    data: dict[str, Any],
    path: Path,
    problems: list[str],
) -> ProviderConfig:
    """``base`` (a built-in provider, or None) changed by the user's entry ``data``;
    a field of the wrong type is left out with a line in ``problems``."""
    if not isinstance(data, dict):
        raise ValueError("expected an object")
    where = shown_settings_path(path)
    current = {"authHeader": True} if base is None else _provider_fields(base)
    label = f"{where}: provider {name}"
    data = checked_fields(data, PROVIDER_FIELDS, label, current, problems, defaults=base is None)
    _check_shape(data)
    api = data.get("api") or (base.api if base else None)
    base_url = data.get("baseUrl") or (base.base_url if base else None)
    if not api:
        raise ValueError(
            'needs "api" (openai-completions, openai-responses, '
            "anthropic-messages or google-generative-ai)"
        )
    if not base_url:
        raise ValueError('needs "baseUrl"')
    compat = {**(base.compat if base else {}), **(data.get("compat") or {})}
    headers = {**(base.headers if base else {}), **(data.get("headers") or {})}
    models = {
        m.id: replace(m, base_url=data.get("baseUrl") or m.base_url)
        for m in (base.models if base else [])
    }
    for model_id, patch in (data.get("modelOverrides") or {}).items():
        if model_id in models:
            label = f"{where}: modelOverrides of {name}/{model_id}"
            current = _model_fields(models[model_id])
            patch = checked_fields(patch, MODEL_FIELDS, label, current, problems)
            models[model_id] = _override(models[model_id], patch)
    for raw in data.get("models") or []:
        if isinstance(raw.get("id"), str) and raw["id"]:
            label = f"{where}: model {name}/{raw['id']}"
            raw = checked_fields(raw, MODEL_FIELDS, label, _NEW_MODEL, problems, defaults=True)
        model = _model(name, api, base_url, raw, compat, headers)
        models[model.id] = model
    return ProviderConfig(
        name=name,
        api=api,
        base_url=base_url,
        models=list(models.values()),
        key_env=list(base.key_env) if base else [],
        api_key=data.get("apiKey"),
        headers=headers,
        compat=compat,
        auth_header=bool(data.get("authHeader", True)),
        priority=base.priority if base else 500,
        local=base.local if base else False,
        source=str(path),
    )


_NEW_MODEL = {**MODEL_DEFAULTS, "reasoning": False, "input": ["text"]}
"""What a model of the user's file has where a field is not written (for messages)."""


def _model_fields(model: Model) -> dict[str, Any]:
    return {
        "name": model.name,
        "contextWindow": model.context_window,
        "maxTokens": model.max_tokens,
        "reasoning": model.reasoning,
        "input": list(model.input),
    }


def _provider_fields(provider: ProviderConfig) -> dict[str, Any]:
    return {"api": provider.api, "baseUrl": provider.base_url, "authHeader": provider.auth_header}


def _override(model: Model, patch: dict[str, Any]) -> Model:
    changes: dict[str, Any] = {}
    for key, attr in (
        ("name", "name"),
        ("reasoning", "reasoning"),
        ("contextWindow", "context_window"),
        ("maxTokens", "max_tokens"),
    ):
        if key in patch:
            changes[attr] = patch[key]
    if "input" in patch:
        changes["input"] = tuple(patch["input"])
    if "cost" in patch:
        changes["cost"] = {**model.cost, **{k: float(v) for k, v in patch["cost"].items()}}
    if "compat" in patch:
        changes["compat"] = {**model.compat, **patch["compat"]}
    if "headers" in patch:
        changes["headers"] = {**model.headers, **patch["headers"]}
    return replace(model, **changes)


# -- keys ------------------------------------------------------------------------------


def auth_file(agent_dir: Path) -> Path:
    return agent_dir / "auth.json"


_AUTH_READ: dict[Path, tuple[tuple[int, int, int], Any]] = {}
"""auth.json as last read, per path: its (inode, size, mtime) then, and its data."""


def _auth_data(path: Path) -> Any:
    """The parsed auth.json; read again only when the file changed (a key is looked up
    before every request)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        _AUTH_READ.pop(path, None)
        return None
    except OSError as exc:
        raise OmpError(f"cannot read {path}: {' '.join(str(exc).split())}") from None
    stamp = (info.st_ino, info.st_size, info.st_mtime_ns)
    known = _AUTH_READ.get(path)
    if known is not None and known[0] == stamp:
        return known[1]
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise OmpError(f"cannot read {path}: {' '.join(str(exc).split())}") from None
    _AUTH_READ[path] = (stamp, data)
    return data


def _stored_key(agent_dir: Path, provider: str) -> str | None:
    data = _auth_data(auth_file(agent_dir))
    entry = data.get(provider) if isinstance(data, dict) else None
    if isinstance(entry, str):
        return entry
    if isinstance(entry, dict):
        value = entry.get("key") or entry.get("apiKey") or entry.get("access")
        return value if isinstance(value, str) else None
    return None


def save_api_key(agent_dir: Path, provider: str, key: str) -> Path:
    """Store a key in auth.json, created readable by the owner only (0600)."""
    path = auth_file(agent_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = {}
    data[provider] = {"type": "api_key", "key": key}
    write_file(path, json.dumps(data, indent=2).encode("utf-8"), mode=0o600)
    return path


def resolve_value(value: str, env: dict[str, str] | os._Environ[str]) -> str | None:
    """A models.json value: ``!command`` runs it, an environment variable's name gives
    its value, anything else is the literal."""
    if value.startswith("!"):
        try:
            done = subprocess.run(
                value[1:], shell=True, capture_output=True, text=True, timeout=10, check=False
            )
        except subprocess.TimeoutExpired:
            raise OmpError(f"the command for a key took longer than 10 s: {value[1:]}") from None
        if done.returncode != 0:
            raise OmpError(f"the command for a key failed (exit {done.returncode}): {value[1:]}")
        return done.stdout.strip() or None
    if value in env:
        return env[value] or None
    return value


def key_source(config: ProviderConfig, agent_dir: Path, env: Any = None) -> str | None:
    """Where this provider's key would come from, without running any command."""
    env = os.environ if env is None else env
    if config.api_key:
        if config.api_key.startswith("!"):
            return "command in " + config.source
        return f"${config.api_key}" if config.api_key in env else config.source
    if _stored_key(agent_dir, config.name):
        return str(auth_file(agent_dir))
    return next((f"${name}" for name in config.key_env if env.get(name)), None)


def resolve_key(
    config: ProviderConfig, agent_dir: Path, cli_key: str | None = None, env: Any = None
) -> str | None:
    """The key to send: --api-key, then auth.json, then models.json's apiKey, then the
    provider's usual environment variables."""
    env = os.environ if env is None else env
    if cli_key:
        return cli_key
    stored = _stored_key(agent_dir, config.name)
    if stored:
        return stored
    if config.api_key:
        return resolve_value(config.api_key, env)
    return next((env[name] for name in config.key_env if env.get(name)), None)
