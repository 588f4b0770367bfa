"""Recovery copies: the old bytes of a file about to be written in place.

``omp.config.atomic_write`` writes a hard-linked or foreign-owned file in place, which a killed
process can leave half written. Before it starts it saves the old bytes here
(``<agent dir>/recovery/<id>.bak``, 0600) with a record of the target
(``<id>.json``: path, size and sha256 of the old and of the new bytes, time, pid), and
drops both once the new bytes are read back. A copy still here after its writer ended
means the write was cut off: if the target now holds neither the old nor the new
bytes, the next omp start says so in one line and ``omp recover`` restores or discards
it; a copy whose target holds either is stale and removed without a word.

This module is on the startup path: standard library only, hashlib imported when a
copy is made or judged.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from omp.config.atomic_write import RECOVERY_DIRECTORY, pid_alive, replacing, write_file

INTERRUPTED = "interrupted"
"""The target holds neither the old nor the new bytes: restore the copy."""
UNTOUCHED = "old content"
WRITTEN = "new content"
MISSING = "target missing"
WRITING = "being written"
"""Its writer (another omp process) is still running."""


@dataclass
class RecoveryCopy:
    """One saved copy and what was known when it was made."""

    id: str
    folder: Path
    target: str
    size: int
    sha256: str
    new_size: int
    new_sha256: str
    saved: float
    pid: int

    @property
    def copy_path(self) -> Path:
        return self.folder / f"{self.id}.bak"

    @property
    def record_path(self) -> Path:
        return self.folder / f"{self.id}.json"

    def drop(self) -> None:
        """Remove the copy and its record (the write it guarded is over)."""
        for path in (self.record_path, self.copy_path):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    def state(self) -> str:
        """What the target holds now, compared with the old and the new bytes."""
        if self.pid != os.getpid() and pid_alive(self.pid):
            return WRITING
        try:
            size = os.stat(self.target).st_size
        except FileNotFoundError:
            return MISSING
        if size not in (self.size, self.new_size):
            return INTERRUPTED
        digest = _sha256_of(self.target)
        if digest == self.sha256:
            return UNTOUCHED
        if digest == self.new_sha256:
            return WRITTEN
        return INTERRUPTED

    def restore(self) -> Path:
        """Put the saved bytes back into the target; then the copy is dropped."""
        import hashlib

        data = self.copy_path.read_bytes()
        if len(data) != self.size or hashlib.sha256(data).hexdigest() != self.sha256:
            raise OSError(f"the recovery copy {self.copy_path} is damaged; it was kept")
        written = write_file(self.target, data, recovery_dir=self.folder)
        self.drop()
        return written


def folder_of(agent_directory: Path | None = None) -> Path:
    if agent_directory is None:
        from omp.config.settings import agent_dir

        agent_directory = agent_dir()
    return Path(agent_directory) / RECOVERY_DIRECTORY


def save(target: Path, original: bytes, new: bytes, folder: Path | None = None) -> RecoveryCopy:
    """Save ``original`` (the bytes ``target`` holds now, about to become ``new``)."""
    import hashlib

    folder = folder if folder is not None else folder_of()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    now = time.time()
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
    saved = RecoveryCopy(
        id=f"{stamp}-{os.urandom(3).hex()}",
        folder=folder,
        target=str(target),
        size=len(original),
        sha256=hashlib.sha256(original).hexdigest(),
        new_size=len(new),
        new_sha256=hashlib.sha256(new).hexdigest(),
        saved=now,
        pid=os.getpid(),
    )
    with replacing(saved.copy_path, mode=0o600) as out:
        out.write(original)
    record = {k: v for k, v in vars(saved).items() if k not in ("id", "folder")}
    try:
        with replacing(saved.record_path, mode=0o600) as out:
            out.write(json.dumps(record, indent=2).encode("utf-8"))
    except BaseException:
        saved.drop()
        raise
    return saved


def leftovers(folder: Path) -> list[RecoveryCopy]:
    """The copies in ``folder``, oldest first; a copy without its record (cut off while
    it was being saved: the target was not touched yet) is removed."""
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    found: list[RecoveryCopy] = []
    for name in sorted(names):
        stem, dot, suffix = name.rpartition(".")
        if not dot:
            continue
        if suffix == "bak" and f"{stem}.json" not in names:
            with contextlib.suppress(OSError):
                (folder / name).unlink()
        elif suffix == "json":
            loaded = _load(folder, stem)
            if loaded is not None:
                found.append(loaded)
    return found


def interrupted(folder: Path) -> list[tuple[RecoveryCopy, str]]:
    """The copies that wait for the user, with their state: stale ones (their target
    holds the old or the new bytes) are removed on the way."""
    waiting = []
    for found in leftovers(folder):
        state = found.state()
        if state in (UNTOUCHED, WRITTEN):
            found.drop()
        elif state != WRITING:
            waiting.append((found, state))
    return waiting


def startup_notice(agent_directory: Path) -> str | None:
    """One line for stderr when a write was cut off; None (one listdir) otherwise."""
    folder = folder_of(agent_directory)
    if not os.path.isdir(folder):
        return None
    waiting = interrupted(folder)
    if not waiting:
        return None
    if len(waiting) == 1:
        found = waiting[0][0]
        return (
            f"omp: a write to {found.target} was cut off; its old content is saved: "
            f"`omp recover restore {found.id}` puts it back, `omp recover` lists it"
        )
    targets = ", ".join(found.target for found, _ in waiting)
    return (
        f"omp: {len(waiting)} writes were cut off ({targets}); "
        f"their old content is saved: `omp recover` lists them"
    )


def find(folder: Path, prefix: str) -> RecoveryCopy:
    """The copy whose id starts with ``prefix``; LookupError naming the problem."""
    matches = [c for c in leftovers(folder) if c.id.startswith(prefix)] if prefix else []
    if len(matches) != 1:
        what = "no recovery copy" if not matches else f"{len(matches)} recovery copies"
        raise LookupError(f"{what} with the id {prefix!r}; `omp recover` lists them")
    return matches[0]


def _load(folder: Path, stem: str) -> RecoveryCopy | None:
    try:
        data = json.loads((folder / f"{stem}.json").read_text(encoding="utf-8"))
        return RecoveryCopy(
            id=stem,
            folder=folder,
            target=str(data["target"]),
            size=int(data["size"]),
            sha256=str(data["sha256"]),
            new_size=int(data["new_size"]),
            new_sha256=str(data["new_sha256"]),
            saved=float(data["saved"]),
            pid=int(data["pid"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _sha256_of(path: str) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
