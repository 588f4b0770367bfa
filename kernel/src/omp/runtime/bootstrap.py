"""Assembling a runtime: settings -> plugins -> contributions -> model -> session.

The CLI goes through here, and so can anyone embedding omp: ``load_runtime`` gives
the plugins and what they registered, ``open_session`` the session to drive.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omp.base.errors import OmpError, UsageError
from omp.base.thinking import THINKING_LEVELS
from omp.config.schema import KERNEL
from omp.config.settings import Settings, agent_dir, load_settings
from omp.plugin.contrib import ProviderConfigSource
from omp.plugin.manager import PluginHost, build_plugin_host, project_extension_files
from omp.plugin.registry import Contributions, collect
from omp.runtime.api import OmpAPI
from omp.runtime.scoped_models import split_thinking

if TYPE_CHECKING:
    from omp.agent.providers import ModelRegistry

RUNTIME_KINDS = ["modes", "commands", "shortcuts", "renderers", "tools", "providers"]


@dataclass
class Runtime:
    cwd: Path
    agent_dir: Path
    settings: Settings
    host: PluginHost
    api: OmpAPI
    contributions: Contributions

    @property
    def modes(self) -> dict[str, Any]:
        return {m.name: m for m in self.contributions.of("modes")}


def load_runtime(
    *,
    cwd: Path,
    extension_paths: list[Path] | None = None,
    discover_extensions: bool = True,
    entry_points: bool = True,
    extra_plugins: list[Any] | None = None,
    kinds: list[str] | None = None,
    env: dict[str, str] | None = None,
    trust: bool = False,
    run_project_code: bool = True,
    settings: Settings | None = None,
    only: Collection[str] | None = None,
) -> Runtime:
    """Settings, plugins and their flags (plus ``kinds`` of contributions).

    The project's code and settings load only when the project is trusted (``trust``,
    or the user's ``trustedDirectories``), and never with ``run_project_code=False``;
    ``runtime.settings.trust`` says what was held back. ``settings`` given are used
    instead of the files; ``only`` names the installed plugins (entry points) to load,
    None for all of them.
    """
    env = dict(os.environ if env is None else env)
    if settings is None:
        settings = load_settings(cwd, env=env, trust=trust, apply_project=run_project_code)
    home = agent_dir(env)
    withheld = None
    if not settings.trust.trusted:
        withheld = "not loaded: this directory is not trusted (omp --trust loads it)"
    elif not run_project_code:
        withheld = "not loaded: this command never runs project code"
    if withheld and discover_extensions:
        settings.trust.skipped_files = project_extension_files(cwd)
    extensions = [cwd / Path(p).expanduser() for p in settings.get("extensions", []) or []]
    host = build_plugin_host(
        cwd=cwd,
        agent_dir=home,
        disabled=_disabled_plugins(settings) | _not_named(home, only),
        extension_paths=[*extensions, *(extension_paths or [])],
        discover=discover_extensions,
        entry_points=entry_points,
        extra_plugins=extra_plugins,
        project_code=withheld,
    )
    api = OmpAPI(cwd=cwd, agent_dir=home)
    contributions = collect(host, api, ["flags", "subcommands", "settings", *(kinds or [])])
    _declare_settings(settings, contributions)
    return Runtime(cwd, home, settings, host, api, contributions)


def _declare_settings(settings: Settings, contributions: Contributions) -> None:
    """Check the settings against the kernel's keys and those the loaded plugins declare."""
    schema, refused = KERNEL.with_plugins(contributions.items.get("settings", []))
    contributions.problems.extend(refused)
    settings.declare(schema)


def _not_named(home: Path, only: Collection[str] | None) -> set[str]:
    """The installed plugins ``only`` leaves out; an unknown name is an error."""
    if only is None:
        return set()
    from omp.plugin.index import entry_points
    from omp.plugin.manager import ENTRY_POINT_GROUP

    installed = {ep.name for ep in entry_points(ENTRY_POINT_GROUP, home / "cache")}
    unknown = sorted(set(only) - installed)
    if unknown:
        raise OmpError(
            f"no installed plugin is named {', '.join(map(repr, unknown))} "
            f"(installed: {', '.join(sorted(installed)) or 'none'})"
        )
    return installed - set(only)


def _disabled_plugins(settings: Settings) -> set[str]:
    """``disabledPlugins`` (omp's camelCase), also spelt ``disabled_plugins``."""
    names = [*(settings.get("disabledPlugins") or []), *(settings.get("disabled_plugins") or [])]
    return {str(name) for name in names}


