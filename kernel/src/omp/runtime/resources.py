"""The context sources a session discovers: rules, skills and prompt templates.

When a session starts (and again when a new, resumed or forked session replaces it),
after session_start, the resources_discover hook fires with the built-in folders that
exist already in its path lists, so each handler sees them and adds its own:

* ``rule_paths`` (``omp.runtime.rules``): ``.omp/rules/``, the agent directory's ``rules/``,
  ``.cursor/rules/``, ``.cursorrules``, ``.windsurf/rules/``, ``.windsurfrules``,
  ``.clinerules`` (a file or a folder), ``.github/copilot-instructions.md``;
* ``skill_paths`` (``omp.runtime.skills``): ``.omp/skills/``, the agent directory's
  ``skills/``, ``.claude/skills/`` - a folder holding ``SKILL.md``, or a folder of them;
* ``prompt_paths`` (``omp.runtime.templates``): ``.omp/commands/``, ``.omp/prompts/``, the
  agent directory's ``commands/`` and ``prompts/``, ``.claude/commands/`` - a ``.md``
  file or a folder of them, each a slash command named after the file;
* ``theme_paths``: kept in ``session.resources`` for interactive modes.

Project folders are looked for in the working directory and each parent up to the
repository root (the folder holding ``.git``; the working directory alone outside a
repository), nearest first. The first rule, skill or template of a name wins: omp's
own folders before other agents', the project before the user's, built-in folders
before plugins' paths. A template or skill never replaces a command a plugin
registered (a notice says so).

Each source can be switched off (``--no-rules``, ``--no-skills``,
``--no-prompt-templates``, or the settings ``rules.enabled``, ``skills.enabled``,
``promptTemplates.enabled`` set to false), which drops plugins' paths too.

Trust: rules, skills and templates are text the model reads; none of them runs
anything, so an untrusted project's load as omp's do.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omp.agent.events import ResourcesDiscoverEvent
from omp.runtime.rules import STATE_KEY, RuleAttacher, RulesPlugin, given_rule_names, load_rules
from omp.runtime.rules import rules_section as _rules_section
from omp.runtime.skills import Skill, parse_skill, skill_command, skills_section
from omp.runtime.system_prompt import project_dirs
from omp.runtime.templates import expand_template, template_command

__all__ = ["Resources", "Skill", "discover_resources", "expand_template", "source_enabled"]

RULES_SETTING = "rules.enabled"
SKILLS_SETTING = "skills.enabled"
TEMPLATES_SETTING = "promptTemplates.enabled"
CONTEXT_FILES_SETTING = "contextFiles.enabled"
_SETTING_OF = {
    "rules": RULES_SETTING,
    "skills": SKILLS_SETTING,
    "prompt-templates": TEMPLATES_SETTING,
    "context-files": CONTEXT_FILES_SETTING,
}

_RULE_FOLDERS = (
    ".cursor/rules",
    ".cursorrules",
    ".windsurf/rules",
    ".windsurfrules",
    ".clinerules",
    ".github/copilot-instructions.md",
)


@dataclass
class Resources:
    skill_paths: list[str] = field(default_factory=list)
    prompt_paths: list[str] = field(default_factory=list)
    theme_paths: list[str] = field(default_factory=list)
    rule_paths: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    """The slash commands these resources added (removed when they are discovered again)."""
    sections: list[str] = field(default_factory=list)
    """The system prompt sections these resources added (the same)."""
    rules: list[Any] = field(default_factory=list)
    skills: list[Skill] = field(default_factory=list)


def source_enabled(source: str, flags: dict[str, Any], settings: Any) -> bool:
    """Whether a context source (rules, skills, prompt-templates, context-files) is on:
    its ``--no-<source>`` flag is not given and its setting is not false."""
    if flags.get(f"no-{source}"):
        return False
    return settings.get(_SETTING_OF[source], True) is not False


def builtin_paths(
    projects: list[Path], agent_dir: Path | None, enabled: set[str]
) -> dict[str, list[str]]:
    """The built-in folders and files of each enabled source that exist."""
    user = [agent_dir] if agent_dir is not None else []

    def existing(places: list[Path], *names: str) -> list[str]:
        return [str(p / n) for n in names for p in places if os.path.exists(p / n)]

    found: dict[str, list[str]] = {"rule_paths": [], "skill_paths": [], "prompt_paths": []}
    if "rules" in enabled:
        found["rule_paths"] = [
            *existing(projects, ".omp/rules"),
            *existing(user, "rules"),
            *existing(projects, *_RULE_FOLDERS),
        ]
    if "skills" in enabled:
        found["skill_paths"] = [
            *existing(projects, ".omp/skills"),
            *existing(user, "skills"),
            *existing(projects, ".claude/skills"),
        ]
    if "prompt-templates" in enabled:
        found["prompt_paths"] = [
            *existing(projects, ".omp/commands", ".omp/prompts"),
            *existing(user, "commands", "prompts"),
            *existing(projects, ".claude/commands"),
        ]
    return found


async def discover_resources(session: Any, reason: str = "startup") -> Resources:
    """Fire resources_discover and put what it found to use (see the module docstring)."""
    cwd = Path(session.cwd)
    projects = project_dirs(cwd)
    enabled = {s for s in _SETTING_OF if source_enabled(s, session.flags, session.settings)}
    agent_dir = getattr(session.api, "agent_dir", None)
    if agent_dir is None:
        from omp.config.settings import agent_dir as default_agent_dir

        agent_dir = default_agent_dir()
    event = ResourcesDiscoverEvent(
        cwd=session.cwd,
        reason=reason,  # type: ignore[arg-type]
        **builtin_paths(projects, Path(agent_dir), enabled),
    )
    found = (await session.hooks.resources_discover(event)).event
    _forget(session, session.resources)
    resources = Resources(
        list(found.skill_paths) if "skills" in enabled else [],
        list(found.prompt_paths) if "prompt-templates" in enabled else [],
        list(found.theme_paths),
        list(found.rule_paths) if "rules" in enabled else [],
    )
    session.resources = resources
    rule_files = _files(resources.rule_paths, "*.md", "*.mdc")
    resources.rules = load_rules((f, _base_of(f, projects, cwd)) for f in rule_files)
    resources.skills = _unique(
        parse_skill(p, t) for p, t in _read_all(_files(resources.skill_paths, "*/SKILL.md"))
    )
    commands = _unique(
        template_command(p, t) for p, t in _read_all(_files(resources.prompt_paths, "*.md"))
    )
    commands += [skill_command(s) for s in resources.skills]
    for command in commands:
        if command.name in session.commands:
            await session.notice(
                f"{command.description} is not available as /{command.name}: a plugin "
                "command has that name",
                "warning",
            )
            continue
        session.commands[command.name] = command
        resources.commands.append(command.name)
    sections = [_rules_section(resources.rules), skills_section(resources.skills)]
    resources.sections = [s for s in sections if s]
    _insert_sections(session.system_prompt_sections, resources.sections)
    _attach_glob_rules(session, resources.rules)
    return resources


def _forget(session: Any, previous: Resources) -> None:
    """Take back what the previous discovery added."""
    for name in previous.commands:
        session.commands.pop(name, None)
    sections = session.system_prompt_sections
    for section in previous.sections:
        if section in sections:
            sections.remove(section)


def _insert_sections(sections: list[str], added: list[str]) -> None:
    """After the context files (or the tools), before appended text and the date."""
    from omp.runtime.system_prompt import CONTEXT_HEADING, TOOLS_HEADING

    at = max(len(sections) - 1, 0)
    for heading in (CONTEXT_HEADING, TOOLS_HEADING):
        marks = [i for i, s in enumerate(sections) if s.startswith(heading)]
        if marks:
            at = marks[-1] + 1
            break
    sections[at:at] = added


def _attach_glob_rules(session: Any, rules: list[Any]) -> None:
    glob_rules = [r for r in rules if r.globs and not r.always]
    if not glob_rules:
        session.plugin_state.pop(STATE_KEY, None)
        return
    pm = session.dispatcher.pm
    if not pm.has_plugin(RulesPlugin.NAME):
        pm.register(RulesPlugin(), name=RulesPlugin.NAME)
    given = given_rule_names(session.agent.messages)
    session.plugin_state[STATE_KEY] = RuleAttacher(glob_rules, session.cwd, given)


def _base_of(path: Path, projects: list[Path], cwd: Path) -> Path:
    """Where a rule's globs start: the project folder holding the rule's dot-folder or
    dot-file (``/repo`` for ``/repo/.cursor/rules/x.mdc``), else the working directory."""
    for project in projects:
        try:
            first = path.relative_to(project).parts[0]
        except (ValueError, IndexError):
            continue
        if first.startswith("."):
            return project
    return cwd


def _files(paths: list[str], *patterns: str) -> list[Path]:
    """The files of ``paths`` (files as given; folders: a ``SKILL.md`` or ``patterns``)."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        try:
            if path.is_file():
                out.append(path)
            elif (path / "SKILL.md").is_file() and "*/SKILL.md" in patterns:
                out.append(path / "SKILL.md")
            elif path.is_dir():
                for pattern in patterns:
                    out.extend(sorted(p for p in path.glob(pattern) if p.is_file()))
        except OSError:
            continue
    return out


def _read_all(paths: list[Path]) -> list[tuple[Path, str]]:
    out = []
    for path in paths:
        try:
            out.append((path, path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    return out


def _unique(items: Any) -> list[Any]:
    """The first item of each name."""
    seen: dict[str, Any] = {}
    for item in items:
        seen.setdefault(item.name, item)
    return list(seen.values())
