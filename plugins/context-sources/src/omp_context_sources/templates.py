"""Prompt templates: a Markdown file that becomes a slash command.

``/review a.py b.py`` sends the template's body (front matter removed) as the prompt:
``$ARGUMENTS`` and ``$@`` become all the arguments, ``$1``, ``$2``... each one
(``"quoted words"`` are one argument), ``${@:N}`` the arguments from the N-th and
``${@:N:L}`` L of them; a template naming none gets the arguments appended. The
front matter's ``description`` describes the command. A template is text: nothing in
it runs (Claude Code's ``!`command``` lines are sent as they are).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from omp import Command, split_front_matter

_PLACEHOLDER = re.compile(r"\$\{@:(\d+)(?::(\d+))?\}|\$ARGUMENTS|\$@|\$(\d+)")


def split_arguments(args: str) -> list[str]:
    """Words of ``args``, quotes grouping words (plain splitting when quotes do not
    pair)."""
    try:
        return shlex.split(args)
    except ValueError:
        return args.split()


def expand_template(template: str, args: str) -> str:
    if not _PLACEHOLDER.search(template):
        return f"{template.rstrip()}\n\n{args}".strip() if args else template.strip()
    words = split_arguments(args)

    def substitute(match: re.Match[str]) -> str:
        if match[1]:
            start = max(int(match[1]) - 1, 0)
            end = start + int(match[2]) if match[2] else None
            return " ".join(words[start:end])
        if match[3]:
            number = int(match[3])
            return words[number - 1] if 0 < number <= len(words) else ""
        return args

    return _PLACEHOLDER.sub(substitute, template).strip()


def template_command(path: Path, text: str) -> Command:
    """The command ``/<file name>`` for the template at ``path`` (its text given, read
    again when run so that edits apply at once)."""
    fields = split_front_matter(text)[0]
    description = fields.get("description")
    if not isinstance(description, str) or not description.strip():
        description = f"the prompt template {path}"

    async def run(args: str, ctx: Any) -> None:
        try:
            current = path.read_text(encoding="utf-8", errors="replace")
        except OSError as e:
            ctx.ui.notify(f"cannot read the prompt template {path}: {e.strerror or e}", "error")
            return
        await ctx.prompt(expand_template(split_front_matter(current)[1], args), literal=True)

    return Command(path.stem, " ".join(description.split()), run, source="file")
