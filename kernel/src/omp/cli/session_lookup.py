"""``--resume ID``, ``--session ID`` and ``--fork ID`` for a session this directory does
not have: looked for in every project's sessions, as pi does. ``--fork`` copies it here;
``--resume``/``--session`` ask on a terminal whether to fork it here ("Session found in
different project"), and elsewhere say in one line where it is and how to go on."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from omp.base.errors import UsageError


def _given_id(runtime: Any, options: Any) -> tuple[str, str] | None:
    """The flag and the id it names, when it names an id rather than a file."""
    from omp.runtime.bootstrap import is_session_path

    if options.resume and isinstance(options.resume, str):
        return "resume", options.resume
    raw = options.session_path
    if (
        raw
        and isinstance(raw, str)
        and not is_session_path(raw)
        and not (Path(runtime.cwd) / Path(raw).expanduser()).exists()
    ):
        return "session", raw
    raw = options.fork
    if raw and isinstance(raw, str) and not (Path(runtime.cwd) / Path(raw).expanduser()).is_file():
        return "fork", raw
    return None


def locate_elsewhere(runtime: Any, options: Any) -> bool:
    """Point ``options`` at another project's session when the id is not one of this
    directory's; False when the user declined to fork it here (nothing to run)."""
    if options.no_session or options.session_dir or runtime.settings.get("sessionDir"):
        return True  # one folder for every project: the lookup here is the whole lookup
    given = _given_id(runtime, options)
    if given is None:
        return True
    flag, value = given
    from omp.session.listing import find_in_all_projects, list_sessions, matching
    from omp.session.store import sessions_dir

    here = sessions_dir(runtime.agent_dir, str(runtime.cwd))
    if matching(list_sessions(here), value):
        return True
    found = find_in_all_projects(here.parent, value, skip=here)
    if not found:
        return True  # the usual "no session matching" error follows
    if len(found) > 1:
        names = ", ".join(f"{info.path.name} ({info.cwd})" for info in found[:3])
        raise UsageError(
            f"session '{value}' is not in this directory and is ambiguous in other "
            f"projects: {len(found)} sessions match: {names}"
        )
    [info] = found
    if flag != "fork" and not _ask_to_fork(info.cwd):
        return _declined(flag, value, info.cwd)
    options.fork, options.resume, options.session_path = str(info.path), None, None
    return True


def _ask_to_fork(cwd: str) -> bool:
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return False
    sys.stderr.write(f"Session found in different project: {cwd}\n")
    sys.stderr.write("Fork this session into current directory? [y/N] ")
    sys.stderr.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def _declined(flag: str, value: str, cwd: str) -> bool:
    if sys.stdin.isatty() and sys.stderr.isatty():
        print("Aborted.", file=sys.stderr)
        return False
    raise UsageError(
        f"session '{value}' belongs to another project ({cwd}): run omp there with "
        f"--{flag} {value}, or continue a copy here with --fork {value}"
    )
