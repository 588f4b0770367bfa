"""The SDK: create and drive an omp session from your own Python program (omp's
``createAgentSession``)::

    async with omp.create_session(session="memory") as session:
        answer = await session.prompt("What is in this repository?")
        print(answer.text if answer else "")

``create_session`` builds the session as the CLI does (settings, plugins, model,
tools, session file); ``AgentSession`` is the public face of the running session.
Every error is an ``OmpError`` whose message is one line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from omp.base.errors import OmpError
from omp.base.thinking import ThinkingLevel
from omp.runtime import prompting  # noqa: F401  (loaded before a batch forks)
from omp.runtime.bootstrap import (
    RUNTIME_KINDS,
    SessionOptions,
    is_session_path,
    load_runtime,
    open_session,
)
from omp.runtime.sdk_session import AgentSession

if TYPE_CHECKING:
    from omp.agent.providers import Model
    from omp.config.settings import Settings
    from omp.runtime.bootstrap import Runtime
    from omp.runtime.ui import UI

SessionChoice = Literal["new", "continue", "memory"]
"""A new session file, this directory's most recent session, or no file at all. Any
other ``session=`` value is a session file (a ``Path``, or a string with a path
separator or ending in ``.jsonl``: created when missing) or a saved session's id prefix."""


class SessionOpener:
    """What ``create_session`` returns: await it for the session, or use it with
    ``async with`` to dispose of the session at the end of the block."""

    def __init__(self, build: Callable[[], AgentSession]) -> None:
        self._build = build
        self._session: AgentSession | None = None

    async def _open(self) -> AgentSession:
        import asyncio

        # Loading plugins and reading the session file take a while: the event loop
        # goes on meanwhile (an ACP server answers its other sessions).
        return await asyncio.to_thread(self._build)

    def __await__(self) -> Generator[Any, None, AgentSession]:
        return self._open().__await__()

    async def __aenter__(self) -> AgentSession:
        self._session = await self._open()
        return self._session

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._session is not None:
            await self._session.dispose()


