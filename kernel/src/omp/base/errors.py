"""Errors the user sees as one clear line (the CLI prints them without a traceback)."""

from __future__ import annotations


class OmpError(Exception):
    """A problem the user can act on; ``str(err)`` is the whole message."""

    exit_code = 1


class UsageError(OmpError):
    """Bad command-line input."""

    exit_code = 2


class RuntimeNotReadyError(OmpError):
    """A runtime action was called while plugins were still loading."""
