"""``omp plugin add``, ``remove`` and ``sync``."""

from __future__ import annotations

import difflib
import sys
from typing import TYPE_CHECKING, Any

from omp import OmpError, UsageError

from omp_plugin_manager import installer
from omp_plugin_manager.checks import REMOVE, distribution_problems
from omp_plugin_manager.environment import builtin_names, dependents, installed, normal
from omp_plugin_manager.settings_lists import (
    PROJECT_PLUGINS,
    add_to_list,
    read_list,
    remove_from_list,
    settings_file,
)
from omp_plugin_manager.specs import Spec, parse_spec

if TYPE_CHECKING:
    from omp import SubcommandContext


def add(ctx: SubcommandContext, texts: list[str], *, project: bool = False) -> int:
    specs = [parse_spec(text, ctx.cwd) for text in texts]
    code = install_specs(ctx, specs)
    if code == 0 and project:
        path = settings_file(ctx, project=True)
        for spec in specs:
            add_to_list(path, PROJECT_PLUGINS, spec.text)
        print(f"recorded in {path} ({PROJECT_PLUGINS})")
    return code


def install_specs(ctx: SubcommandContext, specs: list[Spec]) -> int:
    """Install, then check each installed distribution in a fresh process."""
    before = installed()
    builtins = builtin_names(before)
    for spec in specs:
        if spec.name and spec.name in builtins and spec.kind == "name":
            raise UsageError(
                f"{spec.name} is part of omp itself; it is updated with omp, not with "
                "`omp plugin add`"
            )
    pinned = installer.constraints(before, {s.name for s in specs if s.name})
    pip_args = [arg for spec in specs for arg in spec.pip_args]
    outcome = installer.install(pip_args, pinned)
    if not outcome.ok:
        _report_pip_failure(outcome, pinned)
        return 1
    after = installed()
    changed = {k for k, d in after.items() if k not in before or before[k].version != d.version}
    targets = [s.name for s in specs if s.name]
    if any(s.name is None for s in specs):
        targets += sorted(k for k in changed if after[k].plugin_names and k not in targets)
    from omp_plugin_manager.probe import probe

    report = probe(ctx.cwd)
    failed = False
    for target in dict.fromkeys(targets):
        dist = after.get(normal(target))
        if dist is None:
            print(f"omp: {target} was not installed (pip did not report it)", file=sys.stderr)
            failed = True
            continue
        plugins = [p for p in report["plugins"] if p["name"] in dist.plugin_names]
        problems = distribution_problems(report, dist.name, plugins)
        if problems:
            failed = True
            for problem in problems:
                print(f"omp: {problem.subject}: {problem.what}", file=sys.stderr)
            print(f"omp: remove it with: {REMOVE.format(dist.name)}", file=sys.stderr)
            continue
        print(f"added {dist.name} {dist.version}: {_summary(plugins)}")
    return 1 if failed else 0


def _summary(plugins: list[dict[str, Any]]) -> str:
    parts = []
    for plugin in plugins:
        things = [f"{kind} {', '.join(names)}" for kind, names in plugin["contributes"].items()]
        hooks = [h for h in plugin["hooks"] if not h.startswith("omp_register_")]
        if hooks:
            things.append(f"hooks {', '.join(hooks)}")
        parts.append(f"plugin {plugin['name']}" + (f" ({'; '.join(things)})" if things else ""))
    return "; ".join(parts)


def _report_pip_failure(outcome: installer.Outcome, pinned: list[str]) -> None:
    message = installer.pip_error(outcome.output)
    if installer.is_conflict(outcome.output):
        print(
            "omp: refused: installing this would change omp's own packages, which stay at "
            f"their installed versions ({', '.join(pinned)}); the plugin needs a release "
            "made for this omp, or upgrade omp first. pip said:",
            file=sys.stderr,
        )
    else:
        print("omp: pip failed; nothing was installed. pip said:", file=sys.stderr)
    for line in message.splitlines():
        print(f"  {line}", file=sys.stderr)
    print(f"  (command: {installer.shown(outcome.command)})", file=sys.stderr)


def resolve_distribution(ctx: SubcommandContext, name: str) -> str:
    """A distribution name from a plugin or distribution name; a clear error if unknown."""
    dists = installed()
    if normal(name) in dists:
        return dists[normal(name)].name
    for dist in dists.values():
        if name in dist.plugin_names:
            return dist.name
    for record in ctx.plugins:
        if record.name == name and record.source.startswith("extension "):
            path = record.source.removeprefix("extension ")
            raise UsageError(
                f"{name} is an extension file ({path}), not an installed package: delete the "
                f"file, or `omp plugin disable {name}`"
            )
    known = [p for d in dists.values() for p in d.plugin_names]
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]}?" if close else "; `omp plugin list` shows them"
    raise UsageError(f"no installed plugin is called {name!r}{hint}")


def remove(ctx: SubcommandContext, name: str, *, project: bool = False) -> int:
    dist_name = resolve_distribution(ctx, name)
    dists = installed()
    key = normal(dist_name)
    if key in builtin_names(dists):
        plugins = dists[key].plugin_names or (name,)
        raise UsageError(
            f"{dist_name} is built into omp and cannot be removed; turn it off instead with "
            f"`omp plugin disable {plugins[0]}`"
        )
    needed_by = dependents(dist_name, dists)
    if needed_by:
        raise UsageError(
            f"{dist_name} is required by {', '.join(needed_by)}; remove that first, or "
            f"`omp plugin disable {(dists[key].plugin_names or (name,))[0]}`"
        )
    outcome = installer.uninstall([dist_name])
    if not outcome.ok:
        raise OmpError(f"pip could not remove {dist_name}: {installer.pip_error(outcome.output)}")
    if project:
        path = settings_file(ctx, project=True)
        for spec in read_list(path, PROJECT_PLUGINS):
            parsed = _quiet_parse(spec, ctx)
            if parsed is not None and parsed.name == key:
                remove_from_list(path, PROJECT_PLUGINS, spec)
    print(f"removed {dist_name} {dists[key].version}")
    return 0


def _quiet_parse(text: str, ctx: SubcommandContext) -> Spec | None:
    try:
        return parse_spec(text, ctx.cwd)
    except OmpError:
        return None


def sync(ctx: SubcommandContext) -> int:
    """Install what the project lists in .omp/settings.json (trusted directories only)."""
    listed = read_list(settings_file(ctx, project=True), PROJECT_PLUGINS)
    if not listed:
        print(f"this project lists no plugins (.omp/settings.json, {PROJECT_PLUGINS})")
        return 0
    if not ctx.trusted:
        raise UsageError(
            f"this directory is not trusted, so its plugin list ({', '.join(listed)}) is not "
            "installed; trust it with `omp --trust` first"
        )
    specs = [parse_spec(text, ctx.cwd) for text in listed]
    dists = installed()
    missing = [s for s in specs if not (s.kind == "name" and s.name in dists and s.text == s.name)]
    if not missing:
        print(f"every plugin this project lists is installed ({', '.join(listed)})")
        return 0
    return install_specs(ctx, missing)
