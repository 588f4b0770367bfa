"""``omp plugin doctor``: every plugin imports, its hooks validate, no two plugins
claim one name, each was built for this kernel; and what this directory would load once
trusted. Each problem comes with its fix; the exit code is 1 when there is one."""

from __future__ import annotations

import difflib
import json
from typing import TYPE_CHECKING

from omp_plugin_manager.checks import Problem, conflict_problem, plugin_problem
from omp_plugin_manager.environment import normal
from omp_plugin_manager.inventory import Inventory, build_inventory
from omp_plugin_manager.settings_lists import PROJECT_PLUGINS, effective_disabled, project_settings
from omp_plugin_manager.specs import parse_spec

if TYPE_CHECKING:
    from omp import SubcommandContext


def _problems(ctx: SubcommandContext, inventory: Inventory, disabled: set[str]) -> list[Problem]:
    problems = [p for p in (plugin_problem(i.as_json()) for i in inventory.plugins) if p]
    problems += [conflict_problem(c.as_json()) for c in inventory.conflicts]
    described = {c.reason for c in inventory.conflicts}
    problems += [
        Problem("registration", text, "fix the plugin named, or disable it")
        for text in ctx.problems
        if "registered by both" not in text
        and "failed while registering" not in text
        and text not in described
    ]
    names = [p.name for p in inventory.plugins]
    for name in sorted(disabled - set(names) - {n.removeprefix("ext:") for n in names}):
        close = difflib.get_close_matches(name, names, n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        problems.append(
            Problem(
                "disabledPlugins",
                f"{name!r} names no installed plugin, so it turns nothing off",
                f"{hint}correct or drop it (omp plugin enable {name})",
            )
        )
    return problems


def _project(ctx: SubcommandContext, inventory: Inventory) -> tuple[list[str], list[Problem]]:
    """What the project directory carries, and its problems."""
    settings = project_settings(ctx)
    files = ctx.project_extension_files()
    listed = [str(s) for s in settings.get(PROJECT_PLUGINS) or []]
    loads = [f"extension file {f.relative_to(ctx.cwd)}" for f in files]
    loads += [f"extension {e}" for e in settings.get("extensions") or []]
    loads += [f"plugin {s} (omp plugin sync installs it)" for s in listed]
    loads += [f"disabledPlugins {', '.join(map(str, settings.get('disabledPlugins') or []))}"]
    loads = [line for line in loads if not line.endswith("disabledPlugins ")]
    if not loads:
        return [], []
    trusted = ctx.trusted
    head = (
        "this directory is trusted; it loads:"
        if trusted
        else ("this directory is not trusted; once trusted (omp --trust) it would load:")
    )
    problems: list[Problem] = []
    if trusted:
        for text in listed:
            try:
                spec = parse_spec(text, ctx.cwd)
            except Exception as exc:  # a bad entry is reported, not fatal
                problems.append(Problem(PROJECT_PLUGINS, str(exc), "fix .omp/settings.json"))
                continue
            if spec.name and normal(spec.name) not in inventory.dists:
                problems.append(
                    Problem(text, "listed by the project but not installed", "omp plugin sync")
                )
    return [head, *(f"  {line}" for line in loads)], problems


def doctor(ctx: SubcommandContext, *, as_json: bool = False) -> int:
    disabled = effective_disabled(ctx)
    inventory = build_inventory(ctx, disabled)
    problems = _problems(ctx, inventory, disabled)
    project_lines, project_problems = _project(ctx, inventory)
    problems += project_problems
    if as_json:
        report = {
            "plugins": len(inventory.plugins),
            "problems": [vars(p) for p in problems],
            "not_offered": {i.name: i.not_offered for i in inventory.plugins if i.not_offered},
            "project": project_lines,
        }
        print(json.dumps(report, indent=2))
        return 1 if problems else 0
    loaded = sum(1 for p in inventory.plugins if p.status == "loaded")
    print(f"{len(inventory.plugins)} plugins checked ({loaded} loaded)")
    for problem in problems:
        print("\n".join(problem.lines()))
    for info in inventory.plugins:  # not problems: what this directory lacks
        for tools, why in info.not_offered.items():
            print(f"{info.name}: tools {tools} not offered here: {why}")
    for line in project_lines:
        print(line)
    backend = ctx.search_backend_line()
    if backend:
        print(backend)
    print(f"{len(problems)} problem(s) found" if problems else "no problems found")
    return 1 if problems else 0
