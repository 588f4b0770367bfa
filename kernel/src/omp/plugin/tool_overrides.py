"""Which plugin's tool answers to a name that several plugins register.

A tool replaces another plugin's tool of the same name only when it declares it
(``Tool.overrides``); it then wins whatever order the plugins load in, and the tool it
replaced is kept aside for delegation. Two tools claiming one name without that is a
clash: the tool of the plugin loaded first keeps the name (omp's built-ins load before
extension files), the later one is refused with one line naming both plugins, and the
agent goes on. The runtime and ``omp plugin add``'s check both decide here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Refusal:
    """A tool left out: its plugin, its name, the plugin it clashed with (None when
    the tool itself is wrong) and the one line that says so."""

    plugin: str
    name: str
    rival: str | None
    reason: str


@dataclass
class ToolChoice:
    """The outcome for a list of (plugin, tool) registrations."""

    kept: list[tuple[str, Any]] = field(default_factory=list)
    """The tools the model calls, with their plugins, in registration order."""
    replaced: dict[str, tuple[str, Any]] = field(default_factory=dict)
    """Tool name -> (plugin, tool) a declared override replaced."""
    refused: list[Refusal] = field(default_factory=list)
    """Every tool left out, and why."""


def choose_tools(registrations: Sequence[tuple[str, Any]], load_order: Sequence[str]) -> ToolChoice:
    """Decide each name's tool. ``registrations`` are (plugin, tool) pairs in any order;
    ``load_order`` lists plugin names as they loaded (a plugin missing from it counts
    as loaded last). Items without a string ``name`` are passed through untouched."""
    position = {name: i for i, name in enumerate(load_order)}
    ordered = sorted(registrations, key=lambda pair: position.get(pair[0], len(position)))
    choice = ToolChoice()
    by_name: dict[str, list[tuple[str, Any]]] = {}
    for plugin, tool in ordered:
        name = getattr(tool, "name", None)
        target = getattr(tool, "overrides", None)
        if not isinstance(name, str):
            choice.kept.append((plugin, tool))
        elif target is not None and target != name:
            reason = (
                f"tool {name!r} of plugin {plugin} declares overrides={target!r}, but an "
                "override must have the name of the tool it replaces; it is refused"
            )
            choice.refused.append(Refusal(plugin, name, None, reason))
        else:
            by_name.setdefault(name, []).append((plugin, tool))
    for name, claims in by_name.items():
        overrides = [c for c in claims if getattr(c[1], "overrides", None) == name]
        plain = [c for c in claims if c not in overrides]
        for plugin, _ in plain[1:]:
            rival = plain[0][0]
            reason = (
                f"tool {name!r} is registered by both {rival} and {plugin}; {plugin}'s is "
                f"refused (a tool that replaces another declares overrides={name!r})"
            )
            choice.refused.append(Refusal(plugin, name, rival, reason))
        for plugin, _ in overrides[1:]:
            rival = overrides[0][0]
            reason = (
                f"tool {name!r} is overridden by both {rival} and {plugin}; {plugin}'s is refused"
            )
            choice.refused.append(Refusal(plugin, name, rival, reason))
        if overrides and plain:
            choice.replaced[name] = plain[0]
        choice.kept.append(overrides[0] if overrides else plain[0])
    return choice
