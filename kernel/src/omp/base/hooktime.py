"""Time limits for plugin handlers, and the user's interrupt that passes through them.

A plain ``def`` handler runs in the calling thread (a thread hop per handler would cost
more than most handlers do); on the main thread it runs under a ``setitimer`` timer
(two system calls, about 0.5 us), whose ``SIGALRM`` raises ``HookTimeout`` inside the
blocking code. (A watchdog thread that woke to check the clock cost far more: each time
it waited for the GIL, every release of the GIL by the main thread paid for waking it.)
An ``async def`` handler gets an ``asyncio.timeout`` only if it suspends (most
finish in their first step, and a timer per handler would dominate the dispatch cost).
A handler waiting for the user in a dialog (``ctx.ui.confirm`` and the others) has its
clock stopped meanwhile: asking the user is legitimate, and the dialog has its own
timeout.

The signal handlers of the run modes (``omp.runtime.signals``) raise ``Interrupted`` while a
plain ``def`` handler runs, so a blocking handler never stops Ctrl+C from ending a run;
the dispatcher lets ``Interrupted`` through where it contains everything else.
"""

from __future__ import annotations

import asyncio
import contextvars
import signal
import threading
import types
from collections.abc import Awaitable, Callable, Coroutine, Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")

DEFAULT_TIMEOUT_S = 30.0


def passes_through(exc: BaseException) -> bool:
    """Whether ``exc`` must end the work rather than be contained as a plugin's error:
    the user's interrupt, or a cancellation of the running task (plugin code raising
    CancelledError, SystemExit or KeyboardInterrupt itself is contained)."""
    if isinstance(exc, Interrupted):
        return True
    if isinstance(exc, asyncio.CancelledError):
        task = asyncio.current_task()
        return task is not None and task.cancelling() > 0
    return False


class PluginExit(Exception):
    """Plugin code raised SystemExit, KeyboardInterrupt or CancelledError itself; carried
    on as an ordinary error so that it cannot end the agent."""

    def __init__(self, exc: BaseException) -> None:
        text = str(exc).strip()
        super().__init__(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)


class HookTimeout(Exception):
    """A handler did not finish within its time limit."""

    def __init__(self, limit: float) -> None:
        super().__init__(f"did not finish within {limit:g} s (setting hookTimeoutMs)")


class Interrupted(KeyboardInterrupt):
    """The user's interrupt (or a termination signal), raised from a signal handler: it
    is never contained as a plugin's error."""


@dataclass
class HookTimeouts:
    """Seconds each handler of a hook may take; None means no limit."""

    default: float | None = DEFAULT_TIMEOUT_S
    per_hook: dict[str, float | None] = field(default_factory=dict)

    def of(self, hook_name: str) -> float | None:
        if not self.per_hook:
            return self.default
        return self.per_hook.get(hook_name.removeprefix("omp_"), self.default)

    @classmethod
    def from_settings(cls, settings: Any) -> HookTimeouts:
        """``hookTimeoutMs`` (default 30,000; 0 or null for none) and ``hookTimeouts``, a
        map of hook name (``tool_call`` or ``omp_tool_call``) to milliseconds."""
        default = _seconds(settings.get("hookTimeoutMs", DEFAULT_TIMEOUT_S * 1000))
        per_hook: dict[str, float | None] = {}
        overrides = settings.get("hookTimeouts") or {}
        if isinstance(overrides, Mapping):
            for name, value in overrides.items():
                per_hook[str(name).removeprefix("omp_")] = _seconds(value)
        return cls(default, per_hook)


def _seconds(milliseconds: Any) -> float | None:
    if milliseconds in (None, 0, False):
        return None
    try:
        value = float(milliseconds) / 1000
    except (TypeError, ValueError):
        return DEFAULT_TIMEOUT_S
    return value if value > 0 else None


# -- async handlers --------------------------------------------------------------------


class _Clock:
    """The time limit of the async handler running in this context."""

    __slots__ = ("left", "limit", "paused", "scope")

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.paused = 0
        self.left: float | None = None
        self.scope: Any = None


