"""One writer per session file: an advisory ``flock`` held while a process has the
session open for appending. The kernel drops it when the process ends, however it
ends, so a crash never leaves a stale lock behind. Two processes appending to one
file would fork its tree silently (each appends after its own last entry)."""

from __future__ import annotations

import os
from pathlib import Path

from omp.base.errors import OmpError


class SessionLockedError(OmpError):
    """Another process has the session open for writing."""

    def __init__(self, path: Path, pid: int | None) -> None:
        if pid == os.getpid():
            state = "is already open in this process; close it first"
        else:
            holder = f" (pid {pid})" if pid else ""
            state = f"is in use by another omp process{holder}; wait until it ends"
        super().__init__(
            f"session {path} {state}, or continue in a new session file with --fork {path}"
        )
        self.path = path
        self.pid = pid


def acquire(path: Path, *, create: bool = False) -> int:
    """A descriptor of ``path`` holding its exclusive lock (``create``: the file is
    created, 0600, if missing). Raises SessionLockedError when another process holds
    it. Where the system has no ``flock`` (or the file system refuses it), the
    descriptor is returned unlocked: one writer cannot be enforced there."""
    try:
        fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o600)
    except PermissionError:
        if create:
            raise
        fd = os.open(path, os.O_RDONLY)  # a read-only session can still be read
    try:
        import fcntl
    except ImportError:
        return fd
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise SessionLockedError(path, holder_pid(path)) from None
    except OSError:
        pass
    return fd


def release(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)


def holder_pid(path: Path) -> int | None:
    """The pid holding a ``flock`` on ``path``, from ``/proc/locks`` (Linux); None
    where that cannot be told."""
    try:
        st = os.stat(path)
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            table = f.read()
    except OSError:
        return None
    where = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in table.splitlines():
        # "1: FLOCK  ADVISORY  WRITE 4242 fe:00:9982279 0 EOF"; waiters have "->".
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == where:
            return int(fields[4]) if fields[4].isdigit() else None
    return None
