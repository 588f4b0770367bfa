"""What is wrong with installed plugins, each problem with the way to fix it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

REMOVE = "omp plugin remove {}"
DISABLE = "omp plugin disable {}"


@dataclass
class Problem:
    subject: str
    what: str
    fix: str

    def lines(self) -> list[str]:
        return [f"{self.subject}: {self.what}", f"    fix: {self.fix}"]


def plugin_problem(plugin: dict[str, Any]) -> Problem | None:
    """A plugin (an inventory entry as a dict) that did not load or degraded."""
    status, error, name = plugin["status"], plugin.get("error") or "", plugin["name"]
    dist = plugin.get("distribution")
    if status not in ("failed", "degraded"):
        return None
    if "built for omp-kernel" in error:
        fix = f"install a release of {dist} made for this kernel, or remove it: " + REMOVE.format(
            dist
        )
    elif "unknown hook" in error or "lack(s) the @omp.hookimpl" in error:
        fix = "rename or mark the hook implementations (names are in omp.plugin.specs), then "
        fix += f"reinstall; or remove it: {REMOVE.format(dist)}" if dist else "reload"
    elif "two distributions register" in error:
        fix = "remove one of the two distributions with " + REMOVE.format("<distribution>")
    elif status == "degraded":
        fix = f"fix the failing registration hook, or {DISABLE.format(name)}"
    elif plugin["source"] == "extension file":
        fix = f"fix or delete {plugin.get('location')}, or {DISABLE.format(name)}"
    else:
        fix = f"reinstall or fix it, or {DISABLE.format(name)}"
        if dist:
            fix += f" / {REMOVE.format(dist)}"
    label = "does not load" if status == "failed" else "is degraded"
    return Problem(name, f"{label}: {error}", fix)


def conflict_problem(conflict: dict[str, Any]) -> Problem:
    owners = conflict["owners"]
    kind = conflict["kind"][:-1]
    fix = f"disable one of them: {DISABLE.format(owners[-1])}"
    if conflict["kind"] == "tools":
        fix = (
            f"if {owners[-1]}'s tool is meant to replace {owners[0]}'s, declare it with "
            f"Tool(overrides={conflict['key']!r}); else {fix}"
        )
    what = conflict.get("reason") or (
        f"{kind} {conflict['key']!r} is also claimed by {', '.join(owners[:-1])}; only one "
        "of them is used"
    )
    return Problem(owners[-1], what, fix)


def distribution_problems(
    report: dict[str, Any], dist: str, plugins: list[dict[str, Any]]
) -> list[Problem]:
    """Problems of a freshly installed distribution ``dist`` (its plugins given)."""
    if not plugins:
        return [
            Problem(
                dist,
                "it exposes no `omp.plugins` entry point, so it is not an omp plugin "
                '(a plugin declares [project.entry-points."omp.plugins"] in its pyproject)',
                REMOVE.format(dist),
            )
        ]
    names = {p["name"] for p in plugins}
    problems = [p for p in map(plugin_problem, plugins) if p]
    for conflict in report["conflicts"]:
        if names & set(conflict["owners"]):
            problems.append(conflict_problem(conflict))
    return problems
