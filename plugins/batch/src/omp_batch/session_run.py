"""One task, run where an engine put it (a worker process, a Ray worker): a fresh
session made with the SDK (``omp.create_session``, the same plugins and hooks as the
CLI's), its
session file in a new attempt folder DIR/<id>/attempt-N/ (``omp_batch.layout``), its
budget watched, and one result dict at the end."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omp import OmpError

from omp_batch.layout import (
    LOG,
    SESSION,
    WORKTREE,
    WORKTREE_PATCH,
    Attempt,
    attempt_fields,
    earlier_folders,
    new_attempt,
)
from omp_batch.tasks import Task

if TYPE_CHECKING:
    from omp import AgentSession


@dataclass
class Job:
    """What every task of one batch shares; picklable (it travels to workers)."""

    out: str
    flags: dict[str, Any] = field(default_factory=dict)
    trust: bool = False
    keep_worktrees: bool = False
    limiter: Any = None
    cwd: str = "."


class Cancelled(Exception):
    pass


class _Watch:
    """Counts turns, tokens and dollars as events arrive; ends the run when a budget
    is spent, when the time is up, or when the task is cancelled."""

    def __init__(self, session: AgentSession, task: Task) -> None:
        self.session = session
        self.budget = task.budget
        self.turns = 0
        self.status: str | None = None
        self.reason: str | None = None

    def __call__(self, event: Any) -> None:
        if event.type == "turn_end":
            self.turns += 1
            if self.budget.turns and self.turns >= self.budget.turns:
                self._check_more_turns(event)
        elif event.type == "message_end" and getattr(event.message, "role", "") == "assistant":
            totals = self.session.usage_totals()
            if self.budget.tokens and totals.tokens > self.budget.tokens:
                self.stop("budget_exceeded", f"token budget of {self.budget.tokens} spent")
            elif self.budget.cost and totals.cost > self.budget.cost:
                self.stop("budget_exceeded", f"cost budget of ${self.budget.cost:g} spent")

    def _check_more_turns(self, event: Any) -> None:
        if getattr(event.message, "stop_reason", "") == "toolUse":
            self.stop("budget_exceeded", f"turn budget of {self.budget.turns} spent")

    def stop(self, status: str, reason: str) -> None:
        if self.status is None:
            self.status, self.reason = status, reason
            self.session.abort(reason)


def execute(task_data: dict[str, Any], job: Job, cancel: Any = None) -> dict[str, Any]:
    """Run one task to its result dict; never raises for the task's own failures.
    ``cancel``: a ``threading.Event``-like flag polled while the task runs."""
    return asyncio.run(run_task(Task.from_dict(task_data), job, cancel))


async def run_task(task: Task, job: Job, cancel: Any = None) -> dict[str, Any]:
    started = time.time()
    clock = time.perf_counter()
    task_dir = Path(job.out) / task.id
    result: dict[str, Any] = {
        "id": task.id,
        "status": "failed",
        "answer": None,
        "turns": 0,
        "tokens": None,
        "cost": 0.0,
        "wall_time": 0.0,
        "error": None,
        "attempt": None,
        "session": None,
        "earlier_attempts": [],
        "started": started,
    }
    worktree = None
    try:
        attempt = _new_attempt(task_dir)
        result.update(attempt_fields(task_dir, attempt))
        if task.repo:
            from omp_batch import worktree as wt

            await asyncio.to_thread(_retire_worktrees, task, job, task_dir, attempt.number)
            target = attempt.folder / WORKTREE
            worktree = await asyncio.to_thread(wt.create, task.repo, task.ref, target)
            result["worktree"] = str(worktree)
        cwd = worktree or Path(task.cwd or job.cwd)
        await _session(task, job, cwd, attempt.folder, result, cancel)
    except Cancelled:
        result.update(status="cancelled", error="cancelled before it finished")
    except OmpError as exc:
        result.update(status="failed", error=str(exc))
    except Exception as exc:
        text = " ".join(str(exc).split())
        result.update(status="failed", error=f"internal error: {type(exc).__name__}: {text}")
    finally:
        if worktree is not None:
            await asyncio.to_thread(_finish_worktree, task, job, worktree, result)
    result["wall_time"] = round(time.perf_counter() - clock, 4)
    return result


def _new_attempt(task_dir: Path) -> Attempt:
    try:
        return new_attempt(task_dir)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise OmpError(f"cannot make an attempt folder in {task_dir}: {reason}") from None


def _retire_worktrees(task: Task, job: Job, task_dir: Path, number: int) -> None:
    """Worktrees an earlier attempt left behind (its runner was killed): their changes
    are kept as ``attempt-N/worktree.diff``, the worktrees themselves removed unless
    ``--keep-worktrees``, so git's list holds no stale entries."""
    from omp_batch import worktree as wt

    if job.keep_worktrees:
        return
    for folder in earlier_folders(task_dir, number):
        if (folder / WORKTREE).is_dir():
            wt.retire(str(task.repo), folder / WORKTREE, folder / WORKTREE_PATCH)


