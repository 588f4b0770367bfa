"""``omp batch --engine ray [--address ADDR]``: each task is a Ray task.

Ray schedules them over the cluster with each task's ``resources`` (``num_cpus``,
default 1, ``num_gpus``, ``memory``, custom resources), re-runs a task whose node was
lost (``--max-retries``, default 3; a task that failed on its own is not retried), and
results come back as each finishes (``ray.wait``), to be appended at once. Without
``--address`` a local instance is started (``--jobs N`` CPUs) and stopped at the end;
there a task asking for more than the instance has fails alone at once, where Ray
would keep it waiting for a node that never comes (a cluster with an autoscaler may
still add one, so tasks sent to ``--address`` are left to Ray). An address where
nothing listens is one line at once, before Ray spends minutes retrying it.
The shared rate limit lives in one Ray actor that every task's session asks.
"""

from __future__ import annotations

import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from omp import OmpError, UsageError
from omp_batch.engine import EngineOptions, Interrupted, Report
from omp_batch.layout import last_number, lost_result
from omp_batch.ratelimit import Limit, limit_for, reserve, spend
from omp_batch.session_run import Job, execute

CANCEL_GRACE_S = 10.0
CONNECT_TIMEOUT_S = 5.0
# Ray's names for the task options that are resources.
RESOURCE_NAMES = {"num_cpus": "CPU", "num_gpus": "GPU", "memory": "memory"}


def _run_task(task: dict[str, Any], job: Job) -> dict[str, Any]:
    """In a Ray worker. ``ray.cancel`` interrupts the worker's main thread as SIGINT
    does: that sets the task's cancel flag, which the session polls (and so wakes for)
    every 50 ms, ending it as a local Ctrl+C would, with a ``cancelled`` result that
    keeps its turns, tokens and session file. (Ray's own KeyboardInterrupt lands only
    when the event loop next wakes, which a slow request can put past the grace.)"""
    cancel = threading.Event()
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, lambda *_: cancel.set())
    try:
        return execute(task, job, cancel)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


class _Buckets:
    """The rate limit's buckets, held by one actor."""

    def __init__(self, limits: dict[str, Limit]) -> None:
        self.limits = limits
        self.states: dict[str, dict[str, float]] = {}

    def take(self, provider: str, tokens: int) -> float:
        import time

        limit = limit_for(self.limits, provider)
        if limit is None:
            return 0.0
        return reserve(self.states.setdefault(provider, {}), limit, 1, tokens, time.time())

    def debit(self, provider: str, tokens: int) -> None:
        import time

        limit = limit_for(self.limits, provider)
        if limit is not None:
            spend(self.states.setdefault(provider, {}), limit, tokens, time.time())


