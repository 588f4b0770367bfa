"""``SubcommandContext``: what ``omp NAME args...`` hands a plugin's subcommand.

A subcommand family (``omp plugin``, ``omp sessions``, ``omp acp``, a third party's
``omp deploy``) gets the directory, the settings and what the loaded plugins
contributed, never the kernel's runtime: the runtime is how the kernel wires a run, and
changes with it. A subcommand that runs sessions opens them with ``omp.create_session``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omp.agent.providers import ModelRegistry
    from omp.cli.args import ParsedArgs
    from omp.config.settings import Settings
    from omp.plugin.contrib import Flag, ProviderConfigSource
    from omp.plugin.manager import PluginRecord
    from omp.runtime.bootstrap import Runtime


@dataclass
class Registrations:
    """What one registration hook returned, asked again of every loaded plugin:
    ``items`` are (plugin name, contribution) pairs in call order, duplicates included
    (the kernel keeps one of each name; this shows who claimed what), ``failures``
    (plugin name, what it raised) for each plugin whose hook raised."""

    items: list[tuple[str, Any]] = field(default_factory=list)
    failures: list[tuple[str, BaseException]] = field(default_factory=list)


class SubcommandContext:
    """What a ``Subcommand``'s ``run(args, ctx)`` gets besides its arguments.

    The plugins are loaded without the project's code (a command family never runs
    it, trusted or not); ``settings`` are the user's, with the project's file only
    when the directory is trusted.
    """

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime

    @classmethod
    def load(cls, cwd: str | Path | None = None) -> SubcommandContext:
        """The context ``omp`` would give a subcommand run in ``cwd`` (default: the
        current directory): every installed, enabled plugin, no project code. For a
        check in a fresh process (``omp plugin add`` probes what it installed)."""
        from omp.runtime.bootstrap import RUNTIME_KINDS, load_runtime

        folder = Path.cwd() if cwd is None else Path(cwd)
        return cls(load_runtime(cwd=folder, kinds=RUNTIME_KINDS, run_project_code=False))

    @property
    def cwd(self) -> Path:
        """The directory omp runs in (``--cwd``, else the current directory)."""
        return self._runtime.cwd

    @property
    def agent_dir(self) -> Path:
        """omp's own directory (``~/.omp/agent``, or ``OMP_CODING_AGENT_DIR``)."""
        return self._runtime.agent_dir

    @property
    def settings(self) -> Settings:
        """The merged settings, checked against the kernel's and the plugins' keys."""
        return self._runtime.settings

    @property
    def trusted(self) -> bool:
        """Whether the user trusts ``cwd`` (its settings applied, its code may run)."""
        return self._runtime.settings.trust.trusted

    @property
    def sessions_dir(self) -> Path:
        """Where this directory's sessions are saved (``sessionDir`` honoured)."""
        from omp.session.store import sessions_dir

        return sessions_dir(self.agent_dir, str(self.cwd), self.settings.get("sessionDir"))

    @property
    def flags(self) -> list[Flag]:
        """The flags the loaded plugins registered (omp's own are not listed)."""
        flags: list[Flag] = self._runtime.contributions.of("flags")
        return flags

    @property
    def plugins(self) -> list[PluginRecord]:
        """Every plugin omp knows of in this run, in load order, failed and disabled
        ones included (``status`` says which)."""
        return self._runtime.host.records

    @property
    def problems(self) -> list[str]:
        """What the kernel refused of the plugins' contributions, one line each (a
        duplicate name, a malformed item, a setting declared twice)."""
        return self._runtime.contributions.problems

    def parse_flags(self, args: Sequence[str]) -> ParsedArgs:
        """``args`` read as omp's command line (its flags and the plugins'); the words
        that are no flag are in ``messages``. A bad flag raises ``UsageError``."""
        from omp.cli.args import parse

        return parse(args, self.flags)

    def registrations(self, hook: str) -> Registrations:
        """Ask every loaded plugin's registration hook ``hook`` (``omp_register_tools``,
        ``omp_register_commands``, ...) again; see ``Registrations``."""
        from omp.plugin.registry import collect_registrations

        found = Registrations()

        def failed(plugin: str, exc: BaseException) -> None:
            found.failures.append((plugin, exc))

        runtime = self._runtime
        found.items = collect_registrations(runtime.host.pm, hook, runtime.api, failed)
        return found

    def tool_checks(self) -> list[tuple[str, str, str | None]]:
        """Whether each plugin's checked tools are offered in ``cwd``: (plugin, tools,
        why not, or None when they are), from the ``omp.ToolCheck`` objects of
        ``omp_register_tool_checks``, in load order. A check that raises gives its error
        as the reason."""
        from omp.plugin.contrib import ToolCheck
        from omp.plugin.manager import describe_failure

        found: list[tuple[str, str, str | None]] = []
        for plugin, check in self.registrations("omp_register_tool_checks").items:
            if not isinstance(check, ToolCheck):
                wrong = f"{type(check).__name__} is not an omp.ToolCheck"
                found.append((plugin, "?", f"omp_register_tool_checks returned {wrong}"))
                continue
            try:
                reason = check.unavailable(self.settings, self.cwd)
            except Exception as exc:  # a plugin's check: reported, never fatal
                reason = f"its check failed: {describe_failure(exc)}"
            found.append((plugin, check.tools, reason))
        return found

    def project_extension_files(self) -> list[Path]:
        """The extension files ``cwd`` holds (``.omp/extensions/``), loaded by a run
        in a trusted directory and never by a subcommand."""
        from omp.plugin.manager import project_extension_files

        return project_extension_files(self.cwd)

    def search_backend_line(self) -> str | None:
        """Which ``omp_search`` backend answers first, e.g. ``search backend: natives
        (then search)``; None when no plugin implements it. A backend module may define
        ``search_backend_status(settings)``, giving why it stands aside now (None when
        it answers)."""
        from omp.plugin.manager import call_order

        active: list[str] = []
        aside: list[str] = []
        for impl in call_order(self._runtime.host.pm, "omp_search"):
            status = getattr(impl.plugin, "search_backend_status", None)
            reason = status(self.settings) if callable(status) else None
            if reason:
                aside.append(f"{impl.plugin_name} stands aside: {reason}")
            else:
                active.append(impl.plugin_name)
        if not active:
            return None
        notes = [f"then {', '.join(active[1:])}"] if len(active) > 1 else []
        notes += aside
        return f"search backend: {active[0]}" + (f" ({'; '.join(notes)})" if notes else "")

    def model_registry(self) -> ModelRegistry:
        """Every installed provider's models, and the user's custom providers."""
        from omp.runtime.bootstrap import model_registry

        registry: ModelRegistry = model_registry(self._runtime)
        return registry

    def provider_configs(self) -> list[ProviderConfigSource]:
        """What plugins read of the user's provider configuration (models.json,
        auth.json): pass them to ``omp.known_secrets`` to redact what they hold."""
        from omp.runtime.bootstrap import provider_configs

        return provider_configs(self._runtime)

    def find_session(self, raw: str) -> Path:
        """The session file a SESSION argument names, as ``omp --session`` reads it:
        an existing file (relative to ``cwd``), else an id prefix among this
        directory's sessions. A path that does not exist raises ``UsageError``; an
        unknown or ambiguous prefix ``OmpError``."""
        from omp.base.errors import UsageError
        from omp.runtime.bootstrap import is_session_path
        from omp.session.store import find_session

        path = self.cwd / Path(raw).expanduser()
        if os.path.lexists(path):
            return path
        if is_session_path(raw):
            raise UsageError(f"no session file {raw}")
        return find_session(self.sessions_dir, raw)
