"""Rewriting a whole file so that, whatever kills the process (SIGKILL, the OOM killer,
a power cut), the file holds either its old bytes or its new ones, never a mix.

The bytes go to a temporary file in the same directory, which is synced, given the
old file's owner, extended attributes and mode, and renamed over it; then the directory
is synced. A rename cannot keep what ties a file to its inode: a file with other hard
links, or one whose owner the replacement could not be given back, is written in place
instead, after a copy of its old bytes is saved where a later omp start finds it
(``omp.config.recovery``) should the write be cut off.

This module is on the startup path: standard library only.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)

RECOVERY_DIRECTORY = "recovery"
"""Where, under the agent directory, recovery copies are kept (``omp.config.recovery``)."""

_XATTR_SKIPPED = {errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM, errno.EACCES, errno.ENODATA}
"""Attributes the replacement cannot carry (a file system without them, a namespace
such as ``security.*`` or ``trusted.*`` that needs privileges) are left behind."""


class NotRestored(OSError):
    """Writing in place failed and the original bytes could not be put back either."""


class Replacement:
    """The temporary file that takes the target's place when the block ends."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self.fd = fd

    def write(self, data: bytes) -> None:
        _write_all(self.fd, data)


def write_file(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    mode: int | None = None,
    durable: bool = True,
    on_temporary: Callable[[Path], None] | None = None,
    recovery_dir: Path | None = None,
) -> Path:
    """Replace the content of ``path`` (created if missing) by ``data``, atomically.

    A symlink is followed: its target is written and the link stays. ``mode`` gives
    the file exactly that mode (say 0o600 for a secret); None keeps an existing file's
    mode, and a new file gets 0o666 less the umask. ``durable`` False skips the fsyncs
    (a cache: a power cut may lose the write, a crash still cannot tear it).
    ``on_temporary`` is called with the temporary file's path once it holds ``data``,
    before it takes the target's place (not called when the file is written in place).
    Returns the path written (symlinks resolved). Raises OSError; NotRestored when an
    in-place write failed and the old bytes could not be put back (the recovery copy
    then stays, and the error names it).
    """
    target = Path(os.path.realpath(path))
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, "not a regular file", str(target))
    if st is not None and in_place_reason(st) is not None:
        _write_in_place_with_copy(target, data, recovery_dir)
        return target
    try:
        with replacing(target, mode=mode, durable=durable, _stat=st) as out:
            out.write(data)
            if on_temporary is not None:
                on_temporary(out.path)
    except _NoTemporary:
        # the directory refuses new files but the file itself may be writable
        _write_in_place_with_copy(target, data, recovery_dir)
        return target
    _remove_stale_temporaries(target)
    return target


def in_place_reason(st: os.stat_result) -> str | None:
    """Why a rename would lose something of the file ``st`` describes, or None."""
    if st.st_nlink > 1:
        return "it has other hard links"
    if not hasattr(os, "geteuid") or os.geteuid() == 0:  # no owners to lose, or root
        return None
    if st.st_uid != os.geteuid():
        return "it belongs to another user"
    if st.st_gid != os.getegid() and st.st_gid not in os.getgroups():
        return "its group is one this user is not in"
    return None


@contextlib.contextmanager
def replacing(
    path: str | os.PathLike[str],
    *,
    mode: int | None = None,
    durable: bool = True,
    _stat: os.stat_result | None = None,
) -> Iterator[Replacement]:
    """A temporary file next to ``path`` that replaces it when the block ends without
    an error (removed otherwise). Always a rename: for files omp owns (caches,
    artifacts); a user's file goes through ``write_file``. ``path`` is not resolved:
    a symlink at ``path`` is replaced by the file."""
    target = Path(path)
    st = _stat
    if st is None:
        with contextlib.suppress(FileNotFoundError):
            st = os.stat(target)
    temporary = target.with_name(
        f"{_temporary_prefix(target)}{os.getpid()}-{os.urandom(4).hex()}.tmp"
    )
    create_mode = 0o600 if st is not None else (mode if mode is not None else 0o666)
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC, create_mode)
    except PermissionError as exc:
        if st is not None:
            raise _NoTemporary(exc.errno, exc.strerror, str(target)) from exc
        raise
    try:
        try:
            yield Replacement(temporary, fd)
            if durable:
                os.fsync(fd)
            if st is not None:
                _copy_metadata(fd, target, st)
            if mode is not None:
                os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    if durable:
        _sync_directory(target.parent)


def _temporary_prefix(target: Path) -> str:
    return f".{target.name[:200]}.omp-"


_SWEPT: set[tuple[Path, str]] = set()
"""(directory, file name) already swept by this process: a killed writer's leftovers
are rare, and listing a large directory on every write is not."""


