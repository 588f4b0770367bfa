"""Engines run a batch's tasks. Each is a plugin: an entry point in the group
``omp.batch_engines`` naming a class (``local`` ships here, ``ray`` in omp-batch-ray).

An engine class is built with the parsed ``EngineOptions`` and has
``run(tasks, job, report)``: it runs every task through ``omp_batch.session_run``
(``execute``) somewhere, calls ``report(kind, payload)`` on the calling thread as
things happen (``"started"`` with the task id, ``"finished"`` with the result dict,
as soon as each one ends), and returns when all have finished. On KeyboardInterrupt
(which the runner raises for SIGINT, SIGTERM and SIGHUP alike) it stops starting
tasks, cancels the running ones (reporting their ``cancelled`` results) and raises
``Interrupted``; a second one while cancelling kills what is left.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from omp import OmpError, UsageError

ENGINE_GROUP = "omp.batch_engines"
Report = Callable[[str, Any], None]


class Interrupted(Exception):
    """The batch was stopped (Ctrl+C, SIGTERM, SIGHUP); running tasks were cancelled."""


@dataclass
class EngineOptions:
    jobs: int | None = None
    address: str | None = None
    max_retries: int = 3
    extra: dict[str, Any] = field(default_factory=dict)


class Engine(Protocol):
    name: str

    def __init__(self, options: EngineOptions) -> None: ...

    def limiter(self, job: Any, limits: dict[str, Any]) -> Any:
        """The shared rate limiter its workers will use (None without limits)."""

    def run(self, tasks: list[Any], job: Any, report: Report) -> None: ...


def installed_engines() -> dict[str, Any]:
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENGINE_GROUP)}


def load_engine(name: str, options: EngineOptions) -> Engine:
    engines = installed_engines()
    if name not in engines:
        known = ", ".join(sorted(engines)) or "none"
        hint = " (pip install omp-batch-ray)" if name == "ray" else ""
        raise UsageError(f"batch engine {name!r} is not installed{hint}; installed: {known}")
    try:
        cls = engines[name].load()
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}"
        raise OmpError(f"batch engine {name!r} failed to load: {reason}") from None
    return cls(options)
