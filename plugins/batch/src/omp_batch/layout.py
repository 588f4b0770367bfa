"""The out folder of a batch, DIR: ``results.jsonl``, the runner's ``.lock``, the rate
limiter's ``.ratelimit/``, and one folder per task holding one ``attempt-N/`` folder
per run of that task (``session.jsonl``, ``log.txt``, ``worktree/``, and
``worktree.diff`` where a killed run's worktree was cleared by the next one).

An attempt folder is never reused nor deleted: a re-run of a failed, cancelled or
killed task gets the next number, so every earlier session stays where its result line
said it was. Folders of tasks run before attempts existed (``DIR/<id>/session.jsonl``)
count as earlier attempts too."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RESULTS = "results.jsonl"
LOCK = ".lock"
RATE_LIMIT = ".ratelimit"
SESSION = "session.jsonl"
LOG = "log.txt"
WORKTREE = "worktree"
WORKTREE_PATCH = "worktree.diff"
"""What a killed attempt's worktree held, kept when a later attempt removes it."""
RESERVED = frozenset({RESULTS, LOCK, RATE_LIMIT})
"""Names in DIR that a task's folder must never take."""
_ATTEMPT = re.compile(r"attempt-([1-9][0-9]{0,8})")


def is_attempt_name(name: str) -> bool:
    return _ATTEMPT.fullmatch(name.casefold()) is not None


def attempt_name(session: str) -> str:
    """How a line on the terminal names the attempt of a session file: ``attempt-2``
    (or ``<id>/session.jsonl`` for one from before attempt folders)."""
    folder = Path(session).parent
    return folder.name if is_attempt_name(folder.name) else f"{folder.name}/{SESSION}"


@dataclass(frozen=True)
class Attempt:
    number: int
    folder: Path

    @property
    def session(self) -> Path:
        return self.folder / SESSION


def attempts(task_dir: Path) -> list[Attempt]:
    """The task's attempt folders, oldest first."""
    try:
        names = os.listdir(task_dir)
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = [(_ATTEMPT.fullmatch(name), name) for name in names]
    return sorted(
        (Attempt(int(match.group(1)), task_dir / name) for match, name in found if match),
        key=lambda attempt: attempt.number,
    )


def last_number(task_dir: Path) -> int:
    """The number of the task's newest attempt (0 for none)."""
    found = attempts(task_dir)
    return found[-1].number if found else 0


def new_attempt(task_dir: Path) -> Attempt:
    """A fresh attempt folder, numbered after every existing one (``mkdir`` decides, so
    two runs of one task never share a folder)."""
    task_dir.mkdir(parents=True, exist_ok=True)
    number = last_number(task_dir) + 1
    while True:
        folder = task_dir / f"attempt-{number}"
        try:
            folder.mkdir()
        except FileExistsError:
            number += 1
            continue
        return Attempt(number, folder)


def earlier_folders(task_dir: Path, before: int | None = None) -> list[Path]:
    """The folders of the attempts before number ``before`` (all for None), oldest
    first; the task's folder itself first when it holds a run from before attempt
    folders existed."""
    legacy = [task_dir] if (task_dir / SESSION).is_file() or (task_dir / WORKTREE).is_dir() else []
    return legacy + [a.folder for a in attempts(task_dir) if before is None or a.number < before]


def earlier_sessions(task_dir: Path, before: int | None = None) -> list[str]:
    """The session files of the earlier attempts that wrote one, oldest first."""
    found = (folder / SESSION for folder in earlier_folders(task_dir, before))
    return [str(path) for path in found if path.is_file()]


def attempt_fields(task_dir: Path, attempt: Attempt | None) -> dict[str, Any]:
    """What a result line says of its attempt: its number, session file and the
    earlier attempts' session files."""
    if attempt is None:
        return {"attempt": None, "session": None, "earlier_attempts": earlier_sessions(task_dir)}
    return {
        "attempt": attempt.number,
        "session": str(attempt.session),
        "earlier_attempts": earlier_sessions(task_dir, attempt.number),
    }


def session_usage(path: Path) -> dict[str, Any]:
    """Turns, tokens and dollars recorded in a session file, read as it was left (a
    torn last line is skipped): what a killed worker had done."""
    turns, cost = 0, 0.0
    tokens = dict.fromkeys(("input", "output", "cache_read", "cache_write"), 0)
    try:
        data = path.read_bytes()
    except OSError:
        data = b""
    for line in data.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        turns += 1
        usage = _object(message.get("usage"))
        for key in tokens:
            tokens[key] += int(_number(usage.get(_camel(key))))
        cost += _number(_object(usage.get("cost")).get("total"))
    return {"turns": turns, "tokens": {**tokens, "total": sum(tokens.values())}, "cost": cost}


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part.title() for part in rest)


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> float:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0


def lost_result(
    out: str | Path,
    task_id: str,
    status: str,
    error: str,
    *,
    since: int | None = None,
    elapsed: float = 0.0,
) -> dict[str, Any]:
    """The result of a task whose run ended without answering (its worker killed or
    dead, or never started when ``since`` is None): the real time it ran and what its
    session file, its newest attempt after number ``since``, records."""
    task_dir = Path(out) / task_id
    attempt = None
    if since is not None:
        newer = [a for a in attempts(task_dir) if a.number > since]
        attempt = newer[-1] if newer else None  # an engine's retry made more than one
    result: dict[str, Any] = {"id": task_id, "status": status, "answer": None, "turns": 0,
                              "tokens": None, "cost": 0.0, "wall_time": round(elapsed, 4),
                              "error": error}  # fmt: skip
    result.update(attempt_fields(task_dir, attempt))
    if attempt is not None and attempt.session.is_file():
        usage = session_usage(attempt.session)
        result.update(turns=usage["turns"], tokens=usage["tokens"], cost=round(usage["cost"], 6))
    return result
