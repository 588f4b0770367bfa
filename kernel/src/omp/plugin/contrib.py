"""What registration hooks contribute besides tools and providers: flags, run modes,
command-line subcommands, slash commands, shortcuts, renderers, provider
configuration sources and tool checks. Plain dataclasses, cheap to import (they are built while
``omp --help`` runs)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from omp.agent.providers import Provider
    from omp.cli.subcommand_context import SubcommandContext
    from omp.config.settings import Settings

CommandSource = Literal["builtin", "extension", "file", "skill", "mcp_prompt"]
"""Where a slash command comes from (``Command.source``)."""


@dataclass(frozen=True)
class Flag:
    """A command-line flag. ``name`` is given without dashes (``seq-thoughts``); read the
    value back with ``api.get_flag(name)``."""

    name: str
    description: str = ""
    type: Literal["boolean", "string", "integer"] = "boolean"
    default: Any = None
    short: str | None = None
    metavar: str | None = None


@dataclass(frozen=True)
class RunMode:
    """A way to run a session. ``run(session, request)`` returns the process exit code
    (it may be async). The session arrives not yet started: subscribe to its events,
    then ``await session.start()`` (or just prompt). ``has_ui`` is what handlers see as
    ``ctx.has_ui``; ``make_ui`` builds the mode's ``omp.runtime.ui.UI`` for the session. A mode
    that ``reads_stdin`` (a protocol server) owns stdin: piped input is never taken
    for a prompt. A mode that does not ``takes_prompts`` (its client sends them) is
    refused prompt and ``@file`` arguments by the CLI before a session opens. With
    ``public_session`` the session ``run`` gets is the public ``omp.AgentSession``;
    without, it is the kernel's own session object, which is internal and will go. A
    public-session mode may instead put its UI in front of the session in ``run``
    (``session.attach_client(ui=...)``), as the interactive mode does."""

    name: str
    description: str
    run: Callable[[Any, Any], Awaitable[int] | int]
    has_ui: bool = False
    make_ui: Callable[[Any], Any] | None = None
    reads_stdin: bool = False
    takes_prompts: bool = True
    public_session: bool = False


@dataclass(frozen=True)
class Subcommand:
    """A command-line command family: ``omp NAME args...`` calls ``run(args, ctx)``
    with everything after NAME (its own flags included) and an ``omp.SubcommandContext``
    (directory, settings, the loaded plugins and what they registered); the result is
    the exit code (it may be async). Project code is not loaded when a known family
    runs; a command that runs sessions opens them with ``omp.create_session``."""

    name: str
    description: str
    run: Callable[[list[str], SubcommandContext], Awaitable[int] | int]


@dataclass(frozen=True)
class Command:
    """A slash command: ``/name args`` typed as input runs ``handler(args, ctx)``
    (sync or async) with a command context instead of prompting the model.
    ``source`` says where it comes from, as omp's command lists do (RPC's
    ``get_available_commands``): ``builtin``, ``extension`` (a plugin's own),
    ``file`` (a prompt template), ``skill``, ``mcp_prompt``."""

    name: str
    description: str
    handler: Callable[[str, Any], Any]
    argument_hint: str | None = None
    source: CommandSource = "extension"


@dataclass(frozen=True)
class Shortcut:
    """A key binding for interactive modes; ``handler(ctx)`` may be async."""

    key: str
    description: str
    handler: Callable[[Any], Any]


@dataclass(frozen=True)
class Renderer:
    """Renders a custom message type (kind "message") or a tool's call/result (kind
    "tool") in interactive modes. ``render(payload, options)`` returns lines of text."""

    kind: Literal["message", "tool"]
    name: str
    render: Callable[[Any, Any], Any]


def _no_problems(agent_dir: Path) -> list[str]:
    return []


def _none_unserved(agent_dir: Path, registered: list[Provider]) -> list[Provider]:
    return []


def _no_key_names(agent_dir: Path, env: Mapping[str, str]) -> frozenset[str]:
    return frozenset()


def _no_secrets(agent_dir: Path, env: Mapping[str, str]) -> list[tuple[str, str]]:
    return []


@dataclass(frozen=True)
class ProviderConfigSource:
    """The user's provider configuration as a plugin reads it (the llm plugin: models.json
    and auth.json), for what the kernel does with it without calling a provider.

    Each function gets the agent directory (``~/.omp/agent``); the default says nothing.
    ``problems`` are one-line reports of the files (printed by ``omp models`` and at
    start-up). ``unserved(agent_dir, registered)`` are providers the files configure that
    no registered provider serves, as providers that say why they cannot be used.
    ``key_names(agent_dir, env)`` are the environment variables holding provider keys:
    hidden everywhere, and withheld from children unless ``bash.passProviderKeys``.
    ``secrets(agent_dir, env)`` are (label, value) credentials the files hold, shown as
    ``[REDACTED:label]``."""

    name: str
    problems: Callable[[Path], list[str]] = _no_problems
    unserved: Callable[[Path, list[Provider]], list[Provider]] = _none_unserved
    key_names: Callable[[Path, Mapping[str, str]], frozenset[str]] = _no_key_names
    secrets: Callable[[Path, Mapping[str, str]], list[tuple[str, str]]] = _no_secrets


@dataclass(frozen=True)
class ToolCheck:
    """Whether a plugin's tools are offered in a directory, for ``omp plugins``,
    ``omp plugin list|info|doctor``: tools that work only where something exists (a
    language server for the workspace's languages, a debug adapter, an engine).

    ``tools`` names them (``"lsp"``, ``"ast_grep, ast_edit"``); ``unavailable(settings,
    cwd)`` returns why they are not offered there, with what would make them work, or
    None when they are. It is called outside any session, so it must be quick and start
    nothing."""

    tools: str
    unavailable: Callable[[Settings, Path], str | None]
