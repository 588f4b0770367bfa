"""Skills: a folder holding ``SKILL.md`` (front matter ``name`` and ``description``).

Listed by name and description in the system prompt with the file's path, so the model
reads the whole file when a task matches (the ``read`` tool); ``/skill:<name> ARGS``
sends the instructions, with the folder they refer to, then the arguments.
``disable-model-invocation: true`` keeps a skill out of the system prompt (the
command stays). A skill is text: loading one never runs its scripts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omp import Command, front_matter_flag, split_front_matter

SKILLS_HEADING = "# Skills"


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path
    body: str
    listed: bool = True


def parse_skill(path: Path, text: str) -> Skill:
    fields, body = split_front_matter(text)
    name = fields.get("name")
    name = name.strip() if isinstance(name, str) and name.strip() else path.parent.name
    description = fields.get("description")
    description = " ".join(description.split()) if isinstance(description, str) else ""
    listed = not front_matter_flag(fields.get("disable-model-invocation"))
    return Skill(name, description, path, body.strip(), listed)


def skill_command(skill: Skill) -> Command:
    async def run(args: str, ctx: Any) -> None:
        text = (
            f'<skill name="{skill.name}" location="{skill.path}">\n'
            f"Paths in this skill are relative to {skill.path.parent}.\n\n"
            f"{skill.body}\n</skill>"
        )
        await ctx.prompt(f"{text}\n\n{args}" if args else text, literal=True)

    about = skill.description or f"the skill {skill.path}"
    return Command(f"skill:{skill.name}", about, run, source="skill")


def skills_section(skills: list[Skill]) -> str | None:
    listed = [s for s in skills if s.listed]
    if not listed:
        return None
    lines = [
        SKILLS_HEADING,
        "",
        "Skills are instructions for particular tasks; when one applies, read its file "
        "in full (with the read tool) and follow it.",
        "",
    ]
    for skill in listed:
        about = f": {skill.description}" if skill.description else ""
        lines.append(f"- {skill.name}{about} ({skill.path})")
    return "\n".join(lines)
