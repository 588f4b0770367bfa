"""Path arguments checked before anything loads or is sent: a bad one is one line and a
non-zero exit, never a discovery after the model has answered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omp.base.errors import UsageError


def check_extension_path(raw: str) -> Path:
    """An ``-e`` path: a ``.py`` file, or a package directory (with ``__init__.py``)."""
    path = Path(raw).expanduser()
    if not path.exists():
        raise UsageError(f"-e {raw}: no such file or directory")
    if path.is_dir() and not (path / "__init__.py").is_file():
        raise UsageError(
            f"-e {raw} is a directory without __init__.py; give a .py file or a package "
            "directory (put loose extension files in .omp/extensions/)"
        )
    if path.is_file() and path.suffix != ".py":
        raise UsageError(f"-e {raw} is not a Python file (.py)")
    return path


def check_session_paths(runtime: Any, options: Any) -> None:
    """``--session`` and the session directory (flag, setting or environment) must be
    usable before the first request, so an answer is never lost to a bad path."""
    if options.no_session:
        return
    if options.session_path:
        _check_session_file(runtime.cwd, options.session_path)
        return
    raw = options.session_dir or runtime.settings.get("sessionDir")
    if raw:
        where = "--session-dir" if options.session_dir else "the sessionDir setting"
        path = _under(runtime.cwd, raw)
        if path.exists() and not path.is_dir():
            raise UsageError(f"{where} {raw} is a file, not a directory")
        _check_creatable(path, f"{where} {raw}")


def _check_session_file(cwd: Path, raw: str) -> None:
    """``--session PATH``: an existing regular file (a named pipe or a device would hang
    or mislead the reader), or a new file in a directory that exists: a mistyped
    directory is not created."""
    from omp.runtime.bootstrap import is_session_path

    path = _under(cwd, raw)
    if path.is_dir():
        raise UsageError(f"--session {raw} is a directory, not a file")
    if path.exists():
        if not path.is_file():
            raise UsageError(f"--session {raw} is not a regular file")
        return
    _check_creatable(path.parent, f"--session {raw}")
    if is_session_path(raw) and not path.parent.is_dir():
        raise UsageError(
            f"--session {raw}: no directory {path.parent}; omp creates the session file, "
            "not its directories"
        )


def _under(cwd: Path, raw: str) -> Path:
    path = Path(raw).expanduser()
    return path if path.is_absolute() else Path(cwd) / path


def _check_creatable(directory: Path, what: str) -> None:
    """Every existing ancestor of ``directory`` is a directory (so it can be created)."""
    for candidate in (directory, *directory.parents):
        if candidate.exists():
            if not candidate.is_dir():
                raise UsageError(f"{what}: {candidate} is a file, not a directory")
            return