def _remove_stale_temporaries(target: Path) -> None:
    """Temporary files of ``target`` left by a writer that was killed (its pid is in
    the name and no longer runs), looked for once per file and process."""
    if (target.parent, target.name) in _SWEPT:
        return
    _SWEPT.add((target.parent, target.name))
    prefix = _temporary_prefix(target)
    try:
        names = [n for n in os.listdir(target.parent) if n.startswith(prefix)]
    except OSError:
        return
    for name in names:
        pid = name[len(prefix) :].partition("-")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid)):
            with contextlib.suppress(OSError):
                os.unlink(target.parent / name)


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (a zombie counts until it is reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


class _NoTemporary(PermissionError):
    """The directory does not let a temporary file be made there."""


def _copy_metadata(fd: int, target: Path, st: os.stat_result) -> None:
    """Owner first (a chown clears set-id bits), then attributes (an ACL is one and sets
    mode bits), then the mode."""
    own = os.fstat(fd)
    if (own.st_uid, own.st_gid) != (st.st_uid, st.st_gid):
        with contextlib.suppress(PermissionError):
            os.fchown(fd, st.st_uid, st.st_gid)
    if hasattr(os, "listxattr"):
        try:
            names = os.listxattr(target)
        except OSError as exc:
            if exc.errno not in _XATTR_SKIPPED:
                raise
            names = []
        for name in names:
            try:
                os.setxattr(fd, name, os.getxattr(target, name))
            except OSError as exc:
                if exc.errno not in _XATTR_SKIPPED:
                    raise
    os.fchmod(fd, stat.S_IMODE(st.st_mode))


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable; some file systems cannot sync a directory."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_in_place_with_copy(target: Path, data: bytes, recovery_dir: Path | None) -> None:
    """Write in place, with a recovery copy of the old bytes kept until the new ones are
    read back."""
    from omp.config import recovery

    fd = os.open(target, os.O_RDWR | _CLOEXEC)
    try:
        original = _read(fd, os.fstat(fd).st_size)
        try:
            saved = recovery.save(target, original, data, recovery_dir)
        except OSError as exc:
            raise OSError(
                exc.errno or errno.EIO,
                f"cannot save a recovery copy before writing in place "
                f"({exc.strerror or exc}); nothing was written",
            ) from exc
        try:
            _rewrite(fd, data, original)
        except NotRestored as exc:
            raise NotRestored(
                exc.errno,
                f"{exc.strerror}; the old content is saved: `omp recover restore "
                f"{saved.id}` puts it back",
            ) from exc
        except BaseException:
            if _holds(fd, original):  # put back: the copy is no longer needed
                saved.drop()
            raise
        saved.drop()
    finally:
        os.close(fd)


def _holds(fd: int, data: bytes) -> bool:
    try:
        return os.fstat(fd).st_size == len(data) and _read(fd, len(data)) == data
    except OSError:
        return False


def write_in_place(target: str | os.PathLike[str], data: bytes) -> None:
    """Put ``data`` into the existing file ``target``, keeping its inode, and check it by
    reading back. On any failure the original bytes are written back before the error
    is raised; NotRestored when even that failed. No recovery copy: a process killed
    meanwhile leaves a mix (``write_file`` saves one)."""
    fd = os.open(target, os.O_RDWR | _CLOEXEC)
    try:
        _rewrite(fd, data, _read(fd, os.fstat(fd).st_size))
    finally:
        os.close(fd)


def _rewrite(fd: int, data: bytes, original: bytes) -> None:
    try:
        _put(fd, data, len(original))
    except BaseException as exc:
        if not _put_back(fd, original) and isinstance(exc, Exception):
            why = _reason(exc) if isinstance(exc, OSError) else str(exc) or type(exc).__name__
            raise NotRestored(
                errno.EIO, f"{why}, and the original content could not be put back"
            ) from exc
        raise


def _put(fd: int, data: bytes, old_size: int) -> None:
    """Reserve room, overwrite from the start, read back, and only then cut what is
    left of longer old content: until that last step the old bytes' blocks are all
    still there, so putting them back needs no new space."""
    if len(data) > old_size and hasattr(os, "posix_fallocate"):
        try:
            os.posix_fallocate(fd, old_size, len(data) - old_size)
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
                raise
    os.lseek(fd, 0, os.SEEK_SET)
    _write_all(fd, data)
    if _read(fd, len(data)) != data:
        raise OSError(errno.EIO, "the bytes read back differ from those written")
    os.ftruncate(fd, len(data))
    os.fsync(fd)
    if os.fstat(fd).st_size != len(data):
        raise OSError(errno.EIO, "the file has a different size than was written")


def _put_back(fd: int, original: bytes) -> bool:
    try:
        _put(fd, original, len(original))
    except OSError:
        return False
    return True


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read(fd: int, size: int) -> bytes:
    """The first ``size`` bytes (fewer if the file is shorter)."""
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while size > 0 and (chunk := os.read(fd, min(size, 1 << 20))):
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _reason(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()