def create_session(
    *,
    cwd: str | os.PathLike[str] | None = None,
    agent_dir: str | os.PathLike[str] | None = None,
    model: str | Model | None = None,
    thinking: ThinkingLevel | None = None,
    tools: Sequence[str] | None = None,
    settings: Mapping[str, Any] | None = None,
    discover_settings: bool = True,
    session: SessionChoice | str | os.PathLike[str] = "new",
    plugins: Sequence[str] | None = None,
    extra_plugins: Sequence[object] = (),
    extensions: Sequence[str | os.PathLike[str]] = (),
    discover_extensions: bool = True,
    flags: Mapping[str, Any] | None = None,
    cli_flags: Mapping[str, Any] | None = None,
    ui: UI | None = None,
    trust: bool = False,
    system_prompt: str | None = None,
    append_system_prompt: str | None = None,
    mode: str = "sdk",
) -> SessionOpener:
    """A session built as the CLI builds one; await the result, or ``async with`` it.

    Omitted options are discovered as ``omp`` does: ``cwd`` the current directory,
    ``agent_dir`` ``$OMP_CODING_AGENT_DIR`` or ``~/.omp/agent``, settings from the
    user's and the project's files and the environment (``settings`` given are merged
    on top and validated; ``discover_settings=False`` uses only them), every installed
    plugin (``plugins`` names the ones to load; ``extra_plugins`` are objects with
    ``@omp.hookimpl`` methods; extension files load as ``discover_extensions`` and
    ``extensions`` say), the model from the settings, a new session file. A plugin that
    failed to load is a warning ``notice`` event when the session starts.
    ``tools`` names the active tools; ``flags`` are the plugins' CLI flags by name
    (``{"script": "answers.jsonl"}``); ``cli_flags`` are the values of an ``omp``
    command line by name, omp's own flags included (a run mode's ``session.flags``):
    the session opens as ``omp`` opens it with those flags, the other keywords given
    winning over them. ``ui`` answers plugins' dialogs (without one,
    ``ctx.ui.notify`` becomes a ``notice`` event). The project's code and settings
    load only when it is trusted (``trust``, or the user's ``trustedDirectories``).
    ``mode`` is what ``ctx.mode`` tells plugins.
    """

    def build() -> AgentSession:
        from omp.runtime.ui import EventUI

        folder = Path(os.path.abspath(cwd if cwd is not None else os.getcwd()))
        if not folder.is_dir():
            raise OmpError(f"cwd {folder} is not a directory")
        env = dict(os.environ)
        if agent_dir is not None:
            env["OMP_CODING_AGENT_DIR"] = str(Path(agent_dir).expanduser().absolute())
        runtime = load_runtime(
            cwd=folder,
            extension_paths=[folder / Path(p).expanduser() for p in extensions],
            discover_extensions=discover_extensions,
            extra_plugins=list(extra_plugins),
            kinds=RUNTIME_KINDS,
            env=env,
            trust=trust,
            settings=_settings(folder, env, settings, discover_settings, trust),
            only=plugins,
        )
        cli = dict(cli_flags or {})
        options = SessionOptions(
            **{
                **SessionOptions.flag_fields(cli),
                **_given(
                    model=model if model is None or isinstance(model, str) else model.key,
                    thinking=thinking,
                    tools=list(tools) if tools is not None else None,
                    system_prompt=system_prompt,
                    append_system_prompt=append_system_prompt,
                ),
                **_where(session),
            },
            flags={**flag_values(runtime, {}), **cli, **_known(runtime, flags or {})},
            mode_name=mode,
        )
        opened = open_session(runtime, options, ui=ui, has_ui=ui is not None)
        opened.startup_notices.extend(_plugin_problems(runtime))
        if ui is None:
            opened.ui = EventUI(opened)
        return AgentSession(opened)

    return SessionOpener(build)


def _plugin_problems(runtime: Runtime) -> list[str]:
    """What the CLI prints on stderr about plugins, for the session's first notices."""
    failed = [
        f"plugin {r.name} ({r.source}) was not loaded: {r.error}" for r in runtime.host.failures()
    ]
    return [*failed, *runtime.contributions.problems]


def _settings(
    cwd: Path,
    env: Mapping[str, str],
    given: Mapping[str, Any] | None,
    discover: bool,
    trust: bool,
) -> Settings:
    from omp.config.settings import Settings, load_settings
    from omp.config.trust import ProjectTrust

    if discover:
        found = load_settings(cwd, env=env, trust=trust)
    else:
        found = Settings(trust=ProjectTrust(cwd, trusted=trust))
    return found.with_overrides(given) if given else found


def _given(**values: Any) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value is not None}


def _where(session: SessionChoice | str | os.PathLike[str]) -> dict[str, Any]:
    """``SessionOptions`` fields for a ``session=`` value."""
    if session == "memory":
        return {"no_session": True}
    if session == "new":
        return {}
    if session == "continue":
        return {"continue_recent": True}
    if is_session_path(session):
        return {"session_path": os.fspath(session)}
    return {"resume": str(session)}


def _known(runtime: Runtime, given: Mapping[str, Any]) -> dict[str, Any]:
    """``given`` plugin flags, once each is known to be declared."""
    flag_values(runtime, given)
    return dict(given)


def flag_values(runtime: Runtime, given: Mapping[str, Any]) -> dict[str, Any]:
    """Every plugin flag's value: its default unless ``given``; a flag no plugin
    declares is an error naming those that exist."""
    declared = {f.name: f for f in runtime.contributions.of("flags")}
    values = {name: flag.default for name, flag in declared.items()}
    for name, value in given.items():
        if name not in declared:
            known = ", ".join(sorted(declared)) or "none"
            raise OmpError(f"unknown flag {name!r} (plugin flags: {known})")
        values[name] = value
    return values
