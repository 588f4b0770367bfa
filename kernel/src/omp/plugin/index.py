"""The entry points of a group, read from an index instead of importlib.metadata.

Discovering entry points through importlib.metadata costs every start about 20 ms
(importing it and the ``email`` package that parses METADATA, then reading every
distribution's entry_points.txt). The index keeps what loading a plugin needs in a
JSON file in the agent directory's ``cache/``, with the key it was built under: each
sys.path entry's mtime and, inside it, the name and mtime of every ``*.dist-info`` /
``*.egg-info`` directory and of its entry_points.txt. Installing, upgrading or removing
a distribution (pip, ``omp plugin add``) changes the key, so the next start rebuilds
the index; checking the key is a directory listing per sys.path entry (about 1 ms).
An index is not written while sys.path is changing (a timestamp in the last two
seconds), so a change within the filesystem's timestamp granularity is never missed.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
import types
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omp.config.atomic_write import replacing

GROUPS = ("omp.plugins", "pydantic")
PYDANTIC_GROUP = "pydantic"
_FORMAT = 1
_SETTLED_NS = 2_000_000_000
_DIST_SUFFIXES = (".dist-info", ".egg-info")


@dataclass(frozen=True)
class IndexedEntryPoint:
    """An entry point with what its distribution says about it."""

    name: str
    module: str
    attr: str
    dist_name: str
    version: str
    requires: tuple[str, ...] | None
    """The distribution's Requires-Dist lines (requires.txt for an egg-info)."""

    def load(self) -> Any:
        target: Any = importlib.import_module(self.module)
        for part in filter(None, self.attr.split(".")):
            target = getattr(target, part)
        return target


def entry_points(group: str, cache_dir: Path | None) -> list[IndexedEntryPoint]:
    """The group's entry points sorted by name, from the index in ``cache_dir`` when
    sys.path has not changed since it was written (None: no index). The index holds
    the groups in ``GROUPS``; another group is always discovered afresh."""
    if group not in GROUPS:
        return _discover((group,))[group]
    key, newest = _environment_key()
    path = _index_path(cache_dir) if cache_dir is not None else None
    found = _read(path, key) if path is not None else None
    if found is None:
        found = _discover(GROUPS)
        if path is not None and time.time_ns() - newest > _SETTLED_NS:
            _write(path, key, found)
    if not found[PYDANTIC_GROUP]:
        _skip_pydantic_plugin_scan()
    return found[group]


def _skip_pydantic_plugin_scan() -> None:
    """pydantic looks for its own plugins (entry point group ``pydantic``) when it
    builds its first validator, importing importlib.metadata and reading every
    distribution's entry_points.txt for it (about 10 ms). The index already knows
    there are none, so pydantic's loader module is given as one that finds none;
    installing a pydantic plugin changes the index key, and the next start leaves
    pydantic's own loader in place."""
    name = "pydantic.plugin._loader"
    if name in sys.modules:
        return
    loader = types.ModuleType(name, "pydantic's plugin loader: no plugins are installed")
    loader.PYDANTIC_ENTRY_POINT_GROUP = PYDANTIC_GROUP  # type: ignore[attr-defined]
    loader._plugins = {}  # type: ignore[attr-defined]
    loader.get_plugins = lambda: ()  # type: ignore[attr-defined]
    sys.modules[name] = loader


def _index_path(cache_dir: Path) -> Path:
    """One index per interpreter and sys.path: several environments may share an agent
    directory without evicting each other's index."""
    where = "\0".join([sys.executable, *GROUPS, *sys.path]).encode("utf-8", "surrogatepass")
    return cache_dir / f"plugin-index-{zlib.crc32(where):08x}.json"


def _environment_key() -> tuple[list[str], int]:
    """What the entry points on sys.path depend on, and the newest timestamp in it."""
    key: list[str] = [sys.version]
    newest = 0
    for entry in sys.path:
        folder = entry or "."
        try:
            stamp = os.stat(folder).st_mtime_ns
        except OSError:
            key.append(f"{entry}\0-")
            continue
        newest = max(newest, stamp)
        key.append(f"{entry}\0{stamp}")
        try:
            children = sorted(
                (e.name, e.path) for e in os.scandir(folder) if e.name.endswith(_DIST_SUFFIXES)
            )
        except OSError:  # a zip file, or unreadable: its own mtime stands for it
            continue
        for name, child in children:
            stamps = []
            for path in (child, os.path.join(child, "entry_points.txt")):
                try:
                    stamps.append(os.stat(path).st_mtime_ns)
                except OSError:
                    stamps.append(0)
            newest = max(newest, *stamps)
            key.append(f"{name}\0{stamps[0]}\0{stamps[1]}")
    return key, newest


def _discover(groups: tuple[str, ...]) -> dict[str, list[IndexedEntryPoint]]:
    from importlib.metadata import entry_points as metadata_entry_points

    every = metadata_entry_points()
    return {
        group: [_indexed(ep) for ep in sorted(every.select(group=group), key=lambda e: e.name)]
        for group in groups
    }


def _indexed(ep: Any) -> IndexedEntryPoint:
    dist = getattr(ep, "dist", None)
    # One parse of the distribution's METADATA (.name, .version and .requires would
    # each parse it again).
    meta = dist.metadata if dist is not None else None
    dist_name = meta["Name"] if meta is not None else "?"
    version = meta["Version"] if meta is not None else ""
    requires = meta.get_all("Requires-Dist") if meta is not None else None
    if requires is None and dist is not None:
        requires = dist.requires  # an egg-info distribution: requires.txt
    return IndexedEntryPoint(
        ep.name,
        ep.module,
        ep.attr or "",
        str(dist_name),
        str(version or ""),
        tuple(requires) if requires is not None else None,
    )


def _read(path: Path, key: list[str]) -> dict[str, list[IndexedEntryPoint]] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != _FORMAT or data.get("key") != key:
            return None
        return {group: [_entry(e) for e in data["groups"][group]] for group in GROUPS}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def _entry(e: dict[str, Any]) -> IndexedEntryPoint:
    requires = e["requires"]
    return IndexedEntryPoint(
        e["name"],
        e["module"],
        e["attr"],
        e["dist"],
        e["version"],
        tuple(requires) if requires is not None else None,
    )


def _json(e: IndexedEntryPoint) -> dict[str, Any]:
    return {
        "name": e.name,
        "module": e.module,
        "attr": e.attr,
        "dist": e.dist_name,
        "version": e.version,
        "requires": list(e.requires) if e.requires is not None else None,
    }


def _write(path: Path, key: list[str], found: dict[str, list[IndexedEntryPoint]]) -> None:
    """Best effort: an agent directory that cannot be written only costs the index."""
    groups = {group: [_json(e) for e in entries] for group, entries in found.items()}
    text = json.dumps({"format": _FORMAT, "key": key, "groups": groups})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with replacing(path, durable=False) as out:
            out.write(text.encode("utf-8"))
    except OSError:
        pass
