"""Where rules, skills and prompt templates are found, and reading what was found.

When a session starts (and again when a new, resumed or forked session replaces it),
the kernel fires resources_discover. This plugin's first handler (``tryfirst``) adds
the built-in folders that exist, so every other handler sees them and adds its own:

* ``rule_paths`` (``omp_context_sources.rules``): ``.omp/rules/``, the agent directory's
  ``rules/``, ``.cursor/rules/``, ``.cursorrules``, ``.windsurf/rules/``,
  ``.windsurfrules``, ``.clinerules`` (a file or a folder),
  ``.github/copilot-instructions.md``;
* ``skill_paths`` (``omp_context_sources.skills``): ``.omp/skills/``, the agent
  directory's ``skills/``, ``.claude/skills/`` - a folder holding ``SKILL.md``, or a
  folder of them;
* ``prompt_paths`` (``omp_context_sources.templates``): ``.omp/commands/``,
  ``.omp/prompts/``, the agent directory's ``commands/`` and ``prompts/``,
  ``.claude/commands/`` - a ``.md`` file or a folder of them, each a slash command
  named after the file.

Its last handler (``trylast``) reads every path found (``load``). Project folders are
looked for in the working directory and each parent up to the repository root
(``omp.project_dirs``), nearest first. The first rule, skill or template of a name
wins: omp's own folders before other agents', the project before the user's,
built-in folders before plugins' paths.

Each source can be switched off (``--no-rules``, ``--no-skills``,
``--no-prompt-templates``, or the settings ``rules.enabled``, ``skills.enabled``,
``promptTemplates.enabled`` set to false), which drops plugins' paths too.

Trust: rules, skills and templates are text the model reads; none of them runs
anything, so an untrusted project's load as omp's do.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from omp import Command

from omp_context_sources.rules import Rule, RuleAttacher, load_rules, rules_section
from omp_context_sources.skills import Skill, parse_skill, skill_command, skills_section
from omp_context_sources.templates import template_command

SETTINGS = {
    "rules": "rules.enabled",
    "skills": "skills.enabled",
    "prompt-templates": "promptTemplates.enabled",
}
"""Each source -> the setting that switches it off (its flag is ``--no-<source>``)."""

_RULE_FOLDERS = (
    ".cursor/rules",
    ".cursorrules",
    ".windsurf/rules",
    ".windsurfrules",
    ".clinerules",
    ".github/copilot-instructions.md",
)

_Named = TypeVar("_Named", Skill, Command)


@dataclass
class Loaded:
    """What one session's discovery read (kept in ``ctx.state``)."""

    rules: list[Rule] = field(default_factory=list)
    skills: list[Skill] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    """The system prompt sections (rules, skills) added before each prompt."""
    attacher: RuleAttacher | None = None
    """The glob rules, attached to matching tools' results (None: there are none)."""


def enabled_sources(get_flag: Callable[[str], Any], settings: Any) -> set[str]:
    """The sources whose ``--no-<source>`` flag is not given and setting not false."""
    return {
        source
        for source, key in SETTINGS.items()
        if not get_flag(f"no-{source}") and settings.get(key, True) is not False
    }


def builtin_paths(
    projects: list[Path], agent_dir: Path | None, enabled: set[str]
) -> dict[str, list[str]]:
    """The built-in folders and files of each enabled source that exist."""
    user = [agent_dir] if agent_dir is not None else []

    def existing(places: list[Path], *names: str) -> list[str]:
        return [str(p / n) for n in names for p in places if os.path.exists(p / n)]

    found: dict[str, list[str]] = {}
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


def load(event: Any, enabled: set[str], projects: list[Path]) -> Loaded:
    """Read the rules, skills and templates of ``event``'s paths (the enabled sources
    only)."""
    cwd = Path(event.cwd)
    loaded = Loaded()
    if "rules" in enabled:
        rule_files = _files(event.rule_paths, "*.md", "*.mdc")
        loaded.rules = load_rules((f, _base_of(f, projects, cwd)) for f in rule_files)
    if "skills" in enabled:
        loaded.skills = _unique(
            parse_skill(p, t) for p, t in _read_all(_files(event.skill_paths, "*/SKILL.md"))
        )
    if "prompt-templates" in enabled:
        loaded.commands = _unique(
            template_command(p, t) for p, t in _read_all(_files(event.prompt_paths, "*.md"))
        )
    loaded.commands += [skill_command(s) for s in loaded.skills]
    sections = [rules_section(loaded.rules), skills_section(loaded.skills)]
    loaded.sections = [s for s in sections if s]
    glob_rules = [r for r in loaded.rules if r.globs and not r.always]
    if glob_rules:
        loaded.attacher = RuleAttacher(glob_rules, event.cwd, set())
    return loaded


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


def _unique(items: Iterable[_Named]) -> list[_Named]:
    """The first item of each name."""
    seen: dict[str, _Named] = {}
    for item in items:
        seen.setdefault(item.name, item)
    return list(seen.values())
