"""Settings: built-in defaults, two JSON files, the environment and the command line.

Precedence, low to high::

    DEFAULTS < <agent_dir>/settings.json (user) < <cwd>/.omp/settings.json (project)
             < environment < cli

Objects deep-merge; scalars and arrays replace wholesale. A missing file is skipped;
a malformed one is an ``OmpError`` naming the file, line and column. Every layer is
checked against the schema (``omp.config.check``): a value of the wrong type is left
out, with one line on stderr, so the value under it applies; unknown keys are kept.
``load_settings`` knows the kernel's keys; once the plugins load, the runtime checks the
layers again with the keys they declare (``Settings.declare``), which also applies
their defaults.

The project file applies in full only when the project is trusted (``omp.config.trust``);
otherwise only its harmless keys do. ``trustedDirectories`` is never read from it.

The agent directory is ``$OMP_CODING_AGENT_DIR`` (``$PI_CODING_AGENT_DIR`` is accepted
as a mirror), else ``~/.omp/agent``.

Environment variables that act as settings (empty values count as unset):

==============================  =========================================================
Variable                        Setting
==============================  =========================================================
``OMP_SETTINGS``                a JSON object, deep-merged first at the environment level
``OMP_MODEL``                   ``defaultModel``
``OMP_THINKING``                ``defaultThinkingLevel``
``OMP_DISABLED_PLUGINS``        ``disabledPlugins`` (comma-separated list)
``OMP_SESSION_DIR``             ``sessionDir`` (wins over the next one)
``PI_CODING_AGENT_SESSION_DIR`` ``sessionDir``
``OMP_STEERING_MODE``           ``steeringMode``
``OMP_FOLLOW_UP_MODE``          ``followUpMode``
``OMP_INTERRUPT_MODE``          ``interruptMode``
``PI_SMOL_MODEL``               ``modelRoles.smol`` (``--smol`` wins over it)
``PI_SLOW_MODEL``               ``modelRoles.slow`` (``--slow`` wins over it)
``PI_PLAN_MODEL``               ``modelRoles.plan``
==============================  =========================================================

The specific variables apply on top of ``OMP_SETTINGS``.

This module is on the startup path: it imports only the standard library and
``omp.base.errors``.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from omp.base.errors import OmpError
from omp.config.atomic_write import write_file
from omp.config.check import checked_layer, first_problem, say_once, shown_path
from omp.config.schema import KERNEL, Schema
from omp.config.trust import (
    TRUSTED_DIRECTORIES,
    ProjectTrust,
    is_trusted,
    real_path,
    split_project_settings,
)

AGENT_DIR_ENV = "OMP_CODING_AGENT_DIR"
AGENT_DIR_ENV_MIRROR = "PI_CODING_AGENT_DIR"
SETTINGS_FILE = "settings.json"
PROJECT_DIR = ".omp"

DEFAULTS: dict[str, Any] = {
    "steeringMode": "one-at-a-time",
    "followUpMode": "one-at-a-time",
    "interruptMode": "immediate",
    "defaultThinkingLevel": "off",
    "defaultModel": None,
    "disabledPlugins": [],
    "extensions": [],
    "sessionDir": None,
    "trustedDirectories": [],
    "retry": {"enabled": True, "maxRetries": 10, "baseDelayMs": 500},
}

# (variable, setting key, is a comma list); later rows win over earlier ones.
ENV_SETTINGS: tuple[tuple[str, str, bool], ...] = (
    ("OMP_MODEL", "defaultModel", False),
    ("OMP_THINKING", "defaultThinkingLevel", False),
    ("OMP_DISABLED_PLUGINS", "disabledPlugins", True),
    ("PI_CODING_AGENT_SESSION_DIR", "sessionDir", False),
    ("OMP_SESSION_DIR", "sessionDir", False),
    ("OMP_STEERING_MODE", "steeringMode", False),
    ("OMP_FOLLOW_UP_MODE", "followUpMode", False),
    ("OMP_INTERRUPT_MODE", "interruptMode", False),
    ("PI_SMOL_MODEL", "modelRoles.smol", False),
    ("PI_SLOW_MODEL", "modelRoles.slow", False),
    ("PI_PLAN_MODEL", "modelRoles.plan", False),
)
ENV_SETTINGS_JSON = "OMP_SETTINGS"

_MISSING = object()


def agent_dir(env: Mapping[str, str] | None = None) -> Path:
    """The agent directory (user settings, sessions, plugins): see the module docstring."""
    env = os.environ if env is None else env
    for name in (AGENT_DIR_ENV, AGENT_DIR_ENV_MIRROR):
        value = env.get(name)
        if value:
            return Path(os.path.abspath(os.path.expanduser(value)))
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".omp" / "agent"


def user_settings_path(agent_directory: Path) -> Path:
    """The user's settings file in the agent directory."""
    return Path(agent_directory) / SETTINGS_FILE


