"""``omp plugin list`` and ``omp plugin info``."""

from __future__ import annotations

import difflib
import json
from typing import TYPE_CHECKING

from omp import UsageError

from omp_plugin_manager.environment import kernel_range
from omp_plugin_manager.inventory import Inventory, PluginInfo, build_inventory
from omp_plugin_manager.settings_lists import effective_disabled

if TYPE_CHECKING:
    from omp import SubcommandContext


def _inventory(ctx: SubcommandContext) -> Inventory:
    return build_inventory(ctx, effective_disabled(ctx))


def _where(info: PluginInfo) -> str:
    where = info.source
    if info.distribution and info.source != "extension file":
        where += f" ({info.distribution})"
    if info.location:
        where += f" {info.location}"
    return where


def _state(info: PluginInfo) -> str:
    if not info.enabled:
        return "disabled"
    return {"loaded": "enabled"}.get(info.status, info.status)


def list_plugins(ctx: SubcommandContext, *, as_json: bool = False) -> int:
    inventory = _inventory(ctx)
    if as_json:
        print(json.dumps([p.as_json() for p in inventory.plugins], indent=2))
        return 0
    if not inventory.plugins:
        print("no plugins are installed (the kernel alone)")
        return 0
    width = max(len(p.name) for p in inventory.plugins)
    for info in inventory.plugins:
        version = info.version or "-"
        print(f"{info.name:<{width}}  {version:<8} {_state(info):<9} {_where(info)}")
        for kind, names in sorted(info.contributes.items()):
            print(f"{'':<{width}}    {kind}: {', '.join(names)}")
        events = [h for h in info.hooks if not h.startswith("omp_register_")]
        if events:
            print(f"{'':<{width}}    hooks: {', '.join(events)}")
        for line in offer_lines(info):
            print(f"{'':<{width}}    {line}")
        if info.error:
            print(f"{'':<{width}}    problem: {info.error}")
    return 0


def offer_lines(info: PluginInfo) -> list[str]:
    """``tools X: offered here`` / ``tools X: not offered here: why`` (its ToolChecks)."""
    lines = [f"tools {tools}: offered here" for tools in info.offered]
    lines += [f"tools {tools}: not offered here: {why}" for tools, why in info.not_offered.items()]
    return lines


def find_plugin(inventory: Inventory, name: str) -> PluginInfo:
    found = inventory.find(name)
    if found is None:
        for info in inventory.plugins:
            if info.distribution and info.distribution.lower() == name.lower():
                return info
        close = difflib.get_close_matches(name, [p.name for p in inventory.plugins], n=1)
        hint = f"; did you mean {close[0]}?" if close else "; `omp plugin list` shows them"
        raise UsageError(f"no plugin is called {name!r}{hint}")
    return found


def info(ctx: SubcommandContext, name: str, *, as_json: bool = False) -> int:
    inventory = _inventory(ctx)
    plugin = find_plugin(inventory, name)
    details = plugin.as_json()
    dist = inventory.dists.get((plugin.distribution or "").lower().replace("_", "-"))
    if dist is not None:
        details["summary"] = dist.summary
        details["kernel_range"] = kernel_range(dist.name)
    if as_json:
        print(json.dumps(details, indent=2))
        return 0
    print(f"{plugin.name} {plugin.version}".rstrip())
    if details.get("summary"):
        print(f"  {details['summary']}")
    print(f"  source:    {_where(plugin)}")
    print(f"  state:     {_state(plugin)}")
    if details.get("kernel_range") is not None:
        print(f"  kernel:    omp-kernel{details['kernel_range'] or ' (any version)'}")
    if plugin.error:
        print(f"  problem:   {plugin.error}")
    print(f"  hooks:     {', '.join(plugin.hooks) or '-'}")
    for kind, names in sorted(plugin.contributes.items()):
        print(f"  {kind + ':':<10} {', '.join(names)}")
    for line in offer_lines(plugin):
        print(f"  {line}")
    if not plugin.enabled:
        print(f"  turn it on with `omp plugin enable {plugin.name}`")
    return 0
