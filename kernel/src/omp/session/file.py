"""Append-only JSONL session files (omp's format, version 3) and the context they rebuild.

Line 1 is the header, every later line one entry of a tree linked by ``parentId``.
The file is only ever appended to: a line that cannot be read is skipped and kept,
and a torn last line (a killed write) is moved aside before the next append.
"""

from __future__ import annotations

import copy
import gc
import json
import os
import stat
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import from_json

from omp.agent.messages import (
    AssistantMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ToolResultMessage,
    parse_message,
    to_wire,
)
from omp.base.errors import OmpError, UsageError
from omp.base.frozen import freeze
from omp.config.atomic_write import write_file
from omp.config.secrets import Secrets
from omp.session import lock as session_lock

CURRENT_VERSION = 3
_LARGE = 4 << 20
"""Bytes from which a loaded session is frozen out of the garbage collector's way."""
_CONTEXT_TYPES = ("message", "custom_message", "branch_summary")


class _Leaf(Enum):
    CURRENT = "current"


@dataclass
class SessionContext:
    messages: list[Any] = field(default_factory=list)
    model: str | None = None
    thinking_level: str | None = None


@dataclass
class _TornTail:
    offset: int
    data: bytes
    target: Path
    line: int


def iso_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _iso_to_ms(value: Any) -> int:
    try:
        return int(datetime.fromisoformat(value).timestamp() * 1000)
    except (TypeError, ValueError):
        return 0


def _encode(entry: dict[str, Any]) -> bytes:
    try:
        text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates cannot be UTF-8; JSON escapes keep the line valid.
        return (json.dumps(entry, separators=(",", ":")) + "\n").encode("ascii")


def _loads(raw: bytes) -> dict[str, Any] | None:
    # pydantic's parser is faster than json's and shares short strings between lines
    # (keys, roles, types: a long session holds hundreds of thousands); json.loads
    # still reads what it refuses, such as a lone surrogate escaped by _encode.
    try:
        value = from_json(raw, cache_strings=True)
    except ValueError:
        try:
            value = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return None
    return value if isinstance(value, dict) else None


