"""``omp batch TASKS.jsonl --out DIR``: run every task not yet done, through an engine,
one result line each in DIR/results.jsonl."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from omp import OmpError, UsageError

from omp_batch.engine import EngineOptions

if TYPE_CHECKING:
    from omp import SubcommandContext

USAGE = """\
usage: omp batch TASKS.jsonl --out DIR [--engine local|ray] [--jobs N] [--address ADDR]
                 [--retry-failed] [--json] [--trust] [--keep-worktrees] [--max-retries N]
                 [--PLUGIN-FLAG VALUE ...]

Each line of TASKS.jsonl is a task: {"id", "prompt" | "prompts", "cwd" | "repo" + "ref",
"model", "thinking", "tools", "plugins", "settings", "flags", "budget": {"time", "turns",
"cost", "tokens"}, "resources"}. Each run of a task is its own session, in a new
DIR/<id>/attempt-N/session.jsonl (earlier attempts are kept), and appends one line to
DIR/results.jsonl. A re-run skips the tasks already done;
--retry-failed runs the failed, timed-out and over-budget ones again. Plugin flags
(--script FILE, ...) apply to every task. Engines: local (worker processes, --jobs N,
the default) and ray (omp-batch-ray: --address ADDR, else a local Ray instance).
The exit status is 0 when every task is done, 1 otherwise; Ctrl+C, SIGTERM and
SIGHUP cancel the running tasks (each keeps its session file) and exit 130, 143, 129.
"""

VALUED = {"--out", "--engine", "--jobs", "--address", "--max-retries"}
SWITCHES = {"--retry-failed", "--json", "--trust", "--keep-worktrees"}


@dataclass
class BatchArgs:
    tasks: Path
    out: Path
    engine: str = "local"
    options: EngineOptions = field(default_factory=EngineOptions)
    retry_failed: bool = False
    json: bool = False
    trust: bool = False
    keep_worktrees: bool = False
    flags: dict[str, Any] = field(default_factory=dict)


def parse(args: list[str], ctx: SubcommandContext) -> BatchArgs:
    plugin_flags = {f.name: f for f in ctx.flags}
    values: dict[str, str] = {}
    switches: set[str] = set()
    flags: dict[str, Any] = {}
    positional: list[str] = []
    items = list(args)
    while items:
        item = items.pop(0)
        name, eq, inline = item.partition("=")
        if not item.startswith("--") or item == "--":
            positional.append(item)
        elif name in SWITCHES and not eq:
            switches.add(name)
        elif name in VALUED or name[2:] in plugin_flags:
            flag = plugin_flags.get(name[2:])
            if flag is not None and flag.type == "boolean" and name not in VALUED:
                flags[flag.name] = inline.lower() not in ("0", "false", "no") if eq else True
                continue
            if not eq and not items:
                raise UsageError(f"{name} needs a value; see omp batch --help")
            value = inline if eq else items.pop(0)
            if name in VALUED:
                values[name] = value
            else:
                flags[name[2:]] = _typed(name, value, flag.type if flag else "string")
        else:
            raise UsageError(f"unknown option {name}; see omp batch --help")
    if len(positional) != 1:
        raise UsageError("give one tasks file: omp batch TASKS.jsonl --out DIR")
    if "--out" not in values:
        raise UsageError("--out DIR is required (where results.jsonl and each task's folder go)")
    cwd = ctx.cwd
    return BatchArgs(
        tasks=cwd / Path(positional[0]).expanduser(),
        out=(cwd / Path(values["--out"]).expanduser()).resolve(),
        engine=values.get("--engine", "local"),
        options=EngineOptions(
            jobs=_positive("--jobs", values.get("--jobs")),
            address=values.get("--address"),
            max_retries=_number("--max-retries", values.get("--max-retries"), default=3),
        ),
        retry_failed="--retry-failed" in switches,
        json="--json" in switches,
        trust="--trust" in switches,
        keep_worktrees="--keep-worktrees" in switches,
        flags=flags,
    )


def _typed(name: str, value: str, kind: str) -> Any:
    if kind == "integer":
        return _positive(name, value, 0)
    return value


def _number(name: str, value: str | None, default: int) -> int:
    got = _positive(name, value, 0)
    return default if got is None else got


def _positive(name: str, value: str | None, least: int = 1) -> int | None:
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        number = least - 1
    if number < least:
        raise UsageError(f"{name} takes a whole number >= {least}, not {value!r}")
    return number


def run(args: list[str], ctx: SubcommandContext) -> int:
    if {"-h", "--help"} & set(args):
        print(USAGE, end="")
        return 0
    from omp import RunStopped

    from omp_batch.engine import Interrupted, load_engine
    from omp_batch.layout import RESULTS
    from omp_batch.progress import make_progress
    from omp_batch.ratelimit import limits_from_settings
    from omp_batch.results import ResultLog, to_run
    from omp_batch.session_run import Job
    from omp_batch.tasks import load_tasks

    parsed = parse(args, ctx)
    tasks = load_tasks(parsed.tasks)
    engine = load_engine(parsed.engine, parsed.options)
    parsed.out.mkdir(parents=True, exist_ok=True)
    lock = _lock(parsed.out)
    log = ResultLog(parsed.out / RESULTS)
    ids = to_run([t.id for t in tasks], log.latest(), parsed.retry_failed)
    pending = [t for t in tasks if t.id in set(ids)]
    job = Job(
        out=str(parsed.out),
        flags=parsed.flags,
        trust=parsed.trust,
        keep_worktrees=parsed.keep_worktrees,
        cwd=str(ctx.cwd),
    )
    job.limiter = engine.limiter(job, limits_from_settings(ctx.settings))
    progress = make_progress(parsed.json, len(tasks), len(tasks) - len(pending))
    finished: dict[str, dict[str, Any]] = {}

    def report(kind: str, payload: Any) -> None:
        if kind == "finished":
            log.append(payload)  # durable before anything else hears of it
            finished[payload["id"]] = payload
            progress.finished(payload)
        elif kind == "started":
            progress.started(payload)

    started = time.perf_counter()
    try:
        with _stop_signals_interrupt() as received:
            if pending:
                engine.run(pending, job, report)
    except Interrupted:
        progress.close()
        unfinished = (None, "cancelled")
        left = [t.id for t in pending if finished.get(t.id, {}).get("status") in unfinished]
        cancelled = sum(1 for r in finished.values() if r["status"] == "cancelled")
        stopped = RunStopped(received[0] if received else signal.SIGINT)
        progress.interrupted(len(finished) - cancelled, cancelled, left, str(stopped))
        return stopped.exit_code
    finally:
        progress.close()
        os.close(lock)
    latest = log.latest()
    statuses = [latest.get(t.id, {}).get("status", "not run") for t in tasks]
    progress.summary(statuses, time.perf_counter() - started, str(log.path))
    return 0 if all(s == "done" for s in statuses) else 1


@contextmanager
def _stop_signals_interrupt() -> Iterator[list[int]]:
    """While the engine runs, SIGINT, SIGTERM and SIGHUP each raise KeyboardInterrupt,
    which engines answer by cancelling the running tasks (a ``cancelled`` line each,
    session files kept); the list yielded gets the first one's number, for the exit
    status. SIGINT is set whatever disposition the runner inherited: a background job
    of a non-interactive shell starts with it ignored, and Python then leaves it
    ignored (print mode sets its handlers the same way, ``omp.runtime.signals``). Worker
    processes set their own."""
    from omp import STOP_SIGNALS

    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if not received:
            received.append(signum)
        raise KeyboardInterrupt

    previous = {signum: signal.signal(signum, on_signal) for signum in STOP_SIGNALS}
    try:
        yield received
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _lock(out: Path) -> int:
    """One runner per DIR: a second one would run the same tasks twice. A POSIX record
    lock, which forked workers do not inherit: it ends with the runner itself."""
    import fcntl

    from omp_batch.layout import LOCK

    fd = os.open(out / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
        os.close(fd)
        raise OmpError(f"another omp batch (pid {holder}) is running on {out}") from None
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())
    return fd
