"""``omp recover``: the old content of files whose in-place write was cut off
(``omp.config.recovery``). ``omp recover`` lists them, ``restore ID`` puts one back,
``discard ID`` drops it. The kernel's own command: settings files are written through
the same mechanism as the tools' files, so it works with every plugin disabled."""

from __future__ import annotations

import time
from pathlib import Path

from omp.base.errors import OmpError, UsageError
from omp.config import recovery

USAGE = "usage: omp recover [list | restore ID | discard ID]"


def run(args: list[str], agent_directory: Path) -> int:
    folder = recovery.folder_of(agent_directory)
    action, ids = (args[0], args[1:]) if args else ("list", [])
    if action in ("-h", "--help"):
        print(USAGE)
        return 0
    if action == "list" and not ids:
        return _list(folder)
    if action not in ("restore", "discard") or len(ids) != 1:
        raise UsageError(USAGE)
    try:
        found = recovery.find(folder, ids[0])
    except LookupError as exc:
        raise UsageError(str(exc)) from None
    if action == "discard":
        found.drop()
        print(f"discarded the recovery copy {found.id} of {found.target}")
        return 0
    try:
        written = found.restore()
    except OSError as exc:
        raise OmpError(f"cannot restore {found.target}: {exc.strerror or exc}") from None
    print(f"restored {written} ({found.size:,} bytes) from the recovery copy {found.id}")
    return 0


def _list(folder: Path) -> int:
    waiting = recovery.interrupted(folder)
    if not waiting:
        print("no recovery copies: no write was cut off")
        return 0
    for found, state in waiting:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(found.saved))
        print(f"{found.id}  {when}  {found.size:,} bytes  {found.target}  ({state})")
    print("`omp recover restore ID` puts the old content back; `omp recover discard ID` drops it")
    return 0
