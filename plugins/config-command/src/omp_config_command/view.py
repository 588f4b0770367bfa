"""What ``omp config`` shows: every setting's value and where it came from, with
secrets hidden."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from omp.secrets import CREDENTIAL_NAME
from omp.settings import (
    agent_dir,
    environment_layers,
    load_settings,
    project_settings_path,
    read_settings_file,
    user_settings_path,
)
from omp.settings_check import checked_layer
from omp.settings_schema import SCHEMA, find, group_members
from omp.trust import SAFE_PROJECT_KEYS, TRUSTED_DIRECTORIES

REDACTED = "[redacted]"
_SECRET_VALUE = re.compile(r"^(sk-|sk_|xai-|gsk_|AIza|ghp_|gho_|github_pat_|hf_|glpat-)")


@dataclass
class Row:
    key: str
    value: Any
    origin: str
    known: bool
    applied: bool = True


@dataclass
class Layers:
    """The settings files and variables of one directory, and whether it is trusted."""

    cwd: Path
    user_path: Path
    project_path: Path
    user: dict[str, Any]
    project: dict[str, Any]
    env: list[tuple[str, dict[str, Any]]]
    effective: Any
    trusted: bool

    @classmethod
    def read(cls, cwd: Path) -> Layers:
        user_path = user_settings_path(agent_dir())
        project_path = project_settings_path(cwd)
        settings = load_settings(cwd)
        return cls(
            cwd,
            user_path,
            project_path,
            read_settings_file(user_path) or {},
            read_settings_file(project_path) or {},
            environment_layers(),
            settings,
            settings.trust.trusted,
        )

    def project_applies(self, key: str) -> bool:
        top = key.split(".")[0]
        if top == TRUSTED_DIRECTORIES:
            return False
        return self.trusted or top in SAFE_PROJECT_KEYS

    def origin(self, key: str) -> str:
        """The layer the effective value of ``key`` comes from (a value the schema
        rejects is left out when settings load, so it is nobody's)."""
        user, project, env = self._valid_layers
        origin = "default"
        if key in user:
            origin = "user"
        if key in project and self.project_applies(key):
            origin = "project"
        for name, layer in env:
            if key in layer:
                origin = f"env {name}"
        return origin

    @cached_property
    def _valid_layers(
        self,
    ) -> tuple[dict[str, Any], dict[str, Any], list[tuple[str, dict[str, Any]]]]:
        """Each layer's valid settings, checked once: ``rows`` asks ``origin`` of every
        key."""
        return (
            _valid(self.user),
            _valid(self.project),
            [(name, _valid(data)) for name, data in self.env],
        )

    def value(self, key: str) -> Any:
        """The value in effect: the merged settings, else the schema's default (a group
        is an object of its members)."""
        if key in self.effective:
            found = self.effective.get(key)
            if not isinstance(found, Mapping) or not group_members(key):
                return found
        members = group_members(key)
        if members:
            return {m[len(key) + 1 :]: self.value(m) for m in members} | (
                dict(self.effective.get(key) or {})
            )
        spec = find(key)
        return spec.default if spec is not None else None

    def rows(self) -> list[Row]:
        """Every known setting and every key set in a file, sorted by key."""
        keys = set(SCHEMA)
        for layer in (self.user, self.project, *(data for _, data in self.env)):
            keys.update(flatten(layer))
        rows: list[Row] = []
        in_project = flatten(self.project)
        for key in sorted(keys):
            known = find(key) is not None
            rows.append(Row(key, self.value(key), self.origin(key), known))
            if key in in_project and not self.project_applies(key):
                why = "user settings only" if key == TRUSTED_DIRECTORIES else "not trusted"
                rows.append(Row(key, in_project[key], f"project, not applied: {why}", known, False))
        return rows


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Dotted key -> value for every setting in ``data``; known settings (maps too) are
    leaves even when their value is an object."""
    return dict(_leaves(data, prefix))


def _valid(layer: Mapping[str, Any]) -> dict[str, Any]:
    return flatten(checked_layer(layer, "")[0])


def _leaves(data: Mapping[str, Any], prefix: str) -> Iterator[tuple[str, Any]]:
    for name, value in data.items():
        key = f"{prefix}{name}"
        spec = find(key)
        if isinstance(value, Mapping) and spec is None:
            yield from _leaves(value, key + ".")
        else:
            yield key, value


def redact(key: str, value: Any) -> Any:
    """``value`` with anything that looks like a credential hidden: every string under a
    dotted key with a part named like one (``acme.apiKey``, ``acme.auth.user``) and every
    string shaped like a known key. Numbers and booleans are never credentials
    (``compaction.reserveTokens``)."""
    if isinstance(value, str):
        hidden = (value != "" and CREDENTIAL_NAME.search(key)) or _SECRET_VALUE.match(value)
        return REDACTED if hidden else value
    if isinstance(value, list):
        return [redact(key, v) for v in value]
    if isinstance(value, Mapping):
        return {k: redact(f"{key}.{k}", v) for k, v in value.items()}
    return value


def shown(value: Any) -> str:
    """A value as ``omp config get`` prints it: strings bare, the rest as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
