"""Collecting what plugins contribute through the registration hooks.

Each contribution is validated centrally: a wrong type or a name claimed twice is
reported naming the plugin(s), the rest is kept, and the result is sorted so the
order does not depend on installation order.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pluggy

from omp.plugin.manager import PluginHost, call_order, describe_failure


@dataclass
class Contributions:
    items: dict[str, list[tuple[str, Any]]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    replaced_tools: dict[str, tuple[str, Any]] = field(default_factory=dict)
    """Tool name -> (plugin, tool) that a declared override replaced."""

    def of(self, kind: str) -> list[Any]:
        return [item for _, item in self.items.get(kind, [])]

    def owner(self, kind: str, key: str, key_of: Callable[[Any], str]) -> str | None:
        return next((p for p, item in self.items.get(kind, []) if key_of(item) == key), None)

    def tool_registry(self) -> Any:
        """A new omp.agent.tools.ToolRegistry of the plugins' tools (every session gets
        its own: what one session registers or deactivates stays its own)."""
        from omp.agent.tools import ToolRegistry

        owners = {tool.name: plugin for plugin, tool in self.items.get("tools", [])}
        return ToolRegistry(self.of("tools"), owners=owners, replaced=self.replaced_tools)


def _types() -> dict[str, tuple[str, type, Callable[[Any], str]]]:
    from omp.config.schema import SettingSpec
    from omp.plugin.contrib import (
        Command,
        Flag,
        ProviderConfigSource,
        Renderer,
        RunMode,
        Shortcut,
        Subcommand,
    )

    kinds: dict[str, tuple[str, type, Callable[[Any], str]]] = {
        "flags": ("omp_register_flags", Flag, lambda f: f.name),
        "subcommands": ("omp_register_subcommands", Subcommand, lambda s: s.name),
        "modes": ("omp_register_modes", RunMode, lambda m: m.name),
        "commands": ("omp_register_commands", Command, lambda c: c.name),
        "shortcuts": ("omp_register_shortcuts", Shortcut, lambda s: s.key),
        "renderers": ("omp_register_renderers", Renderer, lambda r: f"{r.kind}:{r.name}"),
        "provider_configs": (
            "omp_register_provider_configs",
            ProviderConfigSource,
            lambda s: s.name,
        ),
        "settings": ("omp_register_settings", SettingSpec, lambda s: s.key),
    }
    return kinds


def _heavy_types() -> dict[str, tuple[str, type, Callable[[Any], str]]]:
    from omp.agent.providers import Provider
    from omp.agent.tools import Tool

    return {
        "tools": ("omp_register_tools", Tool, lambda t: t.name),
        "providers": ("omp_register_providers", Provider, lambda p: p.name),
    }


def collect(
    host: PluginHost, api: Any, kinds: list[str], into: Contributions | None = None
) -> Contributions:
    """Call the registration hooks for ``kinds`` (flags, modes, commands, shortcuts,
    renderers, provider_configs, settings, tools, providers) and add what they return to
    ``into``."""
    result = into or Contributions()
    table = _types()
    if any(k in ("tools", "providers") for k in kinds):
        table |= _heavy_types()
    records = {r.name: r for r in host.records}

    def failed(hook: str, plugin: str, exc: BaseException) -> None:
        """The plugin stays registered (a guard whose tool failed to register must keep
        guarding), so it is listed as degraded, not as failed and unloaded."""
        record = records.get(plugin)
        message = f"plugin {plugin} failed while registering: {describe_failure(exc)}"
        if record is not None:
            record.status = "degraded"
            problem = f"{hook} failed ({describe_failure(exc)}); its other hooks still run"
            record.error = f"{record.error}; {problem}" if record.error else problem
        result.problems.append(message)

    for kind in kinds:
        hook, expected, key_of = table[kind]
        owners: dict[str, str] = {}
        kept: list[tuple[str, Any]] = []
        on_error = functools.partial(failed, hook)
        registrations = collect_registrations(host.pm, hook, api, on_error)
        if kind == "tools":
            registrations = _choose_tools(registrations, host, result)
        for plugin, item in registrations:
            if not isinstance(item, expected):
                result.problems.append(
                    f"plugin {plugin} returned {type(item).__name__} from "
                    f"{hook}; expected {expected.__name__}"
                )
                continue
            key = key_of(item)
            if key in owners:
                result.problems.append(
                    f"{kind[:-1]} {key!r} is registered by both "
                    f"{owners[key]} and {plugin}; keeping {owners[key]}'s"
                )
                continue
            owners[key] = plugin
            kept.append((plugin, item))
        kept.sort(key=lambda pair: key_of(pair[1]))
        result.items[kind] = kept
    return result


def _choose_tools(
    registrations: list[tuple[str, Any]], host: PluginHost, result: Contributions
) -> list[tuple[str, Any]]:
    """The tools that answer to each name (omp.plugin.tool_overrides), each refusal reported.
    A clash between two plugins is a conflict, as for any other name; a tool that is
    wrong in itself leaves its plugin degraded."""
    from omp.plugin.tool_overrides import choose_tools

    choice = choose_tools(registrations, [r.name for r in host.records])
    records = {r.name: r for r in host.records}
    for refusal in choice.refused:
        result.problems.append(refusal.reason)
        record = records.get(refusal.plugin)
        if record is not None and refusal.rival is None:
            record.status = "degraded"
            record.error = f"{record.error}; {refusal.reason}" if record.error else refusal.reason
    result.replaced_tools.update(choice.replaced)
    return choice.kept


def collect_registrations(
    pm: pluggy.PluginManager,
    hook_name: str,
    api: Any,
    on_error: Callable[[str, BaseException], None],
) -> list[tuple[str, Any]]:
    """Call a registration hook; return (plugin name, item) pairs in call order."""
    items: list[tuple[str, Any]] = []
    impls = call_order(pm, hook_name)
    monitors = getattr(pm, "omp_monitors", ())
    for before, _ in monitors:
        before(hook_name, impls, {"api": api})
    for impl in impls:
        try:
            # A plugin's answer, unchecked until the kernel validates each item.
            result: Any = impl.function(**{n: api for n in impl.argnames if n == "api"})
            if inspect.isawaitable(result):
                raise TypeError(f"{hook_name} must be a plain def, not async")
        except (Exception, SystemExit) as exc:
            on_error(impl.plugin_name, exc)
            continue
        for item in result or ():
            items.append((impl.plugin_name, item))
    for _, after in monitors:
        after(pluggy.Result(items, None), hook_name, impls, {"api": api})
    return items
