"""Per-session stores tools share through ``ctx``: artifacts (large outputs spilled to
files, read back as ``artifact://ID``) and the ledger of files the model has read."""

from __future__ import annotations

import hashlib
import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omp.base.errors import OmpError

SCHEME = "artifact://"


class ArtifactStore:
    """Files in the session's folder (``<session>.jsonl`` -> ``<session>/artifacts/``);
    a session kept in memory uses a temporary folder."""

    def __init__(self, directory: Path | None) -> None:
        self._directory = directory
        self._temporary = directory is None

    def cleanup(self) -> None:
        """Remove a temporary folder (in-memory sessions keep nothing after they end)."""
        if self._temporary and self._directory is not None:
            import shutil

            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None

    @property
    def directory(self) -> Path:
        if self._directory is None:
            self._directory = Path(tempfile.mkdtemp(prefix="omp-artifacts-"))
        self._directory.mkdir(parents=True, exist_ok=True)
        return self._directory

    def save(self, data: str | bytes, suffix: str = ".txt") -> str:
        """Store ``data``; returns its id (the text after ``artifact://``)."""
        artifact_id = secrets.token_hex(4) + suffix
        payload = data.encode("utf-8", "replace") if isinstance(data, str) else data
        path = self.directory / artifact_id
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        return artifact_id

    def path(self, reference: str) -> Path:
        """The file of ``artifact://ID`` (or a bare ID); OmpError if there is none."""
        artifact_id = reference.removeprefix(SCHEME).strip("/")
        if not artifact_id or "/" in artifact_id or artifact_id.startswith("."):
            raise OmpError(f"not an artifact reference: {reference}")
        path = (self._directory or Path("/nonexistent")) / artifact_id
        if not path.is_file():
            raise OmpError(f"no artifact {artifact_id} in this session")
        return path


def _recent(mtime_ns: int) -> bool:
    """Within two seconds of now: a same-second rewrite can keep the same mtime."""
    import time

    return abs(time.time_ns() - mtime_ns) < 2_000_000_000


def _hash_file(path: Path) -> Any:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest


@dataclass(frozen=True)
class FileRead:
    path: str
    mtime_ns: int
    sha256: str
    size: int = -1


class FileLedger:
    """What the model last read of each file, so an edit can tell it the file changed."""

    def __init__(self) -> None:
        self._reads: dict[str, FileRead] = {}

    def record(self, path: Path, data: bytes | None = None) -> FileRead:
        """Remember a read of ``path``: its bytes as read, or (None) the file now,
        hashed in chunks so a large file is never held in memory for this."""
        resolved = path.resolve()
        digest = hashlib.sha256(data) if data is not None else _hash_file(resolved)
        info = resolved.stat()
        entry = FileRead(str(resolved), info.st_mtime_ns, digest.hexdigest(), info.st_size)
        self._reads[entry.path] = entry
        return entry

    def last_read(self, path: Path) -> FileRead | None:
        return self._reads.get(str(path.resolve()))

    def changed_since_read(self, path: Path) -> bool | None:
        """None if never read; else whether the file's content differs from that read."""
        entry = self.last_read(path)
        if entry is None:
            return None
        resolved = path.resolve()
        try:
            info = resolved.stat()
            if info.st_size != entry.size:
                return True
            if info.st_mtime_ns == entry.mtime_ns and not _recent(info.st_mtime_ns):
                return False
            return _hash_file(resolved).hexdigest() != entry.sha256
        except OSError:
            return True
