"""The Python environment omp runs in: which distributions are installed, which are
omp's own (built in), which depend on which, and where editable ones live."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from omp import ENTRY_POINT_GROUP

DEFAULT_DISTRIBUTION = "omp"
KERNEL = "omp-kernel"


_REQUIREMENT = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*"
    r"\(?(?P<spec>[^;()]*)\)?\s*(?:;(?P<marker>.*))?$"
)
"""A Requires-Dist line: name, extras, version specifier (maybe in parentheses), marker."""


def normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Installed:
    """One installed distribution, as far as the plugin commands care."""

    name: str
    version: str
    requires: tuple[str, ...]
    plugin_names: tuple[str, ...]
    editable_path: str | None
    summary: str


def _requirement_names(requires: list[str] | None) -> tuple[str, ...]:
    names = []
    for line in requires or ():
        if ";" in line and "extra" in line.split(";", 1)[1]:
            continue
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line)
        if match:
            names.append(normal(match.group(1)))
    return tuple(names)


def _editable_path(dist: Any) -> str | None:
    try:
        text = dist.read_text("direct_url.json")
        info = json.loads(text) if text else {}
    except (OSError, ValueError):
        return None
    if not info.get("dir_info", {}).get("editable"):
        return None
    url = str(info.get("url", ""))
    return url.removeprefix("file://") or None


def installed() -> dict[str, Installed]:
    """Every distribution importable from this interpreter, by normalised name (the
    first one on sys.path wins, as imports do)."""
    found: dict[str, Installed] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if not name or normal(name) in found:
            continue
        plugins = tuple(ep.name for ep in dist.entry_points if ep.group == ENTRY_POINT_GROUP)
        found[normal(name)] = Installed(
            name=name,
            version=dist.version,
            requires=_requirement_names(dist.requires),
            plugin_names=plugins,
            editable_path=_editable_path(dist) if plugins else None,
            summary=dist.metadata.get("Summary") or "",
        )
    return found


def kernel_range(name: str) -> str | None:
    """What a distribution declares about the kernel (``>=0.1,<1``; ``""`` for any
    version), or None when it does not require it."""
    try:
        requires = metadata.distribution(name).requires or ()
    except metadata.PackageNotFoundError:
        return None
    for line in requires:
        parsed = _REQUIREMENT.match(line)
        if not parsed or normal(parsed["name"]) != KERNEL:
            continue
        if parsed["marker"] and "extra" in parsed["marker"]:
            continue
        return parsed["spec"].strip()
    return None


def builtin_names(dists: dict[str, Installed]) -> set[str]:
    """omp's own distributions: the kernel and what the default distribution requires."""
    names = {KERNEL}
    default = dists.get(DEFAULT_DISTRIBUTION)
    if default is not None:
        names |= {DEFAULT_DISTRIBUTION, *default.requires}
    return names


def dependents(name: str, dists: dict[str, Installed]) -> list[str]:
    """Installed distributions that require ``name``."""
    wanted = normal(name)
    return sorted(d.name for key, d in dists.items() if wanted in d.requires and key != wanted)


def owner_of_plugin(plugin: str, dists: dict[str, Installed]) -> Installed | None:
    return next((d for d in dists.values() if plugin in d.plugin_names), None)
