"""A kit for testing omp and omp plugins, registered as a pytest plugin (``omp_harness``).

    def test_my_plugin(omp_harness):
        session = omp_harness.session(plugins=[MyPlugin()], script=[{"text": "hi"}])
        events = omp_harness.run(session, "hello")
        assert events.final_text() == "hi"

The harness builds a fresh runtime per call (plugins from entry points plus the
in-process ones given), keeps the agent directory and the working directory inside
pytest's tmp_path, and replays scripts through the ``scripted`` provider plugin.
``builtins=["read"]`` loads only the installed plugins named (and ``scripted`` when a
script is given), so a test does not change when another plugin is installed.
Importing this module is cheap; the kernel's heavy modules load when used.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from omp.base import partial_json as _partial_json
from omp.runtime.ui import EventUI

if TYPE_CHECKING:
    from omp.config.settings import Settings

PROVIDER_KEYS = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENROUTER_API_KEY",
    "GROQ_API_KEY",
    "XAI_API_KEY",
    "MISTRAL_API_KEY",
    "DEEPSEEK_API_KEY",
    "CEREBRAS_API_KEY",
)
"""Removed from the environment of every harness: tests must never reach a real model."""


class EventLog(list[Any]):
    """Events a run produced, in order, with small helpers for assertions."""

    def of(self, kind: str) -> list[Any]:
        return [e for e in self if e.type == kind]

    def types(self) -> list[str]:
        return [e.type for e in self]

    def final_text(self) -> str:
        ends = [e.message for e in self.of("message_end") if e.message.role == "assistant"]
        return ends[-1].text if ends else ""

    def __repr__(self) -> str:
        # asyncio.run's end formats the finished task with its result (a SIGINT handler
        # check in CPython's signal module): the events of a long run, each carrying a
        # partial message, took minutes to repr.
        return f"<EventLog of {len(self)} events>"


class HookRecorder:
    """A plugin that records every event hook call as (hook name, event)."""

    def __init__(self) -> None:
        import omp
        from omp.plugin import specs as hookspecs

        self.calls: list[tuple[str, Any]] = []
        for name in dir(hookspecs):
            if name.startswith("omp_") and not name.startswith("omp_register_"):
                setattr(self, name, omp.hookimpl(self._recorder(name)))

    def _recorder(self, name: str) -> Callable[[Any], None]:
        def record(event: Any) -> None:
            self.calls.append((name, event))

        record.__name__ = name
        return record

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]


CUT_OFF_TEXT: str = _partial_json.CUT_OFF_TEXT
"""A tool call's ``arguments_error`` (and the result the model gets) when a provider's
stream ended before the call's arguments were complete: the call is not run."""
EXTRA_CLOSERS: str = _partial_json.EXTRA_CLOSERS
"""A tool call's ``arguments_repair`` when closing brackets repeated after the arguments
object were dropped."""
CONTROL_CHARACTERS: str = _partial_json.CONTROL_CHARACTERS
"""A tool call's ``arguments_repair`` when raw control characters inside strings were
accepted."""
ENCODED_OBJECT: str = _partial_json.ENCODED_OBJECT
"""A tool call's ``arguments_repair`` when the arguments object came as a JSON string."""


def settings_with(overrides: Mapping[str, Any]) -> Settings:
    """The default settings with ``overrides`` merged over them as a settings file's
    would be (objects merge, other values replace): a tool's ``ctx.settings`` in a test."""
    from omp.config.settings import DEFAULTS, Settings, deep_merge

    return Settings(deep_merge(DEFAULTS, overrides))


def patched_payload(payload: Any, result: Any) -> Any:
    """``payload`` as the kernel sends it on after an ``omp_before_provider_request``
    handler returned ``result`` (``{"patch": {...}}``, ``{"payload": new}`` or the new
    payload itself): to test what a provider sends once handlers have had their say."""
    from omp.agent.events import patched_payload as apply

    return apply(payload, result)


