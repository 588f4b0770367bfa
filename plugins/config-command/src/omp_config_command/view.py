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

from omp import (
    CREDENTIAL_NAME,
    SAFE_PROJECT_KEYS,
    TRUSTED_DIRECTORIES_KEY,
    Schema,
    agent_dir,
    check_settings_layer,
    environment_layers,
    load_settings,
    project_settings_path,
    read_settings_file,
    user_settings_path,
)

REDACTED = "[redacted]"
_SECRET_VALUE = re.compile(r"^(sk-|sk_|xai-|gsk_|AIza|ghp_|gho_|github_pat_|hf_|glpat-)")


@dataclass
class Row:
    key: str
    value: Any
    origin: str
    known: bool
    applied: bool = True
    secret: bool = False

    def shown(self, value: Any) -> Any:
        """``value`` (this key's) as it may be printed: secrets hidden."""
        return redact(self.key, value, secret=self.secret)


@dataclass
class Layers:
    """The settings files and variables of one directory, whether it is trusted, and the
    settings the kernel and the loaded plugins declare."""

    cwd: Path
    user_path: Path
    project_path: Path
    user: dict[str, Any]
    project: dict[str, Any]
    env: list[tuple[str, dict[str, Any]]]
    effective: Any
    trusted: bool
    schema: Schema

    @classmethod
    def read(cls, cwd: Path, schema: Schema) -> Layers:
        user_path = user_settings_path(agent_dir())
        project_path = project_settings_path(cwd)
        settings = load_settings(cwd)
        settings.declare(schema)
        return cls(
            cwd,
            user_path,
            project_path,
            read_settings_file(user_path) or {},
            read_settings_file(project_path) or {},
            environment_layers(),
            settings,
            settings.trust.trusted,
            schema,
        )

    def project_applies(self, key: str) -> bool:
        top = key.split(".")[0]
        if top == TRUSTED_DIRECTORIES_KEY:
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
            self._valid(self.user),
            self._valid(self.project),
            [(name, self._valid(data)) for name, data in self.env],
        )

    def _valid(self, layer: Mapping[str, Any]) -> dict[str, Any]:
        return flatten(check_settings_layer(layer, "", schema=self.schema)[0], self.schema)

    def value(self, key: str) -> Any:
        """The value in effect: the merged settings, else the schema's default (a group
        is an object of its members)."""
        if key in self.effective:
            found = self.effective.get(key)
            if not isinstance(found, Mapping) or not self.schema.group_members(key):
                return found
        members = self.schema.group_members(key)
        if members:
            return {m[len(key) + 1 :]: self.value(m) for m in members} | (
                dict(self.effective.get(key) or {})
            )
        spec = self.schema.find(key)
        return spec.default if spec is not None else None

    def rows(self) -> list[Row]:
        """Every known setting and every key set in a file, sorted by key."""
        keys = set(self.schema.specs)
        for layer in (self.user, self.project, *(data for _, data in self.env)):
            keys.update(flatten(layer, self.schema))
        rows: list[Row] = []
        in_project = flatten(self.project, self.schema)
        for key in sorted(keys):
            spec = self.schema.find(key)
            known, secret = spec is not None, spec is not None and spec.secret
            rows.append(Row(key, self.value(key), self.origin(key), known, secret=secret))
            if key in in_project and not self.project_applies(key):
                why = "user settings only" if key == TRUSTED_DIRECTORIES_KEY else "not trusted"
                origin = f"project, not applied: {why}"
                rows.append(Row(key, in_project[key], origin, known, False, secret))
        return rows


def flatten(data: Mapping[str, Any], schema: Schema) -> dict[str, Any]:
    """Dotted key -> value for every setting in ``data``; known settings (maps too) are
    leaves even when their value is an object."""
    return dict(_leaves(data, "", schema))


def _leaves(data: Mapping[str, Any], prefix: str, schema: Schema) -> Iterator[tuple[str, Any]]:
    for name, value in data.items():
        key = f"{prefix}{name}"
        spec = schema.find(key)
        if isinstance(value, Mapping) and spec is None:
            yield from _leaves(value, key + ".", schema)
        else:
            yield key, value


def redact(key: str, value: Any, *, secret: bool = False) -> Any:
    """``value`` with anything that looks like a credential hidden: every string under a
    dotted key with a part named like one (``acme.apiKey``, ``acme.auth.user``) and every
    string shaped like a known key. Numbers and booleans are never credentials
    (``compaction.reserveTokens``), unless the key is declared ``secret``: then any value
    set is hidden."""
    if secret and value not in (None, "", [], {}):
        return REDACTED
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
