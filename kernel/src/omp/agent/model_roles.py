"""Model roles: names (``smol``, ``slow``, ``plan``, ...) that stand for a model
pattern, so that a subagent or a command can ask for "the fast model" without naming
one.

The ``modelRoles`` setting maps a role to a pattern; ``PI_SMOL_MODEL``,
``PI_SLOW_MODEL`` and ``PI_PLAN_MODEL`` set a role through the environment (see
``omp.config.settings``) and ``--smol`` / ``--slow`` for one run, winning over both.
A model selector names a role as ``@smol``, the legacy ``pi/smol``, or the bare
``smol`` when that is a built-in or configured role; ``*`` is the ``default`` role.
Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MODEL_ROLES = ("default", "smol", "slow", "vision", "plan", "commit", "tiny", "task", "advisor")
"""omp's built-in roles."""

ROLE_FLAGS = ("smol", "slow")
"""Roles with a command-line flag of their name (``--plan`` is plan mode's switch)."""


def run_roles(configured: Any, flags: Mapping[str, Any]) -> dict[str, str]:
    """The role -> pattern map of a run: the ``modelRoles`` setting with the role flags
    (``--smol PATTERN``) on top; empty values are left out."""
    roles = {
        str(role): str(pattern).strip()
        for role, pattern in (configured.items() if isinstance(configured, Mapping) else ())
        if isinstance(pattern, str) and pattern.strip()
    }
    for role in ROLE_FLAGS:
        value = flags.get(role)
        if isinstance(value, str) and value.strip():
            roles[role] = value.strip()
    return roles


def role_named(selector: str, roles: Mapping[str, str]) -> str | None:
    """The role ``selector`` names (``@smol``, ``pi/smol``, a bare role name, ``*``),
    or None when it is a plain model pattern."""
    text = selector.strip()
    if text == "*":
        return "default"
    for prefix in ("@", "pi/"):
        if text.startswith(prefix) and len(text) > len(prefix):
            return text[len(prefix) :]
    if text in MODEL_ROLES or text in roles:
        return text
    return None