class DiskFaults:
    """Breaks the writes of file contents made by ``omp.write_file`` and ``omp.replacing``,
    to test what a tool reports when the disk fails (use the ``omp_disk_faults`` fixture).

    ``write(fd, data)`` is the real low-level write; ``inject(fault)`` makes every such
    write call ``fault(fd, data)`` instead until the test ends (or ``monkeypatch.undo()``);
    ``spare_recovery()`` keeps the recovery copy of a file written in place (what ``omp
    recover`` restores) on the real write, so that only the writes into the file break."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from omp.config import atomic_write

        self._monkeypatch = monkeypatch
        self.write: Callable[[int, bytes], None] = atomic_write._write_all

    def inject(self, fault: Callable[[int, bytes], None]) -> None:
        from omp.config import atomic_write

        self._monkeypatch.setattr(atomic_write, "_write_all", fault)

    def spare_recovery(self) -> None:
        import contextlib
        from types import SimpleNamespace

        from omp.config import atomic_write, recovery

        original, write = atomic_write.replacing, self.write

        @contextlib.contextmanager
        def replacing(*args: Any, **kwargs: Any) -> Iterator[Any]:
            with original(*args, **kwargs) as out:
                yield SimpleNamespace(path=out.path, write=lambda data: write(out.fd, data))

        self._monkeypatch.setattr(recovery, "replacing", replacing)


def write_script(path: Path, steps: Iterable[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(step) + "\n" for step in steps), encoding="utf-8")
    return path


class Harness:
    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = tmp_path
        self.agent_dir = tmp_path / "agent"
        self.cwd = tmp_path / "work"
        self.cwd.mkdir(exist_ok=True)
        self.agent_dir.mkdir(exist_ok=True)
        monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(self.agent_dir))
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        for name in (
            "OMP_MODEL",
            "OMP_SCRIPT",
            "OMP_SETTINGS",
            "OMP_DISABLED_PLUGINS",
            *PROVIDER_KEYS,
        ):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")  # no local model server either
        self._scripts = 0

    def script(self, steps: Iterable[dict[str, Any]]) -> Path:
        self._scripts += 1
        return write_script(self.root / f"script-{self._scripts}.jsonl", steps)

    def runtime(
        self,
        plugins: Iterable[Any] = (),
        *,
        entry_points: bool = True,
        extensions: Iterable[Path] = (),
        discover: bool = True,
        builtins: Iterable[str] | None = None,
    ) -> Any:
        """A fresh runtime: the installed plugins (unless ``entry_points=False``) and
        ``plugins`` (modules or objects with ``@omp.hookimpl`` methods). A plugin module
        that is also installed through its entry point is registered once, so a plugin
        project's tests pass both before and after ``pip install -e .``.

        ``builtins`` names the installed plugins to load (``["read", "scripted"]``), so
        a test does not depend on what else is installed; None loads all of them."""
        from omp.runtime.bootstrap import RUNTIME_KINDS, load_runtime

        plugins = list(plugins)
        if entry_points:
            plugins = [p for p in plugins if not _installed_module(p)]
        runtime = load_runtime(
            cwd=self.cwd,
            extension_paths=list(extensions),
            discover_extensions=discover,
            entry_points=entry_points,
            extra_plugins=plugins,
            kinds=RUNTIME_KINDS,
            only=None if builtins is None else list(builtins),
        )
        runtime.host.pm.check_pending()
        return runtime

    def run_subcommand(
        self,
        name: str,
        *args: str,
        plugins: Iterable[Any] = (),
        builtins: Iterable[str] | None = None,
    ) -> int:
        """Run ``omp NAME ARGS...`` as the CLI does: the subcommand ``name`` a plugin
        registered gets ``args`` and an ``omp.SubcommandContext`` over a fresh runtime
        (``plugins`` and ``builtins`` as for ``runtime``); its exit code, awaited when
        ``run`` is async. What it prints is left to ``capsys``."""
        import inspect

        from omp.cli.subcommand_context import SubcommandContext

        runtime = self.runtime(plugins, builtins=builtins)
        commands = {c.name: c for c in runtime.contributions.of("subcommands")}
        if name not in commands:
            raise LookupError(f"no plugin registers `omp {name}` (have: {sorted(commands)})")
        outcome = commands[name].run(list(args), SubcommandContext(runtime))
        if inspect.isawaitable(outcome):
            outcome = asyncio.run(_awaited(outcome))
        return int(outcome or 0)

    def session(
        self,
        plugins: Iterable[Any] = (),
        *,
        script: Iterable[dict[str, Any]] = (),
        runtime: Any = None,
        ui_answers: Iterable[Any] | None = None,
        builtins: Iterable[str] | None = None,
        **options: Any,
    ) -> Any:
        """An AgentSession (not started). ``options`` are SessionOptions fields; the
        session is in memory unless ``no_session=False`` or a session path is given.
        With ``ui_answers`` the session has a UI (``ctx.has_ui``) whose dialogs answer
        from that list (see ``ScriptedUI``); without, dialogs take their default.
        ``builtins``: the installed plugins to load (see ``runtime``); the scripted
        provider is added to them when a ``script`` is given."""
        from omp.runtime.bootstrap import SessionOptions, open_session

        steps = list(script)
        if builtins is not None and steps:
            builtins = [*builtins, "scripted"]
        runtime = runtime or self.runtime(plugins, builtins=builtins)
        flags = dict(options.pop("flags", {}))
        if steps:
            flags["script"] = str(self.script(steps))
        options.setdefault(
            "no_session",
            not (
                options.get("session_path")
                or options.get("resume")
                or options.get("continue_recent")
            ),
        )
        if options.get("no_session") is False:
            options.pop("no_session")
        session = open_session(runtime, SessionOptions(flags=flags, **options))
        if ui_answers is None:
            session.ui = EventUI(session)  # ctx.ui.notify() becomes a notice event
        else:
            session.ui = ScriptedUI(session, ui_answers)
            session.has_ui = True
        return session

    def run(
        self, session: Any, *prompts: str, during: Callable[[Any], Any] | None = None
    ) -> EventLog:
        """Start the session, run each prompt to the end, shut down; the events."""
        return asyncio.run(self.arun(session, *prompts, during=during))

    async def arun(
        self, session: Any, *prompts: str, during: Callable[[Any], Any] | None = None
    ) -> EventLog:
        log = EventLog()
        session.subscribe(log.append)
        await session.start()
        for prompt in prompts:
            work = asyncio.ensure_future(session.prompt(prompt))
            if during is not None:
                outcome = during(session)
                if asyncio.iscoroutine(outcome):
                    await outcome
            await work
            await session.wait_for_idle()
        await session.shutdown()
        return log


async def _awaited(outcome: Any) -> Any:
    return await outcome


def _installed_module(plugin: Any) -> bool:
    """Whether ``plugin`` is a module an ``omp.plugins`` entry point already loads."""
    import importlib.metadata
    import types

    if not isinstance(plugin, types.ModuleType):
        return False
    loaded = {ep.value.split(":")[0] for ep in importlib.metadata.entry_points(group="omp.plugins")}
    return plugin.__name__ in loaded


class ScriptedUI(EventUI):
    """A UI for tests: each dialog takes the next of ``answers`` and is recorded in
    ``requests`` as ``(kind, title)``; ``TIMEOUT`` as an answer never answers (the
    dialog's timeout decides). Notifications become notice events."""

    TIMEOUT = object()

    def __init__(self, session: Any, answers: Iterable[Any]) -> None:
        super().__init__(session)
        self.answers = list(answers)
        self.requests: list[tuple[str, str]] = []

    async def _next(self, kind: str, title: str) -> Any:
        self.requests.append((kind, title))
        answer = self.answers.pop(0) if self.answers else None
        if answer is ScriptedUI.TIMEOUT:
            await asyncio.Event().wait()
        return answer

    async def _ask_select(self, title: str, options: list[Any]) -> Any:
        return await self._next("select", title)

    async def _ask_confirm(self, title: str, message: str) -> Any:
        return await self._next("confirm", title)

    async def _ask_input(self, title: str, placeholder: str) -> Any:
        return await self._next("input", title)

    async def _ask_editor(self, title: str, prefill: str) -> Any:
        return await self._next("editor", title)


@pytest.fixture
def omp_disk_faults(monkeypatch: pytest.MonkeyPatch) -> DiskFaults:
    """A DiskFaults whose injected faults end with the test."""
    return DiskFaults(monkeypatch)


@pytest.fixture
def omp_harness(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Harness:
    """A Harness whose agent directory and cwd live in tmp_path."""
    return Harness(tmp_path, monkeypatch)