@dataclass
class SessionOptions:
    model: str | None = None
    thinking: str | None = None
    tools: list[str] | None = None
    no_tools: bool = False
    no_builtin_tools: bool = False
    """Offer none of the tools of omp's own distributions (plugins' and extensions' stay)."""
    offline: bool = False
    """No network beyond the model: tools marked ``network`` are not offered."""
    provider: str | None = None
    """Pick the model within this provider (its first model without ``model``)."""
    models: list[str] | None = None
    """Patterns of the models to cycle through (else the ``enabledModels`` setting)."""
    continue_recent: bool = False
    resume: str | None = None
    session_path: str | None = None
    fork: str | None = None
    """A saved session (id prefix or path) to copy into a new session file."""
    no_session: bool = False
    session_dir: str | None = None
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    flags: dict[str, Any] = field(default_factory=dict)
    mode_name: str = "print"

    @classmethod
    def flag_fields(cls, values: dict[str, Any]) -> dict[str, Any]:
        """The fields omp's own command-line flags set, from the parsed flag values
        (the CLI's, or an SDK caller's ``cli_flags``)."""
        tools = values.get("tools")
        fields = {
            "model": values.get("model"),
            "thinking": values.get("thinking"),
            "tools": [t.strip() for t in tools.split(",") if t.strip()]
            if tools is not None
            else None,
            "no_tools": bool(values.get("no-tools")),
            "no_builtin_tools": bool(values.get("no-builtin-tools")),
            "offline": bool(values.get("offline")),
            "provider": values.get("provider"),
            "models": values.get("models"),
            "no_session": bool(values.get("no-session")),
            "session_dir": values.get("session-dir"),
            "system_prompt": values.get("system-prompt"),
            "append_system_prompt": values.get("append-system-prompt"),
        }
        return {name: value for name, value in fields.items() if value is not None}


def require_providers(runtime: Runtime) -> None:
    """Fail with one clear line when no plugin provides a model."""
    if not runtime.contributions.of("providers"):
        raise OmpError(
            "no providers are installed, so there is no model to talk to; install "
            "a provider plugin (pip install omp) or check `omp plugins`"
        )


def _select_model(
    runtime: Runtime,
    models: Any,
    options: SessionOptions,
    session_model: str | None,
    scoped: list[Any] | None = None,
) -> tuple[Any, str | None, list[str]]:
    """The model, a thinking level from a ``:level`` suffix, and notices to announce
    (every fallback from what was configured to something else is said out loud)."""
    settings = runtime.settings.data
    require_providers(runtime)
    api_key = options.flags.get("api-key")
    # A role (``@smol``) is its pattern; an unset role falls back to the default model.
    pattern = models.expand_role(options.model) if options.model else None
    unset_role = [f"model role {options.model} is not set"] if options.model and not pattern else []
    if options.provider:
        from omp.runtime.scoped_models import within_provider

        models = within_provider(models, options.provider)
        if not pattern and models.models:
            pattern = models.models[0].key
    requested = [
        (flag, provider)
        for provider in models.providers.values()
        if (flag := provider.requested_by(options.flags))
    ]
    if requested and not pattern:
        flag, provider = requested[0]
        pattern = provider.models[0].key if provider.models else provider.name
    if scoped and not pattern and not session_model:
        pattern = scoped[0].key
    if api_key and not pattern:
        raise UsageError("--api-key needs --model: name the model whose provider it is for")
    if pattern:
        pattern, thinking = split_thinking(pattern)
        model = models.resolve(pattern)
        provider = models.provider_of(model)
        for flag, wanted in requested:
            if wanted is not provider:
                raise UsageError(
                    f"{flag} selects the {wanted.name} provider, but --model names "
                    f"{model.key}; drop one of them"
                )
        if api_key:
            provider.cli_api_key = api_key
        reason = provider.unavailable_reason(settings)
        if reason:
            # A flag that chose the provider (``--script FILE``) named what is missing.
            error = UsageError if any(w is provider for _, w in requested) else OmpError
            raise error(f"model {model.key} cannot be used: {reason}")
        return model, thinking, []
    notices: list[str] = unset_role
    for label, candidate in (
        ("this session's model", session_model),
        ("the defaultModel setting", runtime.settings.get("defaultModel")),
    ):
        if not candidate:
            continue
        model = models.find(candidate)
        why = (
            "it is not installed"
            if model is None
            else models.provider_of(model).unavailable_reason(settings)
        )
        if not why:
            return model, None, _instead(notices, model)
        notices.append(f"{label} {candidate} cannot be used ({why})")
    model, reasons = models.default(settings)
    if model is None:
        raise OmpError("no provider can be used: " + "; ".join(reasons))
    return model, None, _instead(notices, model)


