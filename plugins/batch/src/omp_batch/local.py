"""The local engine: ``--jobs N`` worker processes on this machine, each running one
task at a time (forked from the runner, so the kernel and plugins are imported once).

A worker ignores SIGINT and SIGHUP (a terminal sends Ctrl+C, and its hangup, to the
whole process group: the runner decides) and cancels its task on SIGTERM, answering
with a ``cancelled`` result. A worker whose runner died (SIGKILL) exits at once rather
than linger. A task still running ``KILL_GRACE_S`` past its time budget (a plugin or
tool blocking the session, so the budget's own abort cannot land) has its worker
killed: ``timed_out``.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

import omp

from omp_batch.engine import EngineOptions, Interrupted, Report
from omp_batch.layout import RATE_LIMIT, last_number, lost_result
from omp_batch.session_run import Job, execute

CANCEL_GRACE_S = 30.0
KILL_GRACE_S = 5.0


def _watch_parent(parent: int) -> None:
    """End this worker with its runner: at once on Linux (PR_SET_PDEATHSIG), within a
    fraction of a second elsewhere."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="omp-batch-parent-watch").start()


def _worker(conn: Connection, job: Job, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    cancel = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: cancel.set())
    _watch_parent(parent)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None or cancel.is_set():
            return
        conn.send(execute(task, job, cancel))


@dataclass
class _Worker:
    process: Any
    conn: Connection
    task_id: str | None = None
    deadline: float | None = None
    budget: float | None = None
    began: float = 0.0
    since: int = 0
    """The task's newest attempt number before this worker took it."""


class LocalEngine:
    name = "local"

    def __init__(self, options: EngineOptions) -> None:
        self.jobs = max(1, options.jobs or os.cpu_count() or 1)

    def limiter(self, job: Job, limits: dict[str, Any]) -> Any:
        from omp_batch.ratelimit import FileLimiter

        return FileLimiter(str(Path(job.out) / RATE_LIMIT), limits) if limits else None

    def run(self, tasks: list[Any], job: Job, report: Report) -> None:
        # Imported once here, inherited by every forked worker.
        _ = (omp.create_session, omp.AgentSession, omp.HandlerContext)
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        context = multiprocessing.get_context(method)
        queue = deque(tasks)
        workers: list[_Worker] = []

        def spawn() -> _Worker:
            mine, theirs = context.Pipe()
            process = context.Process(
                target=_worker, args=(theirs, job, os.getpid()), daemon=True, name="omp-batch"
            )
            process.start()
            theirs.close()
            worker = _Worker(process, mine)
            workers.append(worker)
            return worker

        idle = [spawn() for _ in range(min(self.jobs, len(tasks)))]
        busy: dict[Connection, _Worker] = {}
        try:
            while queue or busy:
                while idle and queue:
                    worker, task = idle.pop(), queue.popleft()
                    budget = task.budget.time
                    worker.since = last_number(Path(job.out) / task.id)
                    worker.task_id, worker.budget, worker.began = task.id, budget, time.monotonic()
                    worker.deadline = worker.began + budget + KILL_GRACE_S if budget else None
                    worker.conn.send(task.to_dict())
                    busy[worker.conn] = worker
                    report("started", task.id)
                for conn in wait(list(busy), timeout=1.0):
                    worker = busy.pop(conn)  # type: ignore[index]
                    report("finished", self._receive(worker, job))
                    if worker.process.is_alive():
                        idle.append(worker)
                    elif queue:
                        idle.append(spawn())
                for worker in self._overdue(busy):
                    report("finished", self._kill(worker, job))
                    if queue:
                        idle.append(spawn())
        except KeyboardInterrupt:
            queue.clear()
            self._cancel(busy, report, job)
            raise Interrupted() from None
        finally:
            self._stop(workers)

    def _overdue(self, busy: dict[Connection, _Worker]) -> list[_Worker]:
        now = time.monotonic()
        late = [w for w in busy.values() if w.deadline is not None and now > w.deadline]
        late = [w for w in late if not w.conn.poll()]  # its result is there: not late
        for worker in late:
            del busy[worker.conn]
        return late

    def _kill(self, worker: _Worker, job: Job) -> dict[str, Any]:
        worker.process.kill()
        worker.process.join(5.0)
        worker.conn.close()
        spent = time.monotonic() - worker.began
        return self._lost(
            worker,
            job,
            "timed_out",
            f"time budget of {worker.budget:g} s spent; the session did not stop by itself "
            f"(something blocked it), so its worker was killed after {spent:.0f} s",
        )

    def _receive(self, worker: _Worker, job: Job) -> dict[str, Any]:
        try:
            return worker.conn.recv()
        except (EOFError, OSError):
            worker.process.join(1.0)
            code = worker.process.exitcode
            how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            return self._lost(worker, job, "failed", f"its worker process died ({how})")

    def _lost(self, worker: _Worker, job: Job, status: str, error: str) -> dict[str, Any]:
        """The result of a task whose worker ended without answering: the time from
        its start until now, and the turns its session file holds."""
        elapsed = time.monotonic() - worker.began
        return lost_result(
            job.out, str(worker.task_id), status, error, since=worker.since, elapsed=elapsed
        )

    def _cancel(self, busy: dict[Connection, _Worker], report: Report, job: Job) -> None:
        """SIGTERM each running task's worker and wait for its cancelled result; a
        second Ctrl+C (or the grace period) kills them."""
        for worker in busy.values():
            if worker.process.pid is not None:
                os.kill(worker.process.pid, signal.SIGTERM)
        deadline = time.monotonic() + CANCEL_GRACE_S
        try:
            while busy and time.monotonic() < deadline:
                for conn in wait(list(busy), timeout=0.5):
                    worker = busy.pop(conn)  # type: ignore[index]
                    result = self._receive(worker, job)
                    if result["status"] == "failed" and "died" in str(result["error"]):
                        result = self._lost(worker, job, "cancelled", "cancelled")
                    report("finished", result)
        except KeyboardInterrupt:
            pass
        for worker in busy.values():
            worker.process.kill()
            report("finished", self._lost(worker, job, "cancelled", "cancelled (killed)"))
        busy.clear()

    def _stop(self, workers: list[_Worker]) -> None:
        for worker in workers:
            try:
                worker.conn.send(None)
            except (OSError, ValueError):
                pass
        for worker in workers:
            worker.process.join(2.0)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(1.0)
            worker.conn.close()
