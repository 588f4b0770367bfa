"""Rules: instructions the project (or the user) keeps for the model.

Read from ``.omp/rules/*.md`` and the files other agents' users already have
(``.cursor/rules/*.mdc``, ``.cursorrules``, ``.windsurf/rules/``, ``.clinerules``,
``.github/copilot-instructions.md``; ``omp_context_sources.discovery`` lists where), plus the paths
plugins return from resources_discover. A rule's front matter decides how it applies:

* ``alwaysApply: true`` (Windsurf: ``trigger: always_on``), or no front matter at all:
  its text is in the system prompt;
* ``globs`` (a list, or comma-separated): attached, once per session, to the result of
  a tool that read or edited a matching file (a tool whose input names a ``path``); a
  pattern without ``/`` matches the file name anywhere, one with ``/`` the path from
  the folder holding the rule's dot-folder;
* ``description``: listed with its file, for the model to read when it applies;
* none of these but ``alwaysApply: false`` (Cursor's "manual"): listed by name, to be
  read only when the user asks for it.

Rules are text the model reads and never run anything, so an untrusted project's rules
load too. The first rule of a name wins (``.omp`` before other agents' files, the
project before the user's).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omp import front_matter_flag, front_matter_list, split_front_matter

RULES_HEADING = "# Rules"
_MARK = re.compile(r'<rule name="([^"]+)"')


@dataclass(frozen=True)
class Rule:
    name: str
    path: Path
    content: str
    base: Path
    """Where ``globs`` with a ``/`` start (the folder holding the rule's dot-folder)."""
    globs: tuple[str, ...] = ()
    description: str = ""
    always: bool = False

    @property
    def manual(self) -> bool:
        return not (self.always or self.globs or self.description)


def load_rules(files: Iterable[tuple[Path, Path]]) -> list[Rule]:
    """The rules of ``(file, base)`` pairs; the first of each name wins."""
    rules: dict[str, Rule] = {}
    for path, base in files:
        name = path.name.lstrip(".").removesuffix(".mdc").removesuffix(".md")
        if name in rules:
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        rule = parse_rule(name, path, text, base)
        if rule.content:
            rules[name] = rule
    return list(rules.values())


def parse_rule(name: str, path: Path, text: str, base: Path) -> Rule:
    fields, body = split_front_matter(text)
    trigger = str(fields.get("trigger") or "")
    globs = tuple(front_matter_list(fields.get("globs")))
    description = fields.get("description")
    description = " ".join(description.split()) if isinstance(description, str) else ""
    always = front_matter_flag(fields.get("alwaysApply")) or trigger == "always_on"
    if not (always or globs or description) and "alwaysApply" not in fields:
        always = trigger not in ("manual", "model_decision", "glob")
    return Rule(name, path, body.strip(), base, globs, description, always)


def rules_section(rules: list[Rule]) -> str | None:
    """The system prompt's rules: always-apply text inline, the others listed."""
    always = [r for r in rules if r.always]
    described = [r for r in rules if not r.always and r.description]
    by_glob = [r for r in rules if not r.always and r.globs and not r.description]
    manual = [r for r in rules if r.manual]
    if not rules:
        return None
    parts = [RULES_HEADING]
    if always:
        parts.append("These rules apply to all your work here:")
        parts += [
            f'<rule name="{html.escape(r.name)}" path="{html.escape(str(r.path))}">\n'
            f"{r.content}\n</rule>"
            for r in always
        ]
    if described:
        lines = ["Read a rule's file (with the read tool) before work its description covers:"]
        lines += [f"- {r.name}: {r.description} ({r.path}){_globs(r)}" for r in described]
        parts.append("\n".join(lines))
    if by_glob:
        lines = ["These rules arrive with the result when you read or edit a matching file:"]
        lines += [f"- {r.name}{_globs(r)} ({r.path})" for r in by_glob]
        parts.append("\n".join(lines))
    if manual:
        lines = ["Read these only when the user asks for them:"]
        lines += [f"- {r.name} ({r.path})" for r in manual]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _globs(rule: Rule) -> str:
    return f" [files: {', '.join(rule.globs)}]" if rule.globs else ""


def glob_matcher(patterns: Iterable[str]) -> Callable[[str], bool]:
    """Whether a ``/``-separated relative path matches one of ``patterns``."""
    names: list[str] = []
    paths: list[str] = []
    for pattern in patterns:
        pattern = pattern.strip().removeprefix("./").lstrip("/")
        if not pattern:
            continue
        (paths if "/" in pattern else names).append(_glob_regex(pattern))
    name_re = re.compile("|".join(names)) if names else None
    path_re = re.compile("|".join(paths)) if paths else None

    def match(path: str) -> bool:
        if name_re and name_re.fullmatch(path.rpartition("/")[2]):
            return True
        return bool(path_re and path_re.fullmatch(path))

    return match


def _glob_regex(pattern: str) -> str:
    out, index = [], 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "{" and "}" in pattern[index:]:
            end = pattern.index("}", index)
            options = pattern[index + 1 : end].split(",")
            out.append("(?:" + "|".join(_glob_regex(o) for o in options) + ")")
            index = end + 1
            continue
        elif char == "[" and "]" in pattern[index + 1 :]:
            end = pattern.index("]", index + 1)
            out.append("[" + pattern[index + 1 : end].replace("!", "^", 1) + "]")
            index = end + 1
            continue
        else:
            out.append(re.escape(char))
        index += 1
    return "(?:" + "".join(out) + ")"


class RuleAttacher:
    """One session's glob rules and which of them the model has already been given."""

    def __init__(self, rules: list[Rule], cwd: str, given: set[str]) -> None:
        self.cwd = Path(cwd)
        self.rules = [(rule, glob_matcher(rule.globs)) for rule in rules]
        self.given = set(given)

    def text_for(self, raw_path: str) -> str | None:
        """The rules a file at ``raw_path`` brings that were not given yet, as text."""
        path = (self.cwd / Path(raw_path).expanduser()).resolve()
        found = []
        for rule, match in self.rules:
            if rule.name in self.given or not match(_relative(path, rule.base)):
                continue
            self.given.add(rule.name)
            found.append(
                f'<rule name="{html.escape(rule.name)}" path="{html.escape(str(rule.path))}">\n'
                f"{rule.content}\n</rule>"
            )
        if not found:
            return None
        return "\n\n".join([f"Project rules for {raw_path}:", *found])


def _relative(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return path.name


def given_rule_names(messages: Iterable[Any]) -> set[str]:
    """Rules already attached in a restored conversation (so a resumed session does
    not attach them again)."""
    names: set[str] = set()
    for message in messages:
        if getattr(message, "role", None) != "toolResult":
            continue
        for block in message.content:
            text = getattr(block, "text", "")
            if '<rule name="' in text:
                names.update(_MARK.findall(text))
    return names