def project_settings_path(cwd: Path) -> Path:
    """The project's settings file (``.omp/settings.json`` under ``cwd``)."""
    return Path(cwd) / PROJECT_DIR / SETTINGS_FILE


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """A new dict: ``over`` on top of ``base``; objects merge, everything else replaces."""
    merged = copy.deepcopy(dict(base))
    for key, value in over.items():
        current = merged.get(key)
        if isinstance(current, Mapping) and isinstance(value, Mapping):
            merged[key] = deep_merge(current, value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


class Settings:
    """The merged settings (``.data``), the files they were read from (``.sources``),
    whether the project's own settings were trusted (``.trust``) and the declarations
    they were checked against (``.schema``: the kernel's, plus the loaded plugins' once
    ``declare`` ran)."""

    def __init__(
        self,
        data: Mapping[str, Any] | None = None,
        sources: list[Path] | None = None,
        trust: ProjectTrust | None = None,
    ) -> None:
        self.data: dict[str, Any] = dict(data) if data is not None else copy.deepcopy(DEFAULTS)
        self.sources: list[Path] = list(sources or [])
        self.trust = trust or ProjectTrust(Path.cwd(), trusted=False)
        self.problems: list[str] = []
        """One line per invalid value left out while loading (already said on stderr)."""
        self.schema: Schema = KERNEL
        self.layers: list[tuple[str, Mapping[str, Any]]] = []
        """(source, settings) per layer as read, lowest first: ``declare`` checks them again."""

    def declare(self, schema: Schema) -> None:
        """Check the layers again against ``schema`` (the kernel's keys and the loaded
        plugins'): plugin keys get their declared defaults, and a value of the wrong
        type for one is left out with one line on stderr, as for a kernel key. Settings
        made from data (not loaded) are checked as one layer."""
        layers = self.layers or [("the settings given", self.data)]
        base = deep_merge(DEFAULTS, schema.plugin_defaults())
        self.data, self.problems = _merge(layers, base, schema)
        self.schema = schema

    def get(self, key: str, default: Any = None) -> Any:
        """The value at a dotted key (``"retry.maxRetries"``), or ``default``."""
        value = self._lookup(key)
        return default if value is _MISSING else value

    def __getitem__(self, key: str) -> Any:
        value = self._lookup(key)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._lookup(key) is not _MISSING

    def _lookup(self, key: str) -> Any:
        node: Any = self.data
        for part in key.split("."):
            if not isinstance(node, Mapping) or part not in node:
                return _MISSING
            node = node[part]
        return node

    def with_overrides(self, overrides: Mapping[str, Any]) -> Settings:
        """A new ``Settings`` with ``overrides`` deep-merged on top (validated)."""
        _validate(overrides, "overrides", self.schema)
        settings = Settings(deep_merge(self.data, overrides), self.sources, self.trust)
        settings.schema = self.schema
        return settings

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Settings):
            return NotImplemented
        return self.data == other.data

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Settings({self.data!r}, sources={[str(p) for p in self.sources]!r})"


