"""The system prompt, built as a list of sections that plugins may edit.

Sections, in order: the harness prompt (``prompts/system.md``; replaced by a
``SYSTEM.md`` - the project's ``.omp/SYSTEM.md``, else the agent directory's - and
by the ``--system-prompt`` text over both), the tools, the context files
(``AGENTS.md`` / ``CLAUDE.md``, unless switched off), then ``APPEND_SYSTEM.md`` (the
agent directory's, then the project's) and the ``--append-system-prompt`` text, and a
last line with the date and the working directory. Plugins' sections (rules and
skills, from omp-context-sources) go after the context files (``with_prompt_sections``).

The project's ``.omp`` folder is the nearest one from the working directory up to the
repository root (``project_dirs``). SYSTEM.md and APPEND_SYSTEM.md are prompt text, so
an untrusted project's apply too (as in omp).

This module is on the startup path: it imports only the standard library and
``omp.base.errors``.
"""

from __future__ import annotations

import datetime
import functools
import html
import os
from importlib import resources
from pathlib import Path

from omp.base.errors import OmpError

CONTEXT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")
"""Looked for in each directory; the first one present wins."""

SYSTEM_FILE = "SYSTEM.md"
APPEND_SYSTEM_FILE = "APPEND_SYSTEM.md"
CONTEXT_HEADING = "# Project context"
TOOLS_HEADING = "# Tools"
NO_TOOLS_TEXT = "No tools are available in this session: answer from the conversation alone."


@functools.cache
def harness_prompt() -> str:
    """The built-in prompt text shipped with the package."""
    return (
        resources.files("omp")
        .joinpath("prompts")
        .joinpath("system.md")
        .read_text(encoding="utf-8")
        .strip()
    )


def find_context_files(cwd: Path, agent_dir: Path) -> list[Path]:
    """Context files, most general first.

    The global file in ``agent_dir`` comes first, then one file per directory from the
    filesystem root down to ``cwd`` (so the most specific file comes last).
    """
    found: list[Path] = []
    seen: set[Path] = set()
    cwd = Path(cwd).resolve()
    for directory in (Path(agent_dir), *reversed(cwd.parents), cwd):
        path = _context_file_in(directory)
        if path is None:
            continue
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            found.append(path)
    return found


def _context_file_in(directory: Path) -> Path | None:
    for name in CONTEXT_FILE_NAMES:
        path = directory / name
        if _is_file(path):
            return path
    return None


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def project_dirs(cwd: Path) -> list[Path]:
    """The working directory and its parents up to the repository root (the folder
    holding ``.git``), nearest first; the working directory alone outside a repository."""
    cwd = Path(cwd)
    chain = []
    for directory in (cwd, *cwd.parents):
        chain.append(directory)
        if os.path.exists(directory / ".git"):
            return chain
    return [cwd]


def override_files(cwd: Path, agent_dir: Path, name: str) -> list[Path]:
    """``name`` (SYSTEM.md, APPEND_SYSTEM.md) in the agent directory, then in the
    nearest project ``.omp`` folder - the ones that exist."""
    found = [Path(agent_dir) / name] if _is_file(Path(agent_dir) / name) else []
    for directory in project_dirs(cwd):
        if _is_file(directory / ".omp" / name):
            found.append(directory / ".omp" / name)
            break
    return found


def _read_override(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError as e:
        raise OmpError(f"cannot read {path}: {e.strerror or e}") from e


def read_text_or_file(value: str, cwd: Path) -> str:
    """``value`` itself, or the content of the file it names (relative to ``cwd``).

    Used for ``--system-prompt`` and ``--append-system-prompt``: an existing path is
    read, anything else is literal text.
    """
    if not value or "\n" in value:
        return value
    path = Path(cwd) / os.path.expanduser(value)
    try:
        path.stat()
    except (OSError, ValueError):
        return value  # not an existing path (or not a valid one): literal text
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise OmpError(f"cannot read prompt file {path}: not UTF-8 text ({e.reason})") from e
    except OSError as e:
        raise OmpError(f"cannot read prompt file {path}: {e.strerror or e}") from e


def tools_section(tools: list[tuple[str, str]]) -> str:
    """``- name: first line of the description`` for each tool."""
    if not tools:
        return f"{TOOLS_HEADING}\n\n{NO_TOOLS_TEXT}"
    lines = [TOOLS_HEADING, "", "You can call these tools:", ""]
    for name, description in tools:
        first = next((ln.strip() for ln in (description or "").splitlines() if ln.strip()), "")
        lines.append(f"- {name}: {first}" if first else f"- {name}")
    return "\n".join(lines)


def context_section(files: list[Path]) -> str | None:
    """The context files wrapped in ``<file>`` tags; ``None`` when there are none.

    A file that cannot be read is skipped: an unreadable ``AGENTS.md`` in some ancestor
    directory must not stop the agent from starting.
    """
    blocks = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        blocks.append(f'<file path="{html.escape(str(path))}">\n{text.strip()}\n</file>')
    if not blocks:
        return None
    intro = (
        "Instructions from the project's context files, from the most general to the most "
        "specific; when they disagree, the later file wins."
    )
    return "\n\n".join([CONTEXT_HEADING, intro, *blocks])


def build_system_prompt(
    *,
    cwd: Path,
    agent_dir: Path,
    tools: list[tuple[str, str]],
    date: str | None = None,
    replace: str | None = None,
    append: str | None = None,
    context_files: bool = True,
) -> list[str]:
    """The system prompt as a list of sections (see the module docstring).

    ``replace`` and ``append`` are text (already read with ``read_text_or_file``);
    ``replace`` swaps only the harness prompt, the other sections are still added.
    ``context_files=False`` leaves out AGENTS.md / CLAUDE.md. ``date`` defaults to
    today (``YYYY-MM-DD``).
    """
    cwd = Path(cwd).resolve()
    sections: list[str] = []
    if replace is None:
        system_files = override_files(cwd, agent_dir, SYSTEM_FILE)
        harness = _read_override(system_files[-1]) if system_files else harness_prompt()
    else:
        harness = replace.strip()
    if harness:
        sections.append(harness)
    sections.append(tools_section(tools))
    context = context_section(find_context_files(cwd, agent_dir)) if context_files else None
    if context:
        sections.append(context)
    for path in override_files(cwd, agent_dir, APPEND_SYSTEM_FILE):
        text = _read_override(path)
        if text:
            sections.append(text)
    if append and append.strip():
        sections.append(append.strip())
    date = date or datetime.date.today().isoformat()
    sections.append(f"Current date: {date}\nCurrent working directory: {cwd}")
    return sections


def with_prompt_sections(sections: list[str], added: list[str]) -> list[str]:
    """``sections`` with ``added`` where a plugin's sections belong: after the context
    files (or the tools), before the appended text and the date line."""
    at = max(len(sections) - 1, 0)
    for heading in (CONTEXT_HEADING, TOOLS_HEADING):
        marks = [i for i, s in enumerate(sections) if s.startswith(heading)]
        if marks:
            at = marks[-1] + 1
            break
    return [*sections[:at], *added, *sections[at:]]


def join_system_prompt(sections: list[str]) -> str:
    """One string, sections separated by a blank line; empty sections are dropped."""
    return "\n\n".join(s.strip("\n") for s in sections if s and s.strip())
