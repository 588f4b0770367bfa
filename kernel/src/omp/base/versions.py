"""Version specifiers, just enough to tell whether a plugin was built for this kernel.

A plugin's distribution declares the kernel versions it supports with a requirement on
``omp-kernel`` (``omp-kernel>=0.1,<1``). The kernel must not depend on ``packaging``,
so this evaluates the PEP 440 comparison operators on release numbers (pre-, post- and
local parts are ignored). Standard library only: it runs while plugins load.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

KERNEL_DISTRIBUTION = "omp-kernel"

_REQUIREMENT = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*"
    r"\(?(?P<spec>[^;()]*)\)?\s*(?:;(?P<marker>.*))?$"
)
_CLAUSE = re.compile(r"^\s*(===|~=|==|!=|<=|>=|<|>)\s*([0-9][0-9A-Za-z.*+!_-]*)\s*$")


def release(version: str) -> tuple[int, ...]:
    """The release numbers of a version: ``1.2.0rc1+local`` -> (1, 2, 0)."""
    numbers = re.match(r"^\s*v?(?:\d+!)?(\d+(?:\.\d+)*)", version)
    return tuple(int(n) for n in numbers.group(1).split(".")) if numbers else (0,)


def _padded(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    width = max(len(a), len(b))
    return a + (0,) * (width - len(a)), b + (0,) * (width - len(b))


def _clause_holds(version: tuple[int, ...], op: str, target: str) -> bool:
    if target.endswith(".*"):
        prefix = release(target[:-2])
        matches = version[: len(prefix)] == prefix
        return matches if op == "==" else not matches if op == "!=" else False
    mine, theirs = _padded(version, release(target))
    if op == "~=":
        prefix = release(target)[:-1] or release(target)
        return mine >= theirs and version[: len(prefix)] == prefix
    return {
        "==": mine == theirs,
        "===": mine == theirs,
        "!=": mine != theirs,
        "<=": mine <= theirs,
        ">=": mine >= theirs,
        "<": mine < theirs,
        ">": mine > theirs,
    }[op]


def satisfies(version: str, specifier: str) -> bool:
    """Whether ``version`` meets every clause of ``specifier`` (``>=0.1,<1``); an
    unreadable clause counts as met (the installer already accepted it)."""
    mine = release(version)
    for clause in filter(None, (c.strip() for c in specifier.split(","))):
        parsed = _CLAUSE.match(clause)
        if parsed and not _clause_holds(mine, *parsed.groups()):
            return False
    return True


def requirement_on(requirements: Iterable[str], distribution: str) -> str | None:
    """The version specifier of the unconditional requirement on ``distribution`` among
    ``requirements`` (Requires-Dist lines), ``""`` when it has none, None when absent."""
    wanted = _normal(distribution)
    for line in requirements:
        parsed = _REQUIREMENT.match(line)
        if not parsed or _normal(parsed["name"]) != wanted:
            continue
        if parsed["marker"] and "extra" in parsed["marker"]:
            continue
        return parsed["spec"].strip()
    return None


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