class RayLimiter:
    """What a task's session holds: the actor's handle (picklable)."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    async def acquire(self, provider: str, tokens: int) -> None:
        import asyncio

        while (wait := await self.actor.take.remote(provider, tokens)) > 0:
            await asyncio.sleep(min(wait, 5.0))

    async def debit(self, provider: str, tokens: int) -> None:
        await self.actor.debit.remote(provider, tokens)


class RayEngine:
    name = "ray"

    def __init__(self, options: EngineOptions) -> None:
        self.options = options
        self._started_here = False
        self._since: dict[str, tuple[int, float]] = {}
        """Per task id: its newest attempt number before submission, and when."""

    def _ray(self) -> Any:
        if self.options.address:
            _reachable(self.options.address)
        import ray

        if not ray.is_initialized():
            common = {"log_to_driver": False, "configure_logging": False}
            try:
                with _keeping_sigterm():
                    if self.options.address:
                        ray.init(address=self.options.address, **common)
                    else:
                        ray.init(num_cpus=self.options.jobs, include_dashboard=False, **common)
                        self._started_here = True
            except Exception as exc:
                where = f"connect to {self.options.address}" if self.options.address else "start"
                reason = " ".join(str(exc).split())[:300]
                raise OmpError(f"Ray could not {where}: {type(exc).__name__}: {reason}") from None
        return ray

    def limiter(self, job: Job, limits: dict[str, Limit]) -> Any:
        if not limits:
            return None
        ray = self._ray()
        actor = ray.remote(num_cpus=0)(_Buckets).remote(limits)
        return RayLimiter(actor)

    def _submit(self, ray: Any, task: Any, job: Job) -> Any:
        resources = dict(task.resources)
        options: dict[str, Any] = {
            "num_cpus": resources.pop("num_cpus", 1),
            "num_gpus": resources.pop("num_gpus", 0),
            "max_retries": self.options.max_retries,
            "retry_exceptions": False,
        }
        if "memory" in resources:
            options["memory"] = resources.pop("memory")
        if resources:
            options["resources"] = resources
        return ray.remote(_run_task).options(**options).remote(task.to_dict(), job)

    def run(self, tasks: list[Any], job: Job, report: Report) -> None:
        ray = self._ray()
        try:
            ids: dict[Any, str] = {}
            nodes = _nodes(ray) if self._started_here else None
            for task in tasks:
                short = _shortfall(task.resources, nodes) if nodes is not None else None
                if short:
                    report("finished", lost_result(job.out, task.id, "failed", short))
                    continue
                since = last_number(Path(job.out) / task.id)
                ids[self._submit(ray, task, job)] = task.id
                self._since[task.id] = (since, time.monotonic())
                report("started", task.id)
            pending = list(ids)
            try:
                while pending:
                    ready, pending = ray.wait(pending, num_returns=1, timeout=1.0)
                    for ref in ready:
                        report("finished", self._result(ray, ref, ids[ref], job))
            except KeyboardInterrupt:
                self._cancel(ray, pending, ids, report, job)
                raise Interrupted() from None
        finally:
            if self._started_here:
                ray.shutdown()

    def _lost(self, job: Job, task_id: str, status: str, error: str) -> dict[str, Any]:
        """A task Ray lost or killed: the time since it was submitted and what its
        session file holds (where this machine sees the out folder)."""
        since, submitted = self._since.get(task_id, (0, time.monotonic()))
        elapsed = time.monotonic() - submitted
        return lost_result(job.out, task_id, status, error, since=since, elapsed=elapsed)

    def _result(self, ray: Any, ref: Any, task_id: str, job: Job) -> dict[str, Any]:
        try:
            return ray.get(ref)
        except ray.exceptions.TaskCancelledError:
            return self._lost(job, task_id, "cancelled", "cancelled")
        except ray.exceptions.RayError as exc:
            reason = " ".join(str(exc).split())[:500]
            error = f"lost by Ray: {type(exc).__name__}: {reason}"
            return self._lost(job, task_id, "failed", error)

    def _cancel(
        self, ray: Any, pending: list[Any], ids: dict[Any, str], report: Report, job: Job
    ) -> None:
        for ref in pending:
            ray.cancel(ref)
        try:
            ready, left = ray.wait(pending, num_returns=len(pending), timeout=CANCEL_GRACE_S)
        except KeyboardInterrupt:
            ready, left = [], pending
        for ref in ready:
            result = self._result(ray, ref, ids[ref], job)
            if result["status"] == "failed" and "lost by Ray" in str(result["error"]):
                result = self._lost(job, ids[ref], "cancelled", "cancelled")
            report("finished", result)
        for ref in left:
            ray.cancel(ref, force=True)
            report("finished", self._lost(job, ids[ref], "cancelled", "cancelled (killed)"))


@contextmanager
def _keeping_sigterm() -> Iterator[None]:
    """``ray.init`` makes SIGTERM exit the driver at once (``sys.exit``); the runner's
    own handler cancels the running tasks first, so it is put back."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGTERM) if main else None
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _reachable(address: str) -> None:
    """Fail at once, in one line, when nothing listens at ``--address`` (HOST:PORT or
    ray://HOST:PORT; ``auto`` is left to Ray)."""
    if address in ("auto", "local"):
        return
    host, sep, port = address.split("://", 1)[-1].rstrip("/").rpartition(":")
    if not sep or not host or not port.isdigit():
        raise UsageError(f"--address takes HOST:PORT or ray://HOST:PORT, not {address!r}")
    try:
        socket.create_connection((host.strip("[]"), int(port)), CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise OmpError(f"cannot reach a Ray cluster at {address}: {reason}") from None


def _nodes(ray: Any) -> list[dict[str, float]]:
    return [dict(node["Resources"]) for node in ray.nodes() if node.get("Alive")]


def _shortfall(resources: dict[str, float], nodes: list[dict[str, float]]) -> str | None:
    """Why no node can ever run a task asking for ``resources``, or None."""
    demand = {"CPU": 1.0, **{RESOURCE_NAMES.get(k, k): float(v) for k, v in resources.items()}}
    demand = {name: amount for name, amount in demand.items() if amount > 0}
    if any(all(node.get(k, 0.0) >= v for k, v in demand.items()) for node in nodes):
        return None
    wanted = ", ".join(f"{k} {v:g}" for k, v in demand.items())
    largest = max(nodes, key=lambda node: node.get("CPU", 0.0), default={})
    has = ", ".join(f"{k} {largest.get(k, 0.0):g}" for k in demand)
    return (
        f"needs {wanted}, and no node of the Ray cluster has that much (the largest has "
        f'{has}); change its "resources" or run it on a cluster with --address'
    )
