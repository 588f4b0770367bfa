"""What the command line says and asks about project trust (see ``omp.config.trust``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from omp.config.settings import remember_trusted
from omp.config.trust import TRUSTED_DIRECTORIES, is_trusted


def ask_to_trust(cwd: Path, discover: bool) -> bool:
    """On a terminal, name what an untrusted project would load and ask once; False
    (load nothing of it) when there is no terminal, nothing to load, or the answer is no."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return False
    from omp.config.settings import load_settings
    from omp.plugin.manager import project_extension_files

    decision = load_settings(cwd).trust
    if decision.trusted:
        return False
    files = project_extension_files(cwd) if discover else []
    keys = [k for k in decision.skipped_settings if k != TRUSTED_DIRECTORIES]
    if not files and not keys:
        return False
    say = sys.stderr.write
    say(f"omp: {cwd} has project code or settings that would run with your permissions:\n")
    for path in files:
        say(f"  extension  {path}\n")
    if keys:
        say(f"  settings   {', '.join(keys)} (from .omp/settings.json)\n")
    say("Trust this directory and load them (remembered)? [y/N] ")
    sys.stderr.flush()
    answer = sys.stdin.readline()
    return answer.strip().lower() in ("y", "yes")


def report_trust(runtime: Any, *, remember_it: bool) -> None:
    """Remember a trust the user gave, or say in one line what an untrusted project
    would have loaded and how to trust it."""
    decision = runtime.settings.trust
    if decision.trusted:
        if remember_it:
            from omp.config.settings import user_setting

            current = user_setting(runtime.agent_dir, TRUSTED_DIRECTORIES) or []
            if not is_trusted(runtime.cwd, current):
                path = remember_trusted(runtime.agent_dir, runtime.cwd, current)
                print(f"omp: trusting {runtime.cwd} from now on (in {path})", file=sys.stderr)
        if TRUSTED_DIRECTORIES in decision.skipped_settings:
            print(
                f"omp: ignored {TRUSTED_DIRECTORIES} in the project settings: only your "
                "user settings decide which directories are trusted",
                file=sys.stderr,
            )
    elif decision.withheld:
        print(f"omp: {decision.describe_skipped()}", file=sys.stderr)
