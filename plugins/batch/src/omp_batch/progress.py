"""What a batch shows while it runs: a rich progress display on a terminal, plain
lines on stderr otherwise, JSON events on stdout with ``--json``."""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter
from typing import Any

from omp_batch.layout import attempt_name


class Progress:
    """Plain lines on stderr, one per finished task, and the totals so far."""

    def __init__(self, total: int, skipped: int) -> None:
        self.total = total
        self.skipped = skipped
        self.counts: Counter[str] = Counter()
        self.running: set[str] = set()
        self.tokens = 0
        self.cost = 0.0
        self.began = time.monotonic()
        if skipped:
            self.say(f"skipping {skipped} task(s) already finished (--retry-failed reruns failed)")

    @property
    def done_count(self) -> int:
        return self.skipped + sum(self.counts.values())

    def say(self, text: str) -> None:
        print(f"omp batch: {text}", file=sys.stderr, flush=True)

    def started(self, task_id: str) -> None:
        self.running.add(task_id)

    def finished(self, result: dict[str, Any]) -> None:
        self.running.discard(result["id"])
        self.counts[result["status"]] += 1
        self.tokens += (result.get("tokens") or {}).get("total", 0)
        self.cost += result.get("cost") or 0.0
        self.show(result)

    def show(self, result: dict[str, Any]) -> None:
        error = f": {result['error']}" if result.get("error") else ""
        note = attempt_note(result)
        self.say(
            f"[{self.done_count}/{self.total}] {result['id']} {result['status']} in "
            f"{result.get('wall_time', 0):.1f} s ({result.get('turns', 0)} turns, "
            f"${result.get('cost') or 0:.4f}{'; ' + note if note else ''}){error}"
        )

    def close(self) -> None:
        pass

    def interrupted(
        self, finished: int, cancelled: int, left: list[str], reason: str = "interrupted"
    ) -> None:
        """``reason``: "interrupted" (Ctrl+C) or "terminated by SIGTERM" and the like."""
        shown = ", ".join(left[:10]) + (f" and {len(left) - 10} more" if len(left) > 10 else "")
        self.say(
            f"{reason}: {finished} finished, {cancelled} cancelled, {len(left)} left"
            + (f" ({shown})" if left else "")
            + "; run the same command again to run what is left"
        )

    def summary(self, statuses: list[str], seconds: float, results: str) -> None:
        counts = Counter(statuses)
        parts = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        self.say(
            f"{len(statuses)} tasks: {parts}; {self.tokens} tokens, ${self.cost:.4f} "
            f"this run ({seconds:.1f} s); results in {results}"
        )


class JsonProgress(Progress):
    """One JSON object per line on stdout: start, started, finished, end/interrupted.
    Anything else written to stdout while the batch runs (an engine's own messages, a
    plugin's prints, in this process or its workers) is sent to stderr instead, so
    stdout stays JSON only."""

    def __init__(self, total: int, skipped: int) -> None:
        super().__init__(total, 0)
        sys.stdout.flush()
        self.out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
        os.dup2(2, 1)
        self.skipped = skipped
        self.emit({"event": "start", "total": total, "skipped": skipped})

    def emit(self, event: dict[str, Any]) -> None:
        self.out.write(json.dumps(event, ensure_ascii=False) + "\n")
        self.out.flush()

    def started(self, task_id: str) -> None:
        super().started(task_id)
        self.emit({"event": "started", "id": task_id})

    def show(self, result: dict[str, Any]) -> None:
        self.emit({"event": "finished", "result": result})

    def interrupted(
        self, finished: int, cancelled: int, left: list[str], reason: str = "interrupted"
    ) -> None:
        self.emit({"event": "interrupted", "reason": reason, "finished": finished,
                   "cancelled": cancelled, "left": left})  # fmt: skip

    def summary(self, statuses: list[str], seconds: float, results: str) -> None:
        self.emit(
            {
                "event": "end",
                "counts": dict(Counter(statuses)),
                "tokens": self.tokens,
                "cost": self.cost,
                "seconds": round(seconds, 3),
                "results": results,
            }
        )


class RichProgress(Progress):
    """A bar with done / running / failed, tokens and cost so far, and the ETA."""

    def __init__(self, total: int, skipped: int) -> None:
        super().__init__(total, skipped)
        self._live: Any = None

    def _bar(self) -> Any:
        if self._live is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichBar

            self._live = RichBar(
                TextColumn("batch"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.description}"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
            )
            self._task = self._live.add_task("", total=self.total, completed=self.skipped)
            self._live.start()
        return self._live

    def _refresh(self) -> None:
        failed = sum(n for status, n in self.counts.items() if status != "done")
        self._bar().update(
            self._task,
            completed=self.done_count,
            description=(
                f"done {self.counts['done']}  running {len(self.running)}  failed {failed}  "
                f"{self.tokens:,} tokens  ${self.cost:.4f}"
            ),
        )

    def started(self, task_id: str) -> None:
        super().started(task_id)
        self._refresh()

    def show(self, result: dict[str, Any]) -> None:
        if result["status"] != "done":
            # Errors are arbitrary text (a provider's message): never rich markup.
            note = attempt_note(result)
            note = f" ({note})" if note else ""
            line = f"{result['id']}: {result['status']}{note}: {result['error']}"
            self._bar().console.print(line, markup=False, highlight=False)
        self._refresh()

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None


def attempt_note(result: dict[str, Any]) -> str:
    """``"attempt 3, earlier: attempt-1, attempt-2"`` for a task run before (its
    earlier sessions are kept, their paths in the result line), else ``""``."""
    earlier = result.get("earlier_attempts") or []
    if not earlier:
        return ""
    names = ", ".join(attempt_name(path) for path in earlier)
    number = result.get("attempt")
    return f"attempt {number}, earlier: {names}" if number else f"earlier: {names}"


def make_progress(as_json: bool, total: int, skipped: int) -> Progress:
    if as_json:
        return JsonProgress(total, skipped)
    if sys.stderr.isatty():
        try:
            import rich  # noqa: F401
        except ImportError:
            return Progress(total, skipped)
        return RichProgress(total, skipped)
    return Progress(total, skipped)