def _instead(notices: list[str], model: Any) -> list[str]:
    return [f"{n}; using {model.key} instead" for n in notices]


def model_registry(runtime: Runtime, flags: Mapping[str, Any] | None = None) -> ModelRegistry:
    """Every installed provider, plus the user's custom ones that cannot be served (what
    ``omp models`` lists); model roles from the settings and the run's ``flags``."""
    from omp.agent.model_roles import run_roles
    from omp.agent.providers import ModelRegistry

    providers = runtime.contributions.of("providers")
    unserved = [
        provider
        for source in provider_configs(runtime)
        for provider in source.unserved(runtime.agent_dir, list(providers))
    ]
    roles = run_roles(runtime.settings.get("modelRoles"), flags or {})
    return ModelRegistry([*providers, *unserved], roles=roles)


def provider_configs(runtime: Runtime) -> list[ProviderConfigSource]:
    """What plugins read of the user's provider configuration (omp.plugin.contrib
    ProviderConfigSource), collected on first use."""
    if "provider_configs" not in runtime.contributions.items:
        collect(runtime.host, runtime.api, ["provider_configs"], into=runtime.contributions)
    return runtime.contributions.of("provider_configs")


def provider_config_problems(runtime: Runtime) -> list[str]:
    """One line per problem of the user's provider configuration (a broken models.json);
    a source that fails says so instead."""
    from omp.plugin.manager import describe_failure

    problems: list[str] = []
    for source in provider_configs(runtime):
        try:
            problems += source.problems(runtime.agent_dir)
        except Exception as exc:
            problems.append(f"{source.name} could not be checked: {describe_failure(exc)}")
    return problems


def _open_session_file(runtime: Runtime, options: SessionOptions) -> Any:
    import uuid  # with platform, not for every start (omp --help)

    from omp.session.file import SessionFile
    from omp.session.store import find_session, most_recent, new_session_path, sessions_dir

    cwd = str(runtime.cwd)
    if options.no_session:
        return SessionFile.create(cwd, None)
    directory = sessions_dir(
        runtime.agent_dir, cwd, options.session_dir or runtime.settings.get("sessionDir")
    )
    if options.session_path:
        path = Path(options.session_path).expanduser()
        if not path.is_absolute():
            path = runtime.cwd / path
        if path.exists():
            return SessionFile.open(path)
        if is_session_path(options.session_path):
            return SessionFile.create(cwd, path)
        return SessionFile.open(find_session(directory, options.session_path))
    if options.resume:
        return SessionFile.open(find_session(directory, options.resume))
    if options.fork:
        given = Path(os.path.abspath(runtime.cwd / Path(options.fork).expanduser()))
        source = given if given.is_file() else find_session(directory, options.fork)
        # Read without the lock: forking a session another process is writing is the
        # way to go on from it without forking its file.
        parent = SessionFile.open(source, lock=False)
        session_id = str(uuid.uuid4())
        forked = parent.fork(cwd, new_session_path(directory, session_id), session_id=session_id)
        forked.ensure_on_disk()
        return forked
    if options.continue_recent:
        recent = most_recent(directory)
        if recent is not None:
            return SessionFile.open(recent)
    session_id = str(uuid.uuid4())
    return SessionFile.create(cwd, new_session_path(directory, session_id), session_id=session_id)


def is_session_path(raw: str | os.PathLike[str]) -> bool:
    """Whether ``--session`` names a file (a ``Path``, a path separator or ``.jsonl``:
    created when missing) rather than a saved session's id prefix."""
    if not isinstance(raw, str):
        return True
    return "/" in raw or os.sep in raw or raw.endswith(".jsonl") or raw.startswith("~")


def _tool_registry(runtime: Runtime, options: SessionOptions) -> Any:
    tools = runtime.contributions.tool_registry()
    if options.no_tools:
        tools.set_active([])
    elif options.tools is not None:
        tools.set_active(options.tools)
    elif options.no_builtin_tools:
        shipped = builtin_plugins(runtime)
        tools.set_active(n for n in tools.active_names() if tools.owner(n) not in shipped)
    if options.offline:
        tools.set_active(t.name for t in tools.active() if not t.network)
    return tools


