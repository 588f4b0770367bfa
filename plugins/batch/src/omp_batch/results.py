"""DIR/results.jsonl: one line per finished task, appended so that no finished result
is ever lost. Each line is one ``write`` on a descriptor opened with O_APPEND (atomic
for one writer and for several), then fsync, before the task counts as finished: a
SIGKILL of the runner a moment later still leaves the line complete on disk. A torn
last line (a crash mid-write where appends are not atomic) is skipped on reading, and
the next line starts on a line of its own."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

STATUSES = ("done", "failed", "timed_out", "budget_exceeded", "cancelled")
FINISHED = {"done"}
RETRYABLE = {"failed", "timed_out", "budget_exceeded"}


class ResultLog:
    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, result: dict[str, Any]) -> None:
        line = (json.dumps(result, ensure_ascii=False) + "\n").encode("utf-8")
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line  # after a torn line, never glued onto it
            written = os.write(fd, line)
            if written != len(line):  # a full disk: never leave half a line behind
                raise OSError(f"short write to {self.path} ({written} of {len(line)} bytes)")
            os.fsync(fd)
        finally:
            os.close(fd)

    def latest(self) -> dict[str, dict[str, Any]]:
        """The last result of each id; a torn last line (a crash mid-write on a
        filesystem without atomic appends) is ignored."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        latest: dict[str, dict[str, Any]] = {}
        for line in data.split(b"\n"):
            if not line.strip():
                continue
            try:
                result = json.loads(line)
            except ValueError:
                continue
            if isinstance(result, dict) and isinstance(result.get("id"), str):
                latest[result["id"]] = result
        return latest


def to_run(ids: list[str], latest: dict[str, dict[str, Any]], retry_failed: bool) -> list[str]:
    """The ids a (re-)run should run: never a done one; failed, timed-out and
    over-budget ones only with ``retry_failed``; cancelled and unseen ones always."""
    wanted = []
    for task_id in ids:
        status = latest.get(task_id, {}).get("status")
        if status in FINISHED or (status in RETRYABLE and not retry_failed):
            continue
        wanted.append(task_id)
    return wanted