def _finish_worktree(task: Task, job: Job, worktree: Path, result: dict[str, Any]) -> None:
    from omp_batch import worktree as wt

    try:
        result["diff"] = wt.diff(worktree)
    except OmpError as exc:
        result["diff"] = None
        result["error"] = result["error"] or f"could not take the diff: {exc}"
    if not job.keep_worktrees:
        wt.remove(str(task.repo), worktree)
        result.pop("worktree", None)


def _settings(task: Task, job: Job) -> dict[str, Any]:
    """The task's settings, over those the runner found; the rate limiter's wait must
    not count against the hook timeout."""
    from omp import deep_merge

    overlay = dict(task.settings)
    if job.limiter is not None:
        overlay = deep_merge({"hookTimeouts": {"before_provider_request": 0}}, overlay)
    return overlay


async def _session(
    task: Task, job: Job, cwd: Path, folder: Path, result: dict[str, Any], cancel: Any
) -> None:
    from omp import create_session

    from omp_batch.ratelimit import RateLimitPlugin

    if not cwd.is_dir():
        raise OmpError(f"cwd {cwd} is not a directory")
    session = await create_session(
        cwd=cwd,
        model=task.model,
        thinking=task.thinking,
        tools=task.tools,
        settings=_settings(task, job),
        session=folder / SESSION,
        extensions=[Path(p) for p in task.plugins],
        extra_plugins=[RateLimitPlugin(job.limiter)] if job.limiter is not None else (),
        flags={**job.flags, **task.flags},
        trust=job.trust,
        mode="batch",
    )
    watch = _Watch(session, task)
    session.subscribe(watch)
    session.subscribe(_EventLog(folder / LOG))
    loop = asyncio.get_running_loop()
    timer = None
    if task.budget.time:
        seconds = task.budget.time
        timer = loop.call_later(
            seconds, lambda: watch.stop("timed_out", f"time budget of {seconds:g} s spent")
        )
    poller = asyncio.ensure_future(_poll_cancel(cancel, watch)) if cancel is not None else None
    final = None
    try:
        for prompt in task.prompts:
            answer = await session.prompt(prompt)
            final = answer or final
            if session.abort_reason or (answer and answer.stop_reason in ("error", "aborted")):
                break
    finally:
        if timer is not None:
            timer.cancel()
        if poller is not None:
            poller.cancel()
        await session.dispose()
    totals = session.usage_totals()
    result["turns"] = watch.turns
    result["tokens"] = {
        "input": totals.input,
        "output": totals.output,
        "cache_read": totals.cache_read,
        "cache_write": totals.cache_write,
        "total": totals.tokens,
    }
    result["cost"] = round(totals.cost, 6)
    result["answer"] = final.text if final is not None else ""
    if watch.status is not None:
        result.update(status=watch.status, error=watch.reason)
    elif session.abort_reason:
        result.update(status="failed", error=session.abort_reason)
    elif final is not None and final.stop_reason in ("error", "aborted"):
        result.update(status="failed", error=final.error_message or final.stop_reason)
    else:
        result["status"] = "done"


async def _poll_cancel(cancel: Any, watch: _Watch) -> None:
    while not cancel.is_set():
        await asyncio.sleep(0.05)
    watch.stop("cancelled", "cancelled before it finished")


class _EventLog:
    """DIR/<id>/attempt-N/log.txt: what print mode would have said on stderr (notices,
    plugin errors, retries), so a failed task can be understood afterwards."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self, event: Any) -> None:
        if event.type == "notice":
            line = f"{event.level}: {event.message}"
        elif event.type == "extension_error":
            plugin = event.extension_name or event.extension_path
            line = f"plugin {plugin} failed in {event.event}: {event.error}"
        elif event.type == "auto_retry_start":
            line = f"retrying in {event.delay_ms} ms: {event.error_message}"
        else:
            return
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")