_clock: contextvars.ContextVar[_Clock | None] = contextvars.ContextVar(
    "omp_hook_clock", default=None
)


async def settle(limit: float | None, coro: Coroutine[Any, Any, T]) -> T:
    """Run a handler's coroutine to its end; HookTimeout after ``limit`` seconds (the
    clock starts only if the coroutine suspends, and stops while it waits for a dialog)."""
    if limit is None:
        return await coro
    clock = _Clock(limit)
    token = _clock.set(clock)
    try:
        try:
            first = coro.send(None)
        except StopIteration as stop:
            return stop.value
        clock.scope = asyncio.timeout(None if clock.paused else limit)
        try:
            async with clock.scope:
                return await _resume(coro, first)
        except TimeoutError:
            if clock.scope.expired():
                raise HookTimeout(limit) from None
            raise
    finally:
        _clock.reset(token)


@types.coroutine
def _resume(coro: Coroutine[Any, Any, T], pending: Any) -> Generator[Any, Any, T]:
    """Go on with a coroutine whose first step already ran and yielded ``pending``."""
    while True:
        try:
            yield pending
        except BaseException as exc:
            try:
                pending = coro.throw(exc)
            except StopIteration as stop:
                return stop.value
            continue
        return (yield from coro)


async def within(limit: float | None, awaitable: Awaitable[T]) -> T:
    """Await ``awaitable``; HookTimeout when it takes longer than ``limit`` seconds."""
    if limit is None:
        return await awaitable
    scope = asyncio.timeout(limit)
    try:
        async with scope:
            return await awaitable
    except TimeoutError:
        if scope.expired():
            raise HookTimeout(limit) from None
        raise


class paused_clock:
    """Stop the calling handler's clock while it waits for the user (a dialog)."""

    def __enter__(self) -> None:
        self.clock = clock = _clock.get()
        if clock is None:
            return
        clock.paused += 1
        scope = clock.scope
        if clock.paused == 1 and scope is not None and scope.when() is not None:
            clock.left = scope.when() - asyncio.get_running_loop().time()
            scope.reschedule(None)

    def __exit__(self, *exc: object) -> None:
        clock = self.clock
        if clock is None:
            return
        clock.paused -= 1
        scope = clock.scope
        if clock.paused == 0 and scope is not None and not scope.expired():
            left = clock.left if clock.left is not None else clock.limit
            scope.reschedule(asyncio.get_running_loop().time() + max(left, 0.0))


# -- plain def handlers ----------------------------------------------------------------

_MAIN_IDENT = threading.main_thread().ident
_main = {"depth": 0, "limit": 0.0}
"""The plain handler running on the main thread: nesting depth, and its time limit."""


def in_sync_handler() -> bool:
    """Whether a plain ``def`` handler is running on the main thread right now."""
    return _main["depth"] > 0


def run_sync(limit: float | None, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Call ``function``; on the main thread, HookTimeout once ``limit`` seconds pass."""
    if threading.get_ident() != _MAIN_IDENT:
        return function(*args, **kwargs)
    state = _main
    if state["depth"] or limit is None or not _alarm_ready():
        state["depth"] += 1
        try:
            return function(*args, **kwargs)
        finally:
            state["depth"] -= 1
    state["limit"] = limit
    state["depth"] = 1
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return function(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        state["depth"] = 0


_alarm: dict[str, bool] = {}


def _alarm_ready() -> bool:
    """Own SIGALRM, once, unless something else already does (then plain handlers run
    without a time limit rather than take the signal from its owner)."""
    ready = _alarm.get("ready")
    if ready is None:
        ready = hasattr(signal, "setitimer") and signal.getsignal(signal.SIGALRM) in (
            signal.SIG_DFL,
            None,
        )
        if ready:
            signal.signal(signal.SIGALRM, _on_alarm)
        _alarm["ready"] = ready
    return ready


def _on_alarm(signum: int, frame: Any) -> None:
    state = _main
    if state["depth"]:  # the timer is armed only while a plain handler runs
        raise HookTimeout(state["limit"])