def _reason(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()


def _open_failure(exc: OSError) -> str:
    if isinstance(exc, IsADirectoryError):
        return "it is a directory"
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    return _reason(exc)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


@contextmanager
def _gc_paused(long_lived: bool = False) -> Iterator[None]:
    """Loading a long session makes hundreds of thousands of acyclic objects, and the
    cyclic collector would walk them over and over: while loading, and then in every
    full collection for as long as the session is open (seconds, on a 50 MB session).
    It is paused meanwhile; with ``long_lived`` (a large file) what was loaded is then
    moved out of its way for good (``gc.freeze``), after a collection first so that no
    garbage is frozen with it. Freed objects are still freed: only cycles need the
    collector, and session data has none."""
    enabled = gc.isenabled()
    if long_lived:
        gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if long_lived:
            gc.freeze()
        if enabled:
            gc.enable()


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as f:
        if f.seek(0, os.SEEK_END) == 0:
            return True
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"


def _wire_block(block: Any) -> Any:
    return to_wire(block) if isinstance(block, BaseModel) else block


def context_message(entry: dict[str, Any]) -> Any:
    """The message a session entry adds to the model's context (a ``message``,
    ``custom_message`` or ``branch_summary`` entry), or None: another kind of entry, or a
    malformed one."""
    if entry.get("type") not in _CONTEXT_TYPES:
        return None
    try:
        return _entry_message(entry)
    except ValueError:
        return None


def _entry_message(entry: dict[str, Any]) -> Any:
    """The message an entry contributes to the context; raises ValidationError if malformed."""
    kind = entry.get("type")
    if kind == "message":
        data = entry.get("message")
        if isinstance(data, dict) and data.get("role") == "hookMessage":
            data = {**data, "role": "custom"}
        return parse_message(data)
    ms = _iso_to_ms(entry.get("timestamp"))
    if kind == "custom_message":
        return CustomMessage(
            custom_type=entry.get("customType"),
            content=entry.get("content"),
            display=entry.get("display", True),
            details=entry.get("details"),
            timestamp=ms,
        )
    return BranchSummaryMessage(
        summary=entry.get("summary"), from_id=entry.get("fromId"), timestamp=ms
    )


def _model_key(entry: dict[str, Any]) -> str | None:
    """A model_change entry's ``provider/id``: omp writes ``model``, pi ``provider`` and
    ``modelId``."""
    if entry.get("model"):
        return str(entry["model"])
    provider, model_id = entry.get("provider"), entry.get("modelId")
    return f"{provider}/{model_id}" if provider and model_id else None


def _refuse_special_file(path: Path) -> None:
    """A named pipe would block its reader for ever, and a device is no session: whoever
    named it made a usage error."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # opening it says what is wrong
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):  # open says "is a directory"
        raise UsageError(f"cannot open session {path}: not a regular file")


def _version(header: dict[str, Any]) -> int:
    version = header.get("version", 1)
    return version if isinstance(version, int) else 1


class _LinearIds:
    """pi's version 1 to 2 migration: entries of a linear file get ids, each the parent
    of the next, and a compaction's ``firstKeptEntryIndex`` becomes ``firstKeptEntryId``."""

    def __init__(self) -> None:
        self.ids: list[str] = []

    def migrate(self, entry: dict[str, Any]) -> dict[str, Any]:
        if isinstance(entry.get("id"), str):
            self.ids.append(entry["id"])
            return entry
        entry_id = uuid.uuid4().hex[-8:]
        while entry_id in self.ids:
            entry_id = uuid.uuid4().hex[-8:]
        migrated = {**entry, "id": entry_id, "parentId": self.ids[-1] if self.ids else None}
        message = migrated.get("message")
        if isinstance(message, dict) and message.get("role") == "hookMessage":
            migrated["message"] = {**message, "role": "custom"}  # version 2 to 3
        index = migrated.pop("firstKeptEntryIndex", None)
        if isinstance(index, int) and 0 <= index < len(self.ids):
            migrated["firstKeptEntryId"] = self.ids[index]
        self.ids.append(entry_id)
        return migrated


def _drop_stray_tool_results(messages: list[Any]) -> list[Any]:
    """Remove results without an earlier call, and second results of a call. A call
    without a result (the process was killed while the tool ran) stays: the provider
    boundary answers it (``omp.agent.messages.answer_open_calls``), so the model learns what
    it ran instead of the call vanishing."""
    called: set[str] = set()
    answered: set[str] = set()
    kept: list[Any] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            called.update(call.id for call in message.tool_calls)
        elif isinstance(message, ToolResultMessage):
            if message.tool_call_id not in called or message.tool_call_id in answered:
                continue
            answered.add(message.tool_call_id)
        kept.append(message)
    return kept


class SessionFile:
    """One session: its header, its entries in file order and the current leaf."""

    def __init__(self, path: Path | None, header: dict[str, Any], *, persisted: bool) -> None:
        self.path = path
        self.header = header
        self.entries: list[dict[str, Any]] = []
        self.leaf_id: str | None = None
        self.load_warnings: list[str] = []
        self._by_id: dict[str, dict[str, Any]] = {}
        self._unreadable: set[str] = set()
        self._persisted = persisted
        self._torn: _TornTail | None = None
        self._check_tail = False
        self._parsed: dict[str, Any] = {}
        """Messages validated while loading, handed to the first build_context."""
        self._lock_fd: int | None = None
        self._size = 0
        """The file's length as this process knows it (read, then appended)."""
        self._migrated = False
        """Read from a version 1 file: rewritten as version 3 before the first append."""
        self.secrets: Secrets | None = None
        """Credential values replaced in every entry appended (omp.config.secrets)."""

    @classmethod
    def create(
        cls,
        cwd: str,
        path: Path | None,
        parent_session: str | None = None,
        *,
        session_id: str | None = None,
        parent_session_id: str | None = None,
        task_depth: int = 0,
    ) -> SessionFile:
        """A new session; ``path=None`` keeps it in memory for good. A child session
        (a subagent's) names its parent's id and its depth below the top session."""
        header: dict[str, Any] = {
            "type": "session",
            "version": CURRENT_VERSION,
            "id": session_id or str(uuid.uuid4()),
            "timestamp": iso_now(),
            "cwd": cwd,
        }
        if parent_session:
            header["parentSession"] = parent_session
        if parent_session_id:
            header["parentSessionId"] = parent_session_id
        if task_depth:
            header["taskDepth"] = task_depth
        return cls(Path(path) if path is not None else None, header, persisted=False)

    @classmethod
    def open(cls, path: Path, *, lock: bool = True) -> SessionFile:
        """Load a session file. With ``lock`` this process becomes the file's one writer
        until ``close()``, and another process holding it raises SessionLockedError;
        without, it is a snapshot, locked at its first write (refused if the file grew
        since). A file of a newer format version than this omp writes is read, never
        written: opening it with ``lock`` raises."""
        path = Path(path)
        _refuse_special_file(path)
        lock_fd = None
        try:
            if lock:
                lock_fd = session_lock.acquire(path)
            with open(path, "rb") as f, _gc_paused(os.fstat(f.fileno()).st_size > _LARGE):
                session = cls._read(path, f)
        except OSError as exc:
            session_lock.release(lock_fd)
            raise OmpError(f"cannot open session {path}: {_open_failure(exc)}") from None
        except BaseException:
            session_lock.release(lock_fd)
            raise
        session._lock_fd = lock_fd
        if lock and session.newer_version:
            session.close()
            raise OmpError(session._unwritable())
        return session

    @classmethod
    def _read(cls, path: Path, f: Any) -> SessionFile:
        """Parse the file line by line (a long session is never held twice in memory)."""
        state: dict[str, Any] = {"size": 0, "torn": None, "check_tail": False}

        def records() -> Iterator[tuple[int, dict[str, Any] | None]]:
            for lineno, raw in enumerate(f, 1):
                offset = state["size"]
                state["size"] += len(raw)
                if raw.endswith(b"\n"):
                    if not raw.isspace():
                        yield lineno, _loads(raw)
                    continue
                # The last line, without its newline: complete, blank, or torn mid-write.
                if raw.isspace():
                    state["check_tail"] = True
                elif (entry := _loads(raw)) is None:
                    target = Path(f"{path}.torn-{int(time.time())}")
                    state["torn"] = _TornTail(offset, raw, target, lineno)
                else:
                    state["check_tail"] = True
                    yield lineno, entry

        lines = records()
        first = next(lines, None)
        if first is not None and first[1] is not None and first[1].get("type") == "title":
            second = next(lines, None)
            if second is not None:
                title, first = first[1], second
                if first[1] is not None and "title" in title:
                    first[1].setdefault("title", title["title"])
        if first is None:
            reason = "line 1 is not a session header" if state["torn"] else "the file is empty"
            raise OmpError(f"cannot open session {path}: {reason}")
        lineno, header = first
        if header is None or header.get("type") != "session" or not header.get("id"):
            raise OmpError(f"cannot open session {path}: line {lineno} is not a session header")
        session = cls(path, header, persisted=True)
        linear = _LinearIds() if _version(header) < 2 else None
        for lineno, entry in lines:
            if entry is None:
                session.load_warnings.append(f"{path}:{lineno}: skipped an unreadable line")
            else:
                if linear is not None:
                    entry = linear.migrate(entry)
                session._load_entry(entry, f"{path}:{lineno}")
        session._migrated = linear is not None
        torn: _TornTail | None = state["torn"]
        if torn is not None:
            session.load_warnings.append(
                f"{path}:{torn.line}: ignored a torn last line ({len(torn.data)} bytes) "
                f"left by an interrupted write; it will be moved to {torn.target.name} "
                "before the next write"
            )
        session._torn, session._check_tail = torn, state["check_tail"]
        session._size = state["size"]
        return session

    def fork(self, cwd: str, path: Path, *, session_id: str | None = None) -> SessionFile:
        """A new session (not yet on disk) holding every entry of this one, its header
        pointing back here (omp's ``--fork``); the entries are shared, being read-only."""
        forked = SessionFile.create(
            cwd, path, str(self.path) if self.path else None, session_id=session_id
        )
        forked.entries = list(self.entries)
        forked._by_id = dict(self._by_id)
        forked._unreadable = set(self._unreadable)
        forked._parsed, self._parsed = self._parsed, {}
        forked.leaf_id = self.leaf_id
        # The torn tail (always the last warning) stays behind, in this file.
        forked.load_warnings = self.load_warnings[:-1] if self._torn else list(self.load_warnings)
        return forked

    def _load_entry(self, entry: dict[str, Any], where: str) -> None:
        """Keep a parsed line, frozen, and validate its message. The message is validated
        from the plain dicts the parser made, before freezing: pydantic reads a dict
        subclass half as fast."""
        message = None
        if entry.get("type") in _CONTEXT_TYPES:
            try:
                message = _entry_message(entry)
            except ValidationError as exc:
                first = exc.errors()[0]
                loc = ".".join(str(part) for part in first["loc"]) or "message"
                self.load_warnings.append(
                    f"{where}: skipped an unreadable message ({loc}: {first['msg']})"
                )
                if isinstance(entry.get("id"), str):
                    self._unreadable.add(entry["id"])
        entry = freeze(entry)
        self._add(entry)
        if message is not None and isinstance(entry.get("id"), str):
            self._parsed.setdefault(entry["id"], message)

    def _add(self, entry: dict[str, Any]) -> None:
        self.entries.append(entry)
        entry_id = entry.get("id")
        if isinstance(entry_id, str):
            self._by_id.setdefault(entry_id, entry)
            self.leaf_id = entry_id

    @property
    def session_id(self) -> str:
        return str(self.header["id"])

    @property
    def cwd(self) -> str:
        return str(self.header.get("cwd", ""))

    @property
    def is_persisted(self) -> bool:
        return self._persisted

    # -- writing -------------------------------------------------------------------

    def ensure_on_disk(self) -> None:
        """Write the header and every entry so far (the file is created 0600 and this
        process becomes its one writer); later appends go straight to disk."""
        if self._persisted or self.path is None:
            return
        data = b"".join(_encode(entry) for entry in [self.header, *self.entries])
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = session_lock.acquire(self.path, create=True)
            try:
                if os.fstat(fd).st_size:
                    raise OmpError(f"cannot create session {self.path}: the file already exists")
                try:
                    _write_all(fd, data)
                except OSError:
                    os.ftruncate(fd, 0)
                    raise
            except BaseException:
                os.close(fd)
                raise
        except OSError as exc:
            raise OmpError(f"cannot write session {self.path}: {_reason(exc)}") from None
        self.close()
        self._lock_fd, self._size = fd, len(data)
        self._persisted = True

    def close(self) -> None:
        """Stop being the file's writer. A later write takes the lock again, and is
        refused if another process wrote to the file meanwhile."""
        fd, self._lock_fd = self._lock_fd, None
        session_lock.release(fd)

    def __del__(self) -> None:
        try:
            self.close()
        except (AttributeError, OSError):
            pass

    @property
    def newer_version(self) -> int | None:
        """The header's format version when it is newer than this omp writes (such a
        file is read as far as it can be, never written)."""
        version = _version(self.header)
        return version if self._persisted and version > CURRENT_VERSION else None

    def _unwritable(self) -> str:
        return (
            f"cannot write session {self.path}: its format is version {self.newer_version}, "
            f"newer than this omp writes ({CURRENT_VERSION}); it can be read (omp --export) "
            "but not continued here"
        )

    def _hold_lock(self) -> None:
        """Become the file's writer before appending, if this process is not yet."""
        if self.newer_version:
            raise OmpError(self._unwritable())
        if self._lock_fd is not None:
            return
        assert self.path is not None
        fd = session_lock.acquire(self.path)
        if os.fstat(fd).st_size != self._size:
            os.close(fd)
            raise OmpError(
                f"cannot write session {self.path}: another process wrote to it since it "
                f"was loaded (appending now would fork it); open it again, or --fork it"
            )
        self._lock_fd = fd

    def _append_line(self, line: bytes) -> None:
        assert self.path is not None
        try:
            self._hold_lock()
            if self._torn is not None:
                self._repair_torn_tail(self._torn)
                self._size, self._torn = self._torn.offset, None
            if self._check_tail and not _ends_with_newline(self.path):
                line = b"\n" + line
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            try:
                _write_all(fd, line)
            finally:
                os.close(fd)
            self._size += len(line)
            self._check_tail = False
        except OSError as exc:
            self._check_tail = True
            raise OmpError(f"cannot write session {self.path}: {_reason(exc)}") from None

    def _rewrite_migrated(self) -> None:
        """Replace a version 1 file by its version 3 form (omp and pi do the same), so
        that appended entries link into a tree every reader agrees on, atomically
        (``omp.config.atomic_write``). The new file is locked before it takes the old one's
        place."""
        assert self.path is not None
        self._hold_lock()
        header = {**self.header, "version": CURRENT_VERSION}
        data = b"".join(_encode(dict(entry)) for entry in [header, *self.entries])
        new_lock: list[int] = []
        try:
            write_file(
                self.path, data, on_temporary=lambda t: new_lock.append(session_lock.acquire(t))
            )
        except BaseException as exc:
            for fd in new_lock:
                session_lock.release(fd)
            if isinstance(exc, OSError):
                raise OmpError(f"cannot write session {self.path}: {_reason(exc)}") from None
            raise
        if new_lock:  # replaced; written in place (a hard-linked file), the old lock holds
            self.close()
            self._lock_fd = new_lock[0]
        self._size, self._torn, self._check_tail = len(data), None, False
        self.header, self._migrated = header, False

    def _repair_torn_tail(self, torn: _TornTail) -> None:
        """Move the torn bytes to a sibling file with the session's own mode (they may
        hold as much as any line), then cut the session back to its last line."""
        assert self.path is not None
        with open(self.path, "r+b") as f:
            f.seek(torn.offset)
            if f.read() != torn.data:
                raise OmpError(
                    f"cannot write session {self.path}: its last line changed since it was loaded"
                )
            target, n = torn.target, 0
            while target.exists():
                n += 1
                target = torn.target.with_name(f"{torn.target.name}.{n}")
            mode = os.fstat(f.fileno()).st_mode & 0o777
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            try:
                os.fchmod(fd, mode)  # the umask may have taken bits away
                _write_all(fd, torn.data)
                os.fsync(fd)
            finally:
                os.close(fd)
            f.truncate(torn.offset)

    def _append(self, kind: str, fields: dict[str, Any]) -> dict[str, Any]:
        entry_id = uuid.uuid4().hex[-8:]
        while entry_id in self._by_id:
            entry_id = uuid.uuid4().hex[-8:]
        entry = {
            "type": kind,
            "id": entry_id,
            "parentId": self.leaf_id,
            "timestamp": iso_now(),
            **fields,
        }
        try:
            line = _encode(entry)
        except (TypeError, ValueError) as exc:
            raise OmpError(f"cannot save a {kind} entry: {exc}") from None
        if self.secrets:
            redacted = self.secrets.redact_bytes(line)
            if redacted is not line:  # the entry kept in memory is what the file holds
                line, entry = redacted, json.loads(redacted)
        entry = freeze(entry)
        if self._persisted:
            if self._migrated:
                self._rewrite_migrated()
            self._append_line(line)
            self._add(entry)
        else:
            self._add(entry)
            if kind == "message":
                # The file appears with the first message, the user's prompt, before
                # the request is sent: an interrupted first reply cannot lose it.
                self.ensure_on_disk()
        return entry

    def append_message(self, message: BaseModel) -> dict[str, Any]:
        return self._append("message", {"message": to_wire(message)})

    def append_custom(self, custom_type: str, data: Any = None) -> dict[str, Any]:
        fields: dict[str, Any] = {"customType": custom_type}
        if data is not None:
            fields["data"] = data
        return self._append("custom", fields)

    def append_custom_message(
        self, custom_type: str, content: Any, display: bool = True, details: Any = None
    ) -> dict[str, Any]:
        if not isinstance(content, str):
            content = [_wire_block(block) for block in content]
        fields: dict[str, Any] = {"customType": custom_type, "content": content, "display": display}
        if details is not None:
            fields["details"] = details
        return self._append("custom_message", fields)

    def append_model_change(self, model_key: str) -> dict[str, Any]:
        return self._append("model_change", {"model": model_key})

    def append_thinking_level_change(self, level: str) -> dict[str, Any]:
        return self._append("thinking_level_change", {"thinkingLevel": level})

    def append_label(self, target_id: str, label: str | None) -> dict[str, Any]:
        """Label an entry; ``label=None`` clears its label."""
        if target_id not in self._by_id:
            raise OmpError(f"cannot label entry {target_id}: no such entry in this session")
        fields: dict[str, Any] = {"targetId": target_id}
        if label is not None:
            fields["label"] = label
        return self._append("label", fields)

    def append_branch_summary(self, from_id: str, summary: str, **optional: Any) -> dict[str, Any]:
        """omp's ``branch_summary`` entry; ``optional`` fields (details, fromExtension)
        are written when not None."""
        fields: dict[str, Any] = {"fromId": from_id, "summary": summary}
        fields.update({k: v for k, v in optional.items() if v is not None})
        return self._append("branch_summary", fields)

    def append_compaction(
        self, summary: str, first_kept_entry_id: str, tokens_before: int, **optional: Any
    ) -> dict[str, Any]:
        """omp's ``compaction`` entry; ``optional`` fields (tokensAfter, details,
        preserveData, fromExtension) are written when not None."""
        fields: dict[str, Any] = {
            "summary": summary,
            "firstKeptEntryId": first_kept_entry_id,
            "tokensBefore": tokens_before,
        }
        fields.update({k: v for k, v in optional.items() if v is not None})
        return self._append("compaction", fields)

    def append_session_init(self, fields: dict[str, Any]) -> dict[str, Any]:
        """A child session's contract (omp's ``session_init``: systemPrompt, task, tools,
        ...), written first; never part of the model's context."""
        return self._append("session_init", fields)

    def append_session_info(self, name: str) -> dict[str, Any]:
        """Name the session (pi's ``session_info``): listings show it as the title."""
        return self._append("session_info", {"name": name})

    @property
    def name(self) -> str | None:
        """The latest name given (pi's ``session_info``, omp's ``title_change``), else
        the header's title."""
        for entry in reversed(self.entries):
            kind = entry.get("type")
            if kind in ("session_info", "title_change"):
                value = entry.get("name") if kind == "session_info" else entry.get("title")
                return str(value).strip() or None if value is not None else None
        title = self.header.get("title")
        return str(title) if title else None

    # -- the tree ------------------------------------------------------------------

    def branch(self, entry_id: str) -> None:
        if entry_id not in self._by_id:
            raise OmpError(f"cannot branch from entry {entry_id}: no such entry in this session")
        self.leaf_id = entry_id

    def reset_leaf(self) -> None:
        self.leaf_id = None

    def get_entry(self, entry_id: str) -> dict[str, Any] | None:
        return self._by_id.get(entry_id)

    def children(self, entry_id: str) -> list[dict[str, Any]]:
        return [entry for entry in self.entries if entry.get("parentId") == entry_id]

    def branch_entries(self, leaf_id: str | _Leaf | None = _Leaf.CURRENT) -> list[dict[str, Any]]:
        """The entries from the root down to ``leaf_id`` (default: the current leaf)."""
        if leaf_id is _Leaf.CURRENT:
            leaf_id = self.leaf_id
        if leaf_id is None:
            return []
        if leaf_id not in self._by_id:
            raise OmpError(f"no entry {leaf_id} in session {self.session_id}")
        path: list[dict[str, Any]] = []
        seen: set[str] = set()
        entry = self._by_id.get(str(leaf_id))
        while entry is not None and entry["id"] not in seen:
            seen.add(entry["id"])
            path.append(entry)
            parent = entry.get("parentId")
            entry = self._by_id.get(parent) if isinstance(parent, str) else None
        path.reverse()
        return path

    def build_context(self) -> SessionContext:
        """The messages and settings of the current branch, as the model should see them."""
        with _gc_paused():
            return self._build_context()

    def _build_context(self) -> SessionContext:
        # The first call takes the messages validated while loading instead of
        # validating every entry again (each message object is handed out once).
        parsed, self._parsed = self._parsed, {}
        path = self.branch_entries()
        context = SessionContext()
        start, compaction = 0, None
        for index, entry in enumerate(path):
            kind = entry.get("type")
            if kind == "model_change" and entry.get("role", "default") == "default":
                context.model = _model_key(entry)
            elif kind == "thinking_level_change":
                context.thinking_level = entry.get("thinkingLevel")
            elif kind == "reset_boundary":
                start, compaction = index + 1, None
            elif kind == "compaction":
                compaction = index
        emitted = path[start:]
        messages: list[Any] = []
        if compaction is not None:
            summary = path[compaction]
            try:
                messages.append(
                    CompactionSummaryMessage(
                        summary=summary.get("summary"),
                        tokens_before=summary.get("tokensBefore", 0),
                        timestamp=_iso_to_ms(summary.get("timestamp")),
                    )
                )
            except ValidationError:
                pass
            before = path[start:compaction]
            first_kept = summary.get("firstKeptEntryId")
            kept = next((i for i, e in enumerate(before) if e.get("id") == first_kept), len(before))
            emitted = before[kept:] + path[compaction + 1 :]
        for entry in emitted:
            if entry.get("type") not in _CONTEXT_TYPES or entry.get("id") in self._unreadable:
                continue
            message = parsed.get(entry["id"])
            if message is None:
                try:
                    message = _entry_message(entry)
                except ValidationError:
                    continue
            messages.append(message)
        context.messages = _drop_stray_tool_results(messages)
        return context


class SessionView:
    """Read-only access to a session for plugins. The entries handed out are the stored
    ones, frozen (``omp.base.frozen``): reading a long session copies nothing, and changing
    an entry raises TypeError (``copy.deepcopy`` gives a mutable copy)."""

    __slots__ = ("_session",)

    def __init__(self, session: SessionFile) -> None:
        self._session = session

    @property
    def session_id(self) -> str:
        return self._session.session_id

    @property
    def path(self) -> Path | None:
        return self._session.path

    @property
    def cwd(self) -> str:
        return self._session.cwd

    @property
    def leaf_id(self) -> str | None:
        return self._session.leaf_id

    @property
    def name(self) -> str | None:
        return self._session.name

    @property
    def header(self) -> dict[str, Any]:
        return dict(self._session.header)

    def entries(self) -> list[dict[str, Any]]:
        return list(self._session.entries)

    def branch_entries(self, leaf_id: str | _Leaf | None = _Leaf.CURRENT) -> list[dict[str, Any]]:
        return self._session.branch_entries(leaf_id)

    def get_entry(self, entry_id: str) -> dict[str, Any] | None:
        return self._session.get_entry(entry_id)

    def build_context(self) -> SessionContext:
        # Parsed messages are new objects, but may share nested values with the entries.
        return copy.deepcopy(self._session.build_context())
