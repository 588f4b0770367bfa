"""``omp sessions [SEARCH] [--all] [--json]`` and ``omp sessions export [ID|PATH] FILE``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from omp.errors import UsageError

USAGE = """\
usage: omp sessions [SEARCH] [--all] [--json]      this directory's sessions, newest first
       omp sessions export [ID|PATH] FILE          write a session as HTML (or .md: Markdown)
       omp --export FILE [--session PATH|--resume ID]

SEARCH keeps the sessions whose id, title or directory contains every word; --all lists
the sessions of every directory. export takes the latest session of this directory
unless an id prefix or a session file is given.
"""


def _directory(runtime: Any) -> Path:
    from omp.session_store import sessions_dir

    return sessions_dir(runtime.agent_dir, str(runtime.cwd), runtime.settings.get("sessionDir"))


def run(args: list[str], runtime: Any) -> int:
    flags = [a for a in args if a.startswith("-") and a != "-"]
    positional = [a for a in args if a not in flags]
    if {"-h", "--help"} & set(flags):
        print(USAGE, end="")
        return 0
    if positional[:1] == ["export"]:
        if flags:
            raise UsageError(f"unknown flag {flags[0]}; usage: omp sessions export [ID|PATH] FILE")
        return _export(positional[1:], runtime)
    unknown = [f for f in flags if f not in ("--all", "--json")]
    if unknown:
        raise UsageError(
            f"unknown flag {unknown[0]}; usage: omp sessions [SEARCH] [--all] [--json]"
        )
    return _list(" ".join(positional), runtime, "--all" in flags, "--json" in flags)


def _list(search: str, runtime: Any, everywhere: bool, as_json: bool) -> int:
    from omp.session_listing import list_all_sessions, list_sessions

    if everywhere:
        infos = list_all_sessions(Path(runtime.agent_dir) / "sessions", search)
    else:
        infos = list_sessions(_directory(runtime), search)
    if as_json:
        for info in infos:
            print(json.dumps(info.to_json(), ensure_ascii=False))
        return 0
    if not infos:
        where = "anywhere" if everywhere else f"for {runtime.cwd}"
        matching = f" matching {search!r}" if search else ""
        print(f"omp: no sessions{matching} {where}", file=sys.stderr)
        return 0
    for info in infos:
        print(format_row(info, show_cwd=everywhere))
    return 0


def format_row(info: Any, show_cwd: bool = False) -> str:
    """One session on one line: id prefix, modified, messages, (cwd,) title."""
    modified = info.modified.astimezone().strftime("%Y-%m-%d %H:%M")
    count = f"{info.message_count} msg" + ("" if info.message_count == 1 else "s")
    where = f"  {info.cwd}" if show_cwd else ""
    return f"{info.id[:8]}  {modified}  {count:>8}{where}  {info.title}"


def _export(args: list[str], runtime: Any) -> int:
    from omp.errors import OmpError
    from omp.session_store import find_session, most_recent

    from omp_sessions_command.export import export_session

    if not args or len(args) > 2:
        raise UsageError("usage: omp sessions export [ID|PATH] FILE")
    target = Path(runtime.cwd) / Path(args[-1]).expanduser()
    directory = _directory(runtime)
    if len(args) == 2:
        given = Path(runtime.cwd) / Path(args[0]).expanduser()
        source = given if given.is_file() else find_session(directory, args[0])
    else:
        source = most_recent(directory)
        if source is None:
            raise OmpError(f"no session to export: none saved for {runtime.cwd}")
    written = export_session(source, target)
    print(f"exported {source.name} to {written}", file=sys.stderr)
    return 0
