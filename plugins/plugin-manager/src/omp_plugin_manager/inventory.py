"""Every plugin omp knows of in this environment, with what it contributes.

Built from the context ``omp plugin`` runs with (``omp.SubcommandContext``): the kernel's plugin
records say what loaded and why not; one more pass over the registration hooks says who
contributes which tool, command, flag, mode or provider, duplicates included, so a name
two plugins claim is visible as a conflict instead of silently kept once.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from omp_plugin_manager.environment import Installed, builtin_names, installed

if TYPE_CHECKING:
    from omp import SubcommandContext

KINDS = {
    "tools": "omp_register_tools",
    "commands": "omp_register_commands",
    "flags": "omp_register_flags",
    "modes": "omp_register_modes",
    "providers": "omp_register_providers",
    "subcommands": "omp_register_subcommands",
}


@dataclass
class PluginInfo:
    name: str
    source: str
    """built-in, entry point, editable, extension file or in process."""
    distribution: str | None = None
    version: str = ""
    location: str | None = None
    enabled: bool = True
    status: str = "loaded"
    error: str | None = None
    hooks: list[str] = field(default_factory=list)
    contributes: dict[str, list[str]] = field(default_factory=dict)
    not_offered: dict[str, str] = field(default_factory=dict)
    """Its checked tools that are not offered in this directory -> why
    (``omp.ToolCheck``); offered ones are in ``offered``."""
    offered: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Conflict:
    kind: str
    key: str
    owners: list[str]
    reason: str | None = None
    """The kernel's own line for it, when it has one (a refused tool)."""

    def describe(self) -> str:
        owners = " and ".join(self.owners)
        return self.reason or f"{self.kind[:-1]} {self.key!r} is claimed by {owners}"

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Inventory:
    plugins: list[PluginInfo]
    conflicts: list[Conflict]
    registration_problems: list[str]
    dists: dict[str, Installed]

    def find(self, name: str) -> PluginInfo | None:
        return next((p for p in self.plugins if p.name == name), None)

    def of_distribution(self, dist: str) -> list[PluginInfo]:
        from omp_plugin_manager.environment import normal

        return [p for p in self.plugins if p.distribution and normal(p.distribution) == dist]


def _source(record: Any, dist: Installed | None, builtins: set[str]) -> tuple[str, str | None]:
    from omp_plugin_manager.environment import normal

    if record.source.startswith("extension "):
        return "extension file", record.source.removeprefix("extension ")
    if dist is None:
        return ("entry point", None) if record.source.startswith("entry") else (record.source, None)
    if normal(dist.name) in builtins:
        return "built-in", dist.editable_path
    if dist.editable_path:
        return "editable", dist.editable_path
    return "entry point", None


def build_inventory(ctx: SubcommandContext, disabled: set[str]) -> Inventory:
    """What ``ctx`` loaded; ``disabled`` is the effective disabledPlugins of a
    normal run in this directory."""
    dists = installed()
    builtins = builtin_names(dists)
    owners = {plugin: d for d in dists.values() for plugin in d.plugin_names}
    infos: list[PluginInfo] = []
    for record in ctx.plugins:
        dist = owners.get(record.name) if record.source.startswith("entry point") else None
        source, location = _source(record, dist, builtins)
        infos.append(
            PluginInfo(
                name=record.name,
                source=source,
                distribution=dist.name if dist else None,
                version=record.version or (dist.version if dist else ""),
                location=location,
                enabled=record.name not in disabled and record.status != "disabled",
                status=record.status,
                error=record.error,
                hooks=list(record.hooks),
            )
        )
    by_name = {info.name: info for info in infos}
    conflicts, problems = _contributions(ctx, by_name)
    for plugin, tools, reason in ctx.tool_checks():
        info = by_name.get(plugin)
        if info is not None and reason:
            info.not_offered[tools] = reason
        elif info is not None:
            info.offered.append(tools)
    return Inventory(infos, conflicts, problems, dists)


def _contributions(
    ctx: SubcommandContext, by_name: dict[str, PluginInfo]
) -> tuple[list[Conflict], list[str]]:
    problems: list[str] = []
    conflicts: list[Conflict] = []
    for kind, hook in KINDS.items():
        claimed: dict[str, list[str]] = {}
        found = ctx.registrations(hook)
        problems += [f"plugin {p} failed while registering: {exc}" for p, exc in found.failures]
        registrations = found.items
        for plugin, item in registrations:
            key = str(getattr(item, "name", "?"))
            claimed.setdefault(key, []).append(plugin)
            info = by_name.get(plugin)
            if info is not None:
                info.contributes.setdefault(kind, []).append(key)
        if kind == "tools":
            conflicts += _tool_conflicts(ctx, registrations)
            continue
        conflicts += [Conflict(kind, k, o) for k, o in sorted(claimed.items()) if len(o) > 1]
    return conflicts, problems


def _tool_conflicts(ctx: SubcommandContext, registrations: list[tuple[str, Any]]) -> list[Conflict]:
    """Tools claimed twice, decided as a run decides them: a declared override
    (``Tool(overrides=...)``) is no conflict, an undeclared clash is."""
    from omp import choose_tools

    choice = choose_tools(registrations, [r.name for r in ctx.plugins])
    return [
        Conflict("tools", r.name, [r.rival, r.plugin], r.reason)
        for r in sorted(choice.refused, key=lambda r: r.name)
        if r.rival is not None
    ]
