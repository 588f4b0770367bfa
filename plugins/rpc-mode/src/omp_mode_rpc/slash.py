"""The session's slash commands as omp's ``RpcAvailableSlashCommand`` list
(``get_available_commands`` and ``available_commands_update``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omp import AgentSession, Command


def command_source(command: Command) -> str:
    """omp's command ``source``: what the command says (``omp.Command.source``)."""
    return getattr(command, "source", None) or "extension"


def available_commands(session: AgentSession) -> list[dict[str, Any]]:
    """``{name, description?, input?: {hint}, source}`` for each command, by name."""
    out = []
    for command in session.commands:
        entry: dict[str, Any] = {"name": command.name}
        description = getattr(command, "description", "")
        if description:
            entry["description"] = description
        hint = getattr(command, "argument_hint", None)
        if hint:
            entry["input"] = {"hint": hint}
        entry["source"] = command_source(command)
        out.append(entry)
    return out