def load_settings(
    cwd: Path,
    cli: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    trust: bool = False,
    apply_project: bool = True,
) -> Settings:
    """Merge every layer (see the module docstring), each checked against the schema:
    an invalid value is left out with one line on stderr (``omp.config.check``).

    ``cli`` holds settings keys from command-line flags; ``None`` values in it mean
    "flag not given" and are dropped. ``env`` defaults to ``os.environ``. ``trust``
    trusts the project for this load (``--trust``); otherwise the user's
    ``trustedDirectories`` decide. ``apply_project=False`` holds back everything but the
    harmless project keys even in a trusted project (commands that never run project
    code: ``--help``, ``omp plugins``, ``omp models``).
    """
    env = os.environ if env is None else env
    layers: list[tuple[str, Mapping[str, Any]]] = []
    sources: list[Path] = []
    user_path = user_settings_path(agent_dir(env))
    user = _read_settings_file(user_path)
    if user is not None:
        sources.append(user_path)
        layers.append((shown_path(user_path), user))
    later = _env_layers(env)
    if cli:
        later.append(("the command line", _drop_none(cli)))

    trusted_dirs: list[Any] = []
    for _, layer in [*layers, *later]:
        value = layer.get(TRUSTED_DIRECTORIES)
        if isinstance(value, list):
            trusted_dirs = value
    decision = ProjectTrust(Path(cwd), trust or is_trusted(Path(cwd), trusted_dirs))
    project_path = project_settings_path(cwd)
    project = _read_settings_file(project_path)
    if project is not None:
        sources.append(project_path)
        if TRUSTED_DIRECTORIES in project:
            project = {k: v for k, v in project.items() if k != TRUSTED_DIRECTORIES}
            decision.skipped_settings.append(TRUSTED_DIRECTORIES)
        if not (decision.trusted and apply_project):
            project, held_back = split_project_settings(project)
            decision.skipped_settings = sorted({*decision.skipped_settings, *held_back})
        layers.append((shown_path(project_path), project))
    layers.extend(later)

    merged, problems = _merge(layers, DEFAULTS, KERNEL)
    settings = Settings(merged, sources, decision)
    settings.problems = problems
    settings.layers = layers
    return settings


def _merge(
    layers: list[tuple[str, Mapping[str, Any]]], base: Mapping[str, Any], schema: Schema
) -> tuple[dict[str, Any], list[str]]:
    """``layers`` merged over ``base``, each checked against ``schema``; the lines about
    values left out are said once."""
    merged = copy.deepcopy(dict(base))
    problems: list[str] = []
    for source, layer in layers:
        valid, said = checked_layer(layer, source, merged, schema)
        problems.extend(said)
        merged = deep_merge(merged, valid)
    say_once(problems)
    return merged, problems


def user_setting(agent_directory: Path, key: str) -> Any:
    """The value of a top-level ``key`` in the user settings file alone, or None."""
    return (_read_settings_file(user_settings_path(agent_directory)) or {}).get(key)


def save_user_setting(agent_directory: Path, key: str, value: Any) -> Path:
    """Set ``key`` (dotted for nested objects) in the user settings file, atomically.

    Other keys in the file are kept; a malformed file is an error, never overwritten.
    Returns the file's path.
    """
    return save_setting(user_settings_path(agent_directory), key, value)


def save_setting(path: Path, key: str, value: Any) -> Path:
    """Set ``key`` (dotted) in the settings file at ``path`` (user or project), atomically;
    see ``save_user_setting``."""
    data = _read_settings_file(path) or {}
    parts = key.split(".")
    if not all(parts):
        raise OmpError(f"invalid setting name {key!r}")
    node = data
    for i, part in enumerate(parts[:-1]):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            prefix = ".".join(parts[: i + 1])
            raise OmpError(f"cannot set {key} in {path}: {prefix} is not an object")
        node = child
    node[parts[-1]] = value
    _validate(_nested(parts, value), f"the new value for {key}")
    _write_settings_file(path, data)
    return path


