"""The models a session cycles through (``--models a,b``, the ``enabledModels`` setting),
and models resolved within one provider (``--provider``)."""

from __future__ import annotations

import fnmatch
from typing import Any

from omp.base.errors import UsageError
from omp.base.thinking import split_thinking as split_thinking

GLOB_CHARACTERS = set("*?[")


def within_provider(models: Any, name: str) -> Any:
    """A registry holding only the provider ``name`` (unknown: a usage error naming the
    installed providers)."""
    from omp.agent.providers import ModelRegistry

    provider = models.providers.get(name)
    if provider is None:
        installed = ", ".join(sorted(models.providers)) or "none"
        raise UsageError(f"--provider {name}: no such provider; installed: {installed}")
    return ModelRegistry([provider], roles=models.roles)


def resolve_scoped(models: Any, patterns: list[str], source: str = "--models") -> list[Any]:
    """Each pattern's models, in the order given, without repeats: a glob (``openai/*``,
    ``*sonnet*``) matches provider/id keys and bare ids; anything else resolves as
    ``--model`` does (a ``:level`` suffix is accepted and ignored here). A pattern that
    matches nothing is a usage error."""
    from omp.base.errors import OmpError

    chosen: list[Any] = []
    for raw in patterns:
        pattern, _ = split_thinking(raw)
        if GLOB_CHARACTERS & set(pattern):
            wanted = pattern.lower()
            found = [
                m
                for m in models.models
                if fnmatch.fnmatchcase(m.key.lower(), wanted)
                or fnmatch.fnmatchcase(m.id.lower(), wanted)
            ]
            if not found:
                raise UsageError(f"{source}: {raw!r} matches no model (omp models lists them)")
        else:
            try:
                found = [models.resolve(pattern)]
            except OmpError as exc:
                raise UsageError(f"{source}: {exc}") from None
        chosen += [m for m in found if m not in chosen]
    return chosen


def split_patterns(value: Any) -> list[str]:
    """``a,b`` from the flag, or a list from the setting."""
    if not value:
        return []
    items = value.split(",") if isinstance(value, str) else list(value)
    return [str(item).strip() for item in items if str(item).strip()]
