"""What resources_discover handlers contribute, and what this project does with it.

The hook fires when a session starts (and again when a new, resumed or forked session
replaces it), after session_start, with reason ``startup``:

* ``prompt_paths``: Markdown prompt templates - a ``.md`` file, or every ``*.md`` in a
  folder - become slash commands named after the file: ``/review a.py`` sends the
  template as the prompt, ``$ARGUMENTS`` (or ``$@``) replaced by the arguments and
  ``$1``..``$9`` by each one; a template naming none gets the arguments appended.
* ``skill_paths``: skills - a folder holding ``SKILL.md``, or a folder of such
  folders - become ``/skill:<name>`` commands (the skill's instructions, then the
  arguments, as the prompt) and are listed in the system prompt with their
  description and file, so the model can read one when it applies. ``name`` and
  ``description`` come from the file's front matter (default: the folder's name).
* ``theme_paths``: kept in ``session.resources`` for interactive modes.

A template or skill never replaces a command a plugin registered (a notice says so).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omp.contrib import Command
from omp.events import ResourcesDiscoverEvent

SKILLS_HEADING = "# Skills"
_POSITIONAL = re.compile(r"\$([1-9])")


@dataclass
class Resources:
    skill_paths: list[str] = field(default_factory=list)
    prompt_paths: list[str] = field(default_factory=list)
    theme_paths: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    """The slash commands these resources added (removed when they are discovered again)."""
    skills_section: str | None = None


@dataclass
class Skill:
    name: str
    description: str
    path: Path
    body: str


async def discover_resources(session: Any, reason: str = "startup") -> Resources:
    """Fire resources_discover and put what it found to use (see the module docstring)."""
    outcome = await session.call_hook(
        "omp_resources_discover",
        ResourcesDiscoverEvent(cwd=session.cwd, reason=reason),  # type: ignore[arg-type]
    )
    found = outcome.event
    previous = session.resources
    for name in previous.commands:
        session.commands.pop(name, None)
    if previous.skills_section in session.system_prompt_sections:
        session.system_prompt_sections.remove(previous.skills_section)
    resources = Resources(
        list(found.skill_paths), list(found.prompt_paths), list(found.theme_paths)
    )
    session.resources = resources
    commands = [_template_command(p) for p in _files(found.prompt_paths, "*.md")]
    skills = [s for p in _files(found.skill_paths, "*/SKILL.md", "SKILL.md") if (s := _skill(p))]
    commands += [_skill_command(s) for s in skills]
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
    if skills:
        resources.skills_section = _skills_section(skills)
        sections = session.system_prompt_sections
        sections.insert(max(len(sections) - 1, 0), resources.skills_section)
    return resources


def _files(paths: list[str], *patterns: str) -> list[Path]:
    """The files of ``paths`` (files as given, folders searched with ``patterns``)."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        try:
            if path.is_file():
                out.append(path)
            elif path.is_dir():
                for pattern in patterns:
                    out.extend(sorted(p for p in path.glob(pattern) if p.is_file()))
        except OSError:
            continue
    return out


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    """``key: value`` lines between leading ``---`` lines, and the rest of the text."""
    if not text.startswith("---"):
        return {}, text
    head, sep, body = text[3:].partition("\n---")
    if not sep:
        return {}, text
    fields = {}
    for line in head.splitlines():
        key, colon, value = line.partition(":")
        if colon and key.strip():
            fields[key.strip()] = value.strip().strip("\"'")
    return fields, body.partition("\n")[2]


def expand_template(template: str, args: str) -> str:
    words = args.split()
    if "$ARGUMENTS" not in template and "$@" not in template and not _POSITIONAL.search(template):
        return f"{template.rstrip()}\n\n{args}".strip() if args else template.strip()
    text = template.replace("$ARGUMENTS", args).replace("$@", args)
    text = _POSITIONAL.sub(lambda m: words[int(m[1]) - 1] if int(m[1]) <= len(words) else "", text)
    return text.strip()


def _template_command(path: Path) -> Command:
    async def run(args: str, ctx: Any) -> None:
        text = _read(path)
        if text is None:
            ctx.ui.notify(f"cannot read the prompt template {path}", "error")
            return
        await ctx.prompt(expand_template(_front_matter(text)[1], args))

    return Command(path.stem, f"the prompt template {path}", run)


def _skill(path: Path) -> Skill | None:
    text = _read(path)
    if text is None:
        return None
    fields, body = _front_matter(text)
    name = fields.get("name") or path.parent.name
    return Skill(name, fields.get("description", ""), path, body.strip())


def _skill_command(skill: Skill) -> Command:
    async def run(args: str, ctx: Any) -> None:
        await ctx.prompt(f"{skill.body}\n\n{args}".strip() if args else skill.body)

    return Command(f"skill:{skill.name}", f"the skill {skill.path}", run)


def _skills_section(skills: list[Skill]) -> str:
    lines = [
        SKILLS_HEADING,
        "",
        "Skills are instructions for particular tasks; when one applies, read its file.",
        "",
    ]
    for skill in skills:
        about = f": {skill.description}" if skill.description else ""
        lines.append(f"- {skill.name}{about} ({skill.path})")
    return "\n".join(lines)