def unset_setting(path: Path, key: str) -> bool:
    """Remove ``key`` (dotted) from the settings file at ``path``, and the objects it
    leaves empty; False when it was not set."""
    data = _read_settings_file(path)
    if data is None:
        return False
    parts = key.split(".")
    trail: list[tuple[dict[str, Any], str]] = []
    node: Any = data
    for part in parts:
        if not isinstance(node, dict) or part not in node:
            return False
        trail.append((node, part))
        node = node[part]
    for parent, part in reversed(trail):
        del parent[part]
        if parent or parent is data:
            break
    _write_settings_file(path, data)
    return True


def read_settings_file(path: Path) -> dict[str, Any] | None:
    """The object in the settings file at ``path``; None when there is no file."""
    return _read_settings_file(path)


def environment_layers(env: Mapping[str, str] | None = None) -> list[tuple[str, dict[str, Any]]]:
    """The settings the environment sets, one (variable, settings) pair per variable,
    lowest precedence first."""
    return _env_layers(os.environ if env is None else env)


def _write_settings_file(path: Path, data: Mapping[str, Any]) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_file(path, text.encode("utf-8"))
    except OSError as e:
        raise OmpError(f"cannot write settings file {path}: {e.strerror or e}") from e


def _read_settings_file(path: Path) -> dict[str, Any] | None:
    """The file's object, ``None`` when it does not exist; an empty file is ``{}``."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except UnicodeDecodeError as e:
        raise OmpError(f"invalid settings file {path}: not UTF-8 text ({e.reason})") from e
    except OSError as e:
        raise OmpError(f"cannot read settings file {path}: {e.strerror or e}") from e
    if not text.strip():
        return {}
    return _parse_object(text, f"settings file {path}")


def _parse_object(text: str, what: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise OmpError(f"invalid {what}: line {e.lineno}, column {e.colno}: {e.msg}") from e
    if not isinstance(data, dict):
        raise OmpError(f"invalid {what}: expected a JSON object, got {json_type_name(data)}")
    return data


def _env_layers(env: Mapping[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """One layer per variable, so an error can name the variable that set the value."""
    layers: list[tuple[str, dict[str, Any]]] = []
    raw = env.get(ENV_SETTINGS_JSON)
    if raw and raw.strip():
        layers.append((ENV_SETTINGS_JSON, _parse_object(raw, ENV_SETTINGS_JSON)))
    for name, key, is_list in ENV_SETTINGS:
        value = env.get(name)
        if not value:
            continue
        parts = key.split(".")
        if is_list:
            layers.append(
                (name, _nested(parts, [v.strip() for v in value.split(",") if v.strip()]))
            )
        else:
            layers.append((name, _nested(parts, value)))
    return layers


def _nested(parts: list[str], value: Any) -> dict[str, Any]:
    """``{"a": {"b": value}}`` for the dotted key ``a.b``."""
    for part in reversed(parts):
        value = {part: value}
    return value


def _drop_none(mapping: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in mapping.items():
        if value is None:
            continue
        out[key] = _drop_none(value) if isinstance(value, Mapping) else value
    return out


def _validate(layer: Mapping[str, Any], source: str, schema: Schema = KERNEL) -> None:
    """Refuse ``layer`` when the schema rejects a value in it (values set by a program
    or a command, where leaving one out would hide a mistake)."""
    problem = first_problem(layer, schema)
    if problem:
        raise OmpError(f"invalid value in {source}: {problem}")


def json_type_name(value: Any) -> str:
    """A decoded JSON value's type as an error names it ("a number", "an array", "null")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


def remember_trusted(agent_directory: Path, directory: Path, current: Iterable[Any]) -> Path:
    """Add ``directory`` to ``current`` (the user file's ``trustedDirectories``) and save
    it there; returns the settings file."""
    entries = [e for e in current if isinstance(e, str)]
    resolved = str(real_path(directory))
    if resolved not in entries:
        entries.append(resolved)
    return save_user_setting(agent_directory, TRUSTED_DIRECTORIES, entries)
