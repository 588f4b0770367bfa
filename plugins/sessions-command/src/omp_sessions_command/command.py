"""``omp sessions [SEARCH] [--all] [--json]`` and ``omp sessions export [ID|PATH] FILE``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omp import UsageError

if TYPE_CHECKING:
    from omp import SubcommandContext

USAGE = """\
usage: omp sessions [SEARCH] [--all] [--json]      this directory's sessions, newest first,
                                                   each with its subagents' sessions under it
       omp sessions export [ID|PATH] FILE [--force]
                                                   write a session as HTML (or .md: Markdown)
       omp sessions export --session ID|PATH [FILE] [--force]
       omp --export ID|PATH [FILE] [--force]       the same, as in pi and omp

SEARCH keeps the sessions whose id, title or directory contains every word; --all lists
the sessions of every directory. export takes the latest session of this directory
unless an id prefix or a session file is given; with --session, FILE defaults to
omp-session-NAME.html here. An existing FILE is kept unless --force is given, and an
export is never written to a .jsonl file.
"""
EXPORT_USAGE = (
    "usage: omp --export SESSION [OUT] [--force], or omp sessions export [ID|PATH] FILE [--force]"
)


def run(args: list[str], ctx: SubcommandContext) -> int:
    flags = [a for a in args if a.startswith("-") and a != "-"]
    positional = [a for a in args if a not in flags]
    if {"-h", "--help"} & set(flags):
        print(USAGE, end="")
        return 0
    if args[:1] == ["export"]:
        return _export(args[1:], ctx)
    unknown = [f for f in flags if f not in ("--all", "--json")]
    if unknown:
        raise UsageError(
            f"unknown flag {unknown[0]}; usage: omp sessions [SEARCH] [--all] [--json]"
        )
    return _list(" ".join(positional), ctx, "--all" in flags, "--json" in flags)


def _list(search: str, ctx: SubcommandContext, everywhere: bool, as_json: bool) -> int:
    from omp import list_all_sessions, list_sessions

    if everywhere:
        infos = list_all_sessions(ctx.agent_dir / "sessions", search)
    else:
        infos = list_sessions(ctx.sessions_dir, search, children=True)
    if as_json:
        for info in infos:
            print(json.dumps(info.to_json(), ensure_ascii=False))
        return 0
    if not infos:
        where = "anywhere" if everywhere else f"for {ctx.cwd}"
        matching = f" matching {search!r}" if search else ""
        print(f"omp: no sessions{matching} {where}", file=sys.stderr)
        return 0
    for info in infos:
        print(format_row(info, show_cwd=everywhere))
    return 0


def format_row(info: Any, show_cwd: bool = False) -> str:
    """One session on one line: id prefix, modified, messages, (cwd,) title; a child
    session (a subagent's) indented under its parent, named by its file."""
    modified = info.modified.astimezone().strftime("%Y-%m-%d %H:%M")
    count = f"{info.message_count} msg" + ("" if info.message_count == 1 else "s")
    where = f"  {info.cwd}" if show_cwd else ""
    depth = info.depth
    indent = "  " * depth + "↳ " if depth else ""
    title = f"{info.path.stem}: {info.title}" if depth else info.title
    return f"{indent}{info.id[:8]}  {modified}  {count:>8}{where}  {title}"


def _export(args: list[str], ctx: SubcommandContext) -> int:
    from omp import OmpError, known_secrets, most_recent_session

    from omp_sessions_command.export import default_name, export_session

    force = "--force" in args
    source_arg, rest = _option(args, "--session")
    flags = [a for a in rest if a.startswith("-") and a not in ("-", "--force")]
    if flags:
        raise UsageError(f"unknown flag {flags[0]}; {EXPORT_USAGE}")
    positional = [a for a in rest if a != "--force"]
    if source_arg is not None:
        if len(positional) > 1:
            raise UsageError(f"one output file only; {EXPORT_USAGE}")
    elif len(positional) == 2:
        source_arg = positional.pop(0)
    elif len(positional) != 1:
        raise UsageError(EXPORT_USAGE)
    if source_arg is not None:
        source = _source(source_arg, ctx)
    else:
        found = most_recent_session(ctx.sessions_dir)
        if found is None:
            raise OmpError(f"no session to export: none saved for {ctx.cwd}")
        source = found
    given = positional[0] if positional else default_name(source)
    target = ctx.cwd / Path(given).expanduser()
    secrets = known_secrets(ctx.cwd, ctx.provider_configs())
    export_session(source, target, secrets, force=force)
    print(f"Exported to: {given}")
    return 0


def _option(args: list[str], name: str) -> tuple[str | None, list[str]]:
    """The value of ``name VALUE`` (or ``name=VALUE``) and the other arguments."""
    for index, token in enumerate(args):
        if token == name and index + 1 < len(args):
            return args[index + 1], args[:index] + args[index + 2 :]
        if token.startswith(f"{name}="):
            return token.partition("=")[2], args[:index] + args[index + 1 :]
    return None, args


def _source(raw: str, ctx: SubcommandContext) -> Path:
    """The session file a SESSION argument names: a path, else an id prefix here."""
    path = ctx.cwd / Path(raw).expanduser()
    if os.path.lexists(path):
        return path
    if Path(raw).suffix.lower() in (".html", ".htm", ".md", ".markdown"):
        raise UsageError(
            f"no session {raw}: --export takes the session first, then the output: "
            "omp --export SESSION [OUT.html]"
        )
    return ctx.find_session(raw)
