"""Settings checked against the schema as each layer loads (a file, a variable, the
command line).

A value the schema does not accept is left out of its layer, so the value under it
(a lower layer's, else the default) stays in effect, and one line says so: where it
came from, the key, what was expected and what is used instead. omp never stops over
a bad setting. A key the schema does not know is kept as it is: a plugin that is not
installed here (or pi) may read it, and ``omp config list`` shows it.

Each line is printed on stderr once per process, however often the settings load.

Standard library only (the startup path imports it).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from omp.config.schema import KERNEL, Schema, SettingSpec, value_problem

_said: set[str] = set()
_Say = Callable[[str, str, str, str], None]
"""Told (key, what was expected, the value as shown, what is used instead) per invalid
value."""


def checked_layer(
    layer: Mapping[str, Any],
    source: str,
    below: Mapping[str, Any] | None = None,
    schema: Schema = KERNEL,
) -> tuple[dict[str, Any], list[str]]:
    """``layer`` without its invalid values, and one line per value left out.

    ``source`` names the layer (a file's path, a variable); ``below`` is what the lower
    layers merged to, to name the value that stays in effect; ``schema`` what is known
    (the kernel's keys, or with the loaded plugins' too)."""
    problems: list[str] = []

    def say(key: str, expected: str, shown: str, instead: str) -> None:
        problems.append(f"{source}: {key}: expected {expected}, got {shown} ({instead})")

    return _walk(layer, "", below or {}, say, schema), problems


def first_problem(layer: Mapping[str, Any], schema: Schema = KERNEL) -> str | None:
    """``key: expected ..., got ...`` for the first invalid value in ``layer``."""
    found: list[str] = []

    def say(key: str, expected: str, shown: str, instead: str) -> None:
        found.append(f"{key}: expected {expected}, got {shown}")

    _walk(layer, "", {}, say, schema)
    return found[0] if found else None


def say_once(lines: list[str], write: Callable[[str], Any] | None = None) -> None:
    """Print each line (``omp: `` first) on stderr unless this process already did."""
    for line in lines:
        if line in _said:
            continue
        _said.add(line)
        if write is not None:
            write(line)
        else:
            print(f"omp: {line}", file=sys.stderr, flush=True)


def shown_path(path: os.PathLike[str] | str) -> str:
    """``path`` with the home directory written ``~``, as a user would type it."""
    text = os.fspath(path)
    home = os.path.expanduser("~")
    if home not in ("", "~", "/") and text.startswith(home.rstrip("/") + "/"):
        return "~" + text[len(home.rstrip("/")) :]
    return text


def _walk(
    node: Mapping[str, Any], prefix: str, below: Mapping[str, Any], say: _Say, schema: Schema
) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for name, value in node.items():
        key = f"{prefix}{name}"
        spec = schema.find(key)
        under = below.get(name) if isinstance(below, Mapping) else None
        if spec is not None and spec.type == "map" and isinstance(value, Mapping):
            kept[name] = _map_items(spec, value, under, say, schema)
        elif spec is not None:
            problem = value_problem(spec, value)
            if problem is None:
                kept[name] = value
            else:
                shown = shown_value(key, value, secret=spec.secret)
                say(key, problem, shown, _in_effect(spec, under))
        elif schema.group_members(key):
            if isinstance(value, Mapping):
                kept[name] = _walk(value, key + ".", under or {}, say, schema)
            else:
                say(key, "an object of settings", shown_value(key, value), "ignored")
        else:
            kept[name] = value
    return kept


def _map_items(
    spec: SettingSpec, items: Mapping[str, Any], below: Any, say: _Say, schema: Schema
) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for name, value in items.items():
        item = schema.find(f"{spec.key}.{name}")
        assert item is not None  # a map accepts every name
        if spec.items != "integer":  # only a timeout may be null (no limit)
            item = replace(item, default="")
        problem = value_problem(item, value)
        if problem is None:
            kept[name] = value
        else:
            known = isinstance(below, Mapping) and name in below
            use = f"using {_json(below[name])}" if known else "ignored"
            say(item.key, problem, shown_value(item.key, value, secret=spec.secret), use)
    return kept


def _in_effect(spec: SettingSpec, below: Any) -> str:
    if spec.secret and (below is not None or spec.default is not None):
        return "using the value under it"
    if below is not None and below != spec.default:
        return f"using {_json(below)}"
    if spec.default is None:
        return "ignored"
    return f"using the default {_json(spec.default)}"


def shown_value(key: str, value: Any, *, secret: bool = False) -> str:
    """``value`` as a problem line quotes it: JSON, cut to 60 characters, and only its
    kind where ``key`` names a credential or is declared ``secret`` (a key pasted in
    the wrong place stays put)."""
    if secret or _CREDENTIAL.search(key.rsplit(".", 1)[-1]):
        return _KINDS.get(type(value), "a value")
    return _json(value)


def _json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


_CREDENTIAL = re.compile(
    r"(?:key|token|secret|password|passwd|cookie|credentials?|authorization|headers?)$", re.I
)
_KINDS = {str: "a string", int: "a number", float: "a number", bool: "a boolean"}
_KINDS.update({list: "a list", dict: "an object", type(None): "null"})
