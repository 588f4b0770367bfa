"""resources_discover: the paths of the context sources a session finds.

When a session starts (and again when a new, resumed or forked session replaces it),
after session_start, the hook fires with no paths; each handler adds ``skill_paths``,
``prompt_paths``, ``rule_paths`` and ``theme_paths``, seeing what earlier ones found.
The session keeps the result (``session.resources``; theme paths are for interactive
modes). Reading rules, skills and prompt templates is a plugin's job
(omp-context-sources adds the built-in folders first and reads what was found last).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from omp.agent.events import ResourcesDiscoverEvent

if TYPE_CHECKING:
    from omp.runtime.session import AgentSession


def no_resources(cwd: str) -> ResourcesDiscoverEvent:
    """What a session holds before its first discovery."""
    return ResourcesDiscoverEvent(cwd=cwd)


async def discover_resources(session: AgentSession) -> ResourcesDiscoverEvent:
    """Fire resources_discover; the paths found become ``session.resources``."""
    event = ResourcesDiscoverEvent(cwd=session.cwd, reason="startup")
    session.resources = (await session.hooks.resources_discover(event)).event
    return session.resources
