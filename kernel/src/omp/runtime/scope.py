"""Per-session vs per-process: what plugins register at runtime lives as long as the
session it was registered in, unless they ask for the process.

``ctx.state`` is the session's (a new, resumed or forked session starts with an empty
one); ``api.process_state`` is the process's. Tools and slash commands registered with
``api.register_tool`` / ``api.register_command`` follow the same rule: scope
``session`` (the default) drops them when the session ends, right after its
``session_shutdown`` handlers ran and before the next session's ``session_start``, so
that a plugin re-registering them there finds the names free; scope ``process`` keeps
them, like everything the registration hooks returned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from omp.base.errors import OmpError

if TYPE_CHECKING:
    from omp.runtime.session import AgentSession

Scope = Literal["session", "process"]
"""How long a runtime registration lives: ``session`` or ``process``."""

_KINDS = ("tools", "commands")


def check_scope(scope: str) -> None:
    if scope not in ("session", "process"):
        raise OmpError(f"scope must be 'session' or 'process', not {scope!r}")


class SessionScoped:
    """The names of the tools and commands registered for the current session only."""

    def __init__(self) -> None:
        self._names: dict[str, set[str]] = {kind: set() for kind in _KINDS}

    def track(self, kind: str, name: str, scope: Scope) -> None:
        if scope == "session":
            self._names[kind].add(name)
        else:
            self._names[kind].discard(name)

    def forget(self, kind: str, name: str) -> None:
        self._names[kind].discard(name)

    def drop(self, session: AgentSession) -> None:
        """Unregister what the ending session registered for itself."""
        for name in sorted(self._names["tools"]):
            if name in session.tools:
                session.tools.unregister(name)
        for name in sorted(self._names["commands"]):
            session.commands.pop(name, None)
            session.session_commands.discard(name)
        self._names = {kind: set() for kind in _KINDS}
