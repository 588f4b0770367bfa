"""``omp config list|get|set|unset KEY [VALUE] [--project]``."""

from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path
from typing import Any

from omp import TRUSTED_DIRECTORIES_KEY, OmpError, Schema, UsageError, save_setting, unset_setting

from omp_config_command.view import Layers, Row, redact, shown

USAGE = """\
usage: omp config list [--project] [--json]   every setting, its value and origin
       omp config get KEY [--project]         the value in effect (or in the project file)
       omp config set KEY VALUE [--project]   write to your user settings (or the project's)
       omp config unset KEY [--project]       remove from your user settings (or the project's)

Keys are dotted (retry.maxRetries); besides omp's own, each installed plugin declares
its keys (list shows which, with defaults and descriptions, and hides secret ones).
User settings: ~/.omp/agent/settings.json;
--project: .omp/settings.json in this directory, shared with your team (until you trust
the directory, only its harmless keys apply).
"""
ACTIONS = {
    "list": "omp config list [--project] [--json]",
    "get": "omp config get KEY [--project]",
    "set": "omp config set KEY VALUE [--project]",
    "unset": "omp config unset KEY [--project]",
}
ARITY = {"list": 0, "get": 1, "set": 2, "unset": 1}


def run(args: list[str], cwd: Path, schema: Schema) -> int:
    """Run ``omp config ARGS`` in ``cwd``; ``schema``: the kernel's and the loaded plugins'
    settings."""
    positional = [a for a in args if not a.startswith("-") or a == "-"]
    flags = [a for a in args if a.startswith("-") and a != "-"]
    if {"-h", "--help"} & set(flags):
        print(USAGE, end="")
        return 0
    if not positional:
        raise UsageError("usage: omp config list|get|set|unset ... (omp config --help says more)")
    action, rest = (positional[0], positional[1:]) if positional else ("", [])
    if action not in ACTIONS:
        close = difflib.get_close_matches(action, ACTIONS, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise UsageError(f"unknown config command {action!r}{hint}; use list, get, set or unset")
    allowed = {"--project", "--json"} if action == "list" else {"--project"}
    unknown = [f for f in flags if f not in allowed]
    if unknown or len(rest) != ARITY[action]:
        what = f"unknown flag {unknown[0]}; " if unknown else ""
        raise UsageError(f"{what}usage: {ACTIONS[action]}")
    project = "--project" in flags
    layers = Layers.read(cwd, schema)
    if action == "list":
        return _list(layers, project, "--json" in flags)
    if action == "get":
        return _get(layers, rest[0], project)
    if action == "set":
        return _set(layers, rest[0], rest[1], project)
    return _unset(layers, rest[0], project)


def _list(layers: Layers, project: bool, as_json: bool) -> int:
    rows = layers.rows()
    if project:
        rows = [r for r in rows if r.origin.startswith("project")]
    if as_json:
        data = {r.key: _described(layers.schema, r) for r in rows}
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    width = max((len(r.key) for r in rows), default=0)
    for row in rows:
        value = json.dumps(row.shown(row.value), ensure_ascii=False)
        spec = layers.schema.find(row.key)
        if spec is None:
            print(f"{row.key:<{width}}  {value}  ({row.origin}, unknown setting)")
            continue
        plugin = layers.schema.owner(row.key)
        origin = f"{row.origin}, plugin {plugin}" if plugin else row.origin
        print(f"{row.key:<{width}}  {value}  ({origin})  {spec.description}")
    return 0


def _described(schema: Schema, row: Row) -> dict[str, Any]:
    """A row as ``omp config list --json`` gives it: value and origin, and for a known
    setting its default, description and the plugin declaring it (null: the kernel)."""
    data: dict[str, Any] = {"value": row.shown(row.value), "origin": row.origin}
    spec = schema.find(row.key)
    if spec is not None:
        data["default"] = row.shown(spec.default)
        data["description"] = spec.description
        data["plugin"] = schema.owner(row.key)
    return data


def _get(layers: Layers, key: str, project: bool) -> int:
    _known_or_group(layers.schema, key)
    if project:
        value = _lookup(layers.project, key)
        if value is _UNSET:
            raise OmpError(f"{key} is not set in {layers.project_path}")
        print(shown(value))
        return 0
    print(shown(layers.value(key)))
    value = _lookup(layers.project, key)
    if value is not _UNSET and not layers.project_applies(key):
        why = (
            "a project can never set it"
            if key.split(".")[0] == TRUSTED_DIRECTORIES_KEY
            else "this directory is not trusted (trust it with `omp --trust` or add it to "
            "trustedDirectories in your user settings)"
        )
        print(
            f"omp: {layers.project_path} sets {key} to {json.dumps(value)}, not applied: {why}",
            file=sys.stderr,
        )
    return 0


def _set(layers: Layers, key: str, text: str, project: bool) -> int:
    value = _as_usage(layers.schema.parse_value, key, text)
    if project and key.split(".")[0] == TRUSTED_DIRECTORIES_KEY:
        raise OmpError(f"{key} can only be set in your user settings (drop --project)")
    path = save_setting(layers.project_path if project else layers.user_path, key, value)
    note = ""
    if project and not layers.project_applies(key):
        note = " (not applied until you trust this directory: omp --trust)"
    shown = json.dumps(redact(key, value, secret=_secret(layers.schema, key)), ensure_ascii=False)
    print(f"{key} = {shown} in {path}{note}")
    return 0


def _unset(layers: Layers, key: str, project: bool) -> int:
    path = layers.project_path if project else layers.user_path
    data = layers.project if project else layers.user
    if _lookup(data, key) is _UNSET:
        _known_or_group(layers.schema, key)
        print(f"{key} was not set in {path}")
        return 0
    unset_setting(path, key)
    print(f"{key} removed from {path}")
    return 0


def _known_or_group(schema: Schema, key: str) -> None:
    if schema.find(key) is None and not schema.group_members(key):
        _as_usage(schema.resolve, key)


def _secret(schema: Schema, key: str) -> bool:
    spec = schema.find(key)
    return spec is not None and spec.secret


def _as_usage(check: Any, *args: Any) -> Any:
    """A key or value the user typed that the schema refuses is bad input (exit 2)."""
    try:
        return check(*args)
    except UsageError:
        raise
    except OmpError as exc:
        raise UsageError(str(exc)) from None


_UNSET = object()


def _lookup(data: dict[str, Any], key: str) -> Any:
    node: Any = data
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return _UNSET
        node = node[part]
    return node
