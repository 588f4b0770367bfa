"""Agent definitions the ``task`` tool can spawn: who a child is (its system prompt,
tools, model and thinking level).

An agent file is Markdown: front matter (``name`` and ``description`` required;
``tools``, ``model``, ``thinking-level`` or ``thinking``, ``spawns``) and a body that is
the child's system prompt. ``model`` is a pattern or a model role (``@smol``, ``smol``,
``pi/smol``) the kernel resolves through ``modelRoles``.

Where agents come from, the first found winning for a name: the project's
``.omp/agents/`` then ``.claude/agents/`` (nearest project directory holding one; only
in a trusted project, since a file there steers the model), the user's
``<agent dir>/agents/``, then the ones bundled in this package. A file that cannot be
read or lacks a name or description is skipped with one warning line naming it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import omp
from omp import front_matter_list, split_front_matter

AgentSource = Literal["bundled", "user", "project"]
PROJECT_AGENT_DIRS = (".omp/agents", ".claude/agents")
"""Project folders of agent files, highest precedence first."""


@dataclass(frozen=True)
class AgentDefinition:
    """One agent. ``tools`` None means the parent's tools; ``model`` is a model pattern
    or a role (``smol``, ``@smol``); ``spawns`` the agents it may start itself (``*`` for
    any, None for none)."""

    name: str
    description: str
    system_prompt: str
    tools: tuple[str, ...] | None = None
    model: str | None = None
    thinking_level: str | None = None
    spawns: tuple[str, ...] | Literal["*"] | None = None
    source: AgentSource = "bundled"
    path: Path | None = None


def _names(value: Any) -> tuple[str, ...] | None:
    names = front_matter_list(value)
    return tuple(names) or None


def _text(value: Any) -> str | None:
    """A scalar field as text (a list, as omp allows for ``model``, gives its first)."""
    if isinstance(value, list):
        value = value[0] if value else None
    if value is None or isinstance(value, bool):
        return None
    return str(value).strip() or None


def parse_agent(text: str, source: AgentSource, path: Path | None = None) -> AgentDefinition:
    """An agent file's definition; ValueError when ``name`` or ``description`` is missing."""
    fields, body = split_front_matter(text)
    name, description = _text(fields.get("name")), _text(fields.get("description"))
    if not name or not description:
        raise ValueError("an agent file needs a name and a description in its front matter")
    spawns_field = fields.get("spawns")
    spawns = "*" if _text(spawns_field) == "*" else _names(spawns_field)
    return AgentDefinition(
        name=name,
        description=description,
        system_prompt=body.strip(),
        tools=_names(fields.get("tools")),
        model=_text(fields.get("model")),
        thinking_level=_text(fields.get("thinking-level")) or _text(fields.get("thinking")),
        spawns=spawns,
        source=source,
        path=path,
    )


def bundled_agents() -> dict[str, AgentDefinition]:
    """The agents that ship with the plugin, by name."""
    found = {}
    for entry in sorted(resources.files("omp_tool_task").joinpath("agents").iterdir(), key=str):
        if entry.name.endswith(".md"):
            agent = parse_agent(entry.read_text(encoding="utf-8"), "bundled")
            found[agent.name] = agent
    return found


def _say(line: str) -> None:
    print(f"omp: {line}", file=sys.stderr)


def _load_dir(
    directory: Path, source: AgentSource, warn: Callable[[str], None]
) -> list[AgentDefinition]:
    """The agent files of one folder, by file name; a bad one is a warning."""
    try:
        files = sorted(p for p in directory.iterdir() if p.suffix == ".md" and p.is_file())
    except OSError:
        return []
    agents = []
    for path in files:
        try:
            agents.append(parse_agent(path.read_text(encoding="utf-8"), source, path))
        except UnicodeDecodeError:
            warn(f"agent file {path} skipped: it is not UTF-8 text")
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            warn(f"agent file {path} skipped: {reason}")
    return agents


def agent_dirs(cwd: Path, agent_dir: Path | None, trusted: bool) -> list[tuple[Path, AgentSource]]:
    """The folders agents are read from, highest precedence first (no user folder when
    the run has no agent directory)."""
    dirs: list[tuple[Path, AgentSource]] = []
    if trusted:
        for relative in PROJECT_AGENT_DIRS:
            nearest = next(
                (d / relative for d in omp.project_dirs(cwd) if (d / relative).is_dir()), None
            )
            if nearest is not None:
                dirs.append((nearest, "project"))
    if agent_dir is not None:
        dirs.append((Path(agent_dir) / "agents", "user"))
    return dirs


def discover_agents(
    cwd: Path,
    agent_dir: Path | None,
    trusted: bool,
    disabled: Iterable[str] = (),
    *,
    warn: Callable[[str], None] = _say,
) -> dict[str, AgentDefinition]:
    """Every agent the task tool may spawn, by name in a stable order, the first found
    winning: the project's (only when ``trusted``), the user's, then the bundled ones;
    the names in ``disabled`` (``task.disabledAgents``) left out. ``warn`` gets one line
    per agent file skipped."""
    found: dict[str, AgentDefinition] = {}
    for directory, source in agent_dirs(Path(cwd), agent_dir, trusted):
        for agent in _load_dir(directory, source, warn):
            found.setdefault(agent.name, agent)
    for name, agent in bundled_agents().items():
        found.setdefault(name, agent)
    skip = set(disabled)
    return {name: found[name] for name in sorted(found) if name not in skip}