def builtin_plugins(runtime: Runtime) -> set[str]:
    """Names of the plugins loaded from omp's own distributions (those the ``omp``
    distribution requires); none when omp is installed without it."""
    import re
    from importlib.metadata import PackageNotFoundError, requires

    try:
        wanted = requires("omp") or []
    except PackageNotFoundError:
        return set()
    shipped = {_normal(re.split(r"[\s<>=!~;\[(]", line, maxsplit=1)[0]) for line in wanted}
    return {
        record.name
        for record in runtime.host.records
        if record.source.startswith("entry point (")
        and _normal(record.source[len("entry point (") : -1]) in shipped
    }


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def scoped_models(runtime: Runtime, models: Any, options: SessionOptions) -> list[Any]:
    """``--models`` (else the ``enabledModels`` setting), resolved; [] when neither."""
    from omp.runtime.scoped_models import resolve_scoped, split_patterns

    if options.models is not None:
        return resolve_scoped(models, split_patterns(options.models), "--models")
    setting = split_patterns(runtime.settings.get("enabledModels"))
    return resolve_scoped(models, setting, "the enabledModels setting") if setting else []


def _know_secrets(runtime: Runtime, models: Any, options: SessionOptions) -> None:
    """Fill the runtime's secrets (omp.config.secrets) before anything can print one, and let
    each provider add the key it resolves on use (a ``!command``'s output)."""
    from omp.config.secrets import collect_secrets

    secrets = runtime.api.secrets
    collect_secrets(
        secrets,
        runtime.agent_dir,
        cli_key=options.flags.get("api-key"),
        settings=runtime.settings,
        sources=provider_configs(runtime),
    )
    for provider in models.providers.values():
        if hasattr(provider, "known_secrets"):
            provider.known_secrets = secrets


def open_session(
    runtime: Runtime, options: SessionOptions, *, ui: Any = None, has_ui: bool = False
) -> Any:
    """Everything a run needs, as an AgentSession (not yet started)."""
    from omp.runtime.session import AgentSession
    from omp.runtime.system_prompt import build_system_prompt, read_text_or_file

    contributions = runtime.contributions
    runtime.api._set_flags(options.flags)
    models = model_registry(runtime, options.flags)
    tools = _tool_registry(runtime, options)
    scoped = scoped_models(runtime, models, options)
    session_file = _open_session_file(runtime, options)
    state = session_file.build_context()
    model, suffix_level, notices = _select_model(runtime, models, options, state.model, scoped)
    _know_secrets(runtime, models, options)
    thinking = (
        options.thinking
        or suffix_level
        or state.thinking_level
        or runtime.settings.get("defaultThinkingLevel")
        or "off"
    )
    if thinking not in THINKING_LEVELS:
        raise UsageError(
            f"unknown thinking level {thinking!r}; use one of " + ", ".join(THINKING_LEVELS)
        )
    sections = build_system_prompt(
        cwd=runtime.cwd,
        agent_dir=runtime.agent_dir,
        tools=[(t.name, t.description) for t in tools.active()],
        replace=read_text_or_file(options.system_prompt, runtime.cwd)
        if options.system_prompt
        else None,
        append=read_text_or_file(options.append_system_prompt, runtime.cwd)
        if options.append_system_prompt
        else None,
        context_files=not options.flags.get("no-context-files")
        and runtime.settings.get("contextFiles.enabled", True) is not False,
    )
    session = AgentSession(
        pm=runtime.host.pm,
        settings=runtime.settings,
        session_file=session_file,
        models=models,
        tools=tools,
        model=model,
        commands={c.name: c for c in contributions.of("commands")},
        flags=options.flags,
        cwd=str(runtime.cwd),
        system_prompt_sections=sections,
        api=runtime.api,
        mode_name=options.mode_name,
        has_ui=has_ui,
        ui=ui,
        thinking_level=thinking,
        renderers={(r.kind, r.name): r for r in contributions.of("renderers")},
        restored=state,
        shortcuts={s.key: s for s in contributions.of("shortcuts")},
    )
    session.startup_notices.extend(notices)
    session.scoped_models = scoped
    session.runtime = runtime
    if thinking != (state.thinking_level or "off"):
        session_file.append_thinking_level_change(thinking)
    return session
