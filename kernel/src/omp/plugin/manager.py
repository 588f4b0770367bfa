"""Building the plugin manager: entry-point plugins and single-file extensions.

Entry points of group ``omp.plugins`` are loaded one at a time; a plugin that fails to
import or to validate is recorded with its reason and everything else loads (set
``OMP_STRICT_PLUGINS=1`` to make that fatal while developing a plugin). Built-in
plugins take exactly this path too. A manager is built per run, never at import time.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy

from omp.base.errors import OmpError

ENTRY_POINT_GROUP = "omp.plugins"


@dataclass
class PluginRecord:
    """One plugin as this run loaded it: its name, where it came from (``entry point
    DIST``, ``extension FILE``, ...), its version, ``status`` (loaded, degraded, failed
    or disabled), why not (``error``) and the hooks it implements."""

    name: str
    source: str
    version: str = ""
    status: str = "loaded"
    error: str | None = None
    hooks: list[str] = field(default_factory=list)


@dataclass
class PluginHost:
    pm: pluggy.PluginManager
    records: list[PluginRecord] = field(default_factory=list)

    def failures(self) -> list[PluginRecord]:
        return [r for r in self.records if r.status == "failed"]


def call_order(pm: pluggy.PluginManager, hook_name: str) -> list[pluggy.HookImpl]:
    """Implementations of a hook in the order pluggy would call them (wrappers apart)."""
    caller = getattr(pm.hook, hook_name, None)
    if caller is None:
        return []
    impls = caller.get_hookimpls()
    return [i for i in reversed(impls) if not (i.hookwrapper or i.wrapper)]


def plugin_source(pm: pluggy.PluginManager, name: str) -> str:
    """Where a registered plugin's code is: its module's file (an entry point's module,
    an extension file), or for a plugin object the file of the module defining its
    class; the name itself when there is no file (a plugin built in memory)."""
    plugin = pm.get_plugin(name)
    if plugin is None:
        return name
    module = plugin if isinstance(plugin, ModuleType) else sys.modules.get(type(plugin).__module__)
    path = getattr(module, "__file__", None)
    return os.path.abspath(path) if path else name


class OmpPluginManager(pluggy.PluginManager):
    """pluggy's manager, whose hook-call monitors also see the event hooks: pluggy has no
    async, so the dispatcher calls those itself and reports each call to ``omp_monitors``
    exactly as pluggy reports a call through ``pm.hook``."""

    def __init__(self, project_name: str) -> None:
        super().__init__(project_name)
        self.omp_monitors: list[tuple[Any, Any]] = []

    def add_hookcall_monitoring(self, before: Any, after: Any) -> Any:
        undo_pluggy = super().add_hookcall_monitoring(before, after)
        pair = (before, after)
        self.omp_monitors.append(pair)

        def undo() -> None:
            undo_pluggy()
            self.omp_monitors.remove(pair)

        return undo


def new_plugin_manager() -> pluggy.PluginManager:
    from omp.plugin import specs as hookspecs

    pm = OmpPluginManager("omp")
    pm.add_hookspecs(hookspecs)
    trace = os.environ.get("OMP_TRACE_PLUGINS", "")
    if trace == "1":
        trace_hook_calls(pm)
    elif trace not in ("", "0"):
        trace_hook_calls(pm, _append_to(Path(trace)))
    return pm


def _append_to(path: Path) -> Any:
    """A trace writer appending whole lines to ``path`` (several processes may share it)."""

    def write(line: str) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, (" ".join(line.split())[:400] + "\n").encode("utf-8", "replace"))
        finally:
            os.close(fd)

    return write


def trace_hook_calls(pm: pluggy.PluginManager, write: Any = None) -> Any:
    """Print every hook call (its implementations in call order) and its result or error
    on stderr, through pluggy's hook-call monitoring; returns the undo function."""

    def say(text: str) -> None:
        (write or (lambda line: print(line, file=sys.stderr)))(f"[omp trace] {text}")

    def before(hook_name: str, impls: Sequence[pluggy.HookImpl], kwargs: Mapping[str, Any]) -> None:
        names = ", ".join(i.plugin_name for i in impls) or "no handlers"
        outside = "event" in kwargs and kwargs.get("ctx") is None
        say(f"{hook_name} <- {names}{' (outside a session)' if outside else ''}")

    def after(
        outcome: pluggy.Result[Any],
        hook_name: str,
        impls: Sequence[pluggy.HookImpl],
        kwargs: Mapping[str, Any],
    ) -> None:
        if outcome.exception is not None:
            say(f"{hook_name} raised {type(outcome.exception).__name__}: {outcome.exception}")
        else:
            say(f"{hook_name} -> {outcome.get_result()!r}")

    return pm.add_hookcall_monitoring(before, after)


def describe_failure(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or "(no message)"
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        return (
            f"{type(exc).__name__}: {text}. The plugin needs the package that provides "
            f"'{exc.name}'; install it, or disable the plugin."
        )
    return f"{type(exc).__name__}: {text}"


def _hooks_of(pm: pluggy.PluginManager, plugin: object) -> list[str]:
    callers = pm.get_hookcallers(plugin) or []
    return sorted(caller.name for caller in callers)


def _register(host: PluginHost, plugin: object, record: PluginRecord, strict: bool) -> None:
    pm = host.pm
    try:
        pm.register(plugin, name=record.name)
        problem = _check_hook_names(pm, plugin)
        if problem:
            raise OmpError(problem)
    except (Exception, SystemExit) as exc:
        record.status, record.error = "failed", describe_failure(exc)
        # Only this registration: the same object loaded under another name keeps running.
        if pm.get_plugin(record.name) is plugin:
            pm.unregister(name=record.name)
        if strict:
            raise OmpError(f"plugin {record.name} failed: {record.error}") from exc
    else:
        record.hooks = _hooks_of(pm, plugin)
    host.records.append(record)


def _check_hook_names(pm: pluggy.PluginManager, plugin: object) -> str | None:
    """Catch the two silent mistakes: a misspelt hook name (pluggy's ``check_pending``;
    ``optionalhook=True`` impls of hooks a newer kernel has are allowed) and a
    missing marker."""
    unknown: list[str] = []
    try:
        pm.check_pending()
    except pluggy.PluginValidationError:
        unknown = [
            caller.name
            for caller in pm.get_hookcallers(plugin) or []
            if not caller.has_spec()
            and any(i.plugin is plugin and not i.optionalhook for i in caller.get_hookimpls())
        ]
    registered = set(_hooks_of(pm, plugin))
    unmarked: list[str] = []
    for name in dir(plugin):
        if not name.startswith("omp_") or name in registered:
            continue
        if not callable(getattr(plugin, name, None)):
            continue
        caller = getattr(pm.hook, name, None)
        (unmarked if caller is not None and caller.has_spec() else unknown).append(name)
    if unknown:
        import difflib  # only for the hint

        specs = [
            name for name, c in vars(pm.hook).items() if not name.startswith("_") and c.has_spec()
        ]
        hints = []
        for name in sorted(set(unknown)):
            close = difflib.get_close_matches(name, specs, n=1, cutoff=0.6)
            hints.append(f"{name} (did you mean {close[0]}?)" if close else name)
        return f"implements unknown hook(s) {', '.join(hints)}; see omp.plugin.specs for the names"
    if unmarked:
        return f"{', '.join(unmarked)} lack(s) the @omp.hookimpl marker and would never be called"
    return None


def load_entry_points(
    host: PluginHost, disabled: set[str], strict: bool, cache_dir: Path | None = None
) -> None:
    """Load group ``omp.plugins``; ``cache_dir`` holds the entry-point index
    (``omp.plugin.index``), None to ask importlib.metadata every time."""
    from omp.plugin.index import entry_points

    seen: dict[str, str] = {}
    for ep in entry_points(ENTRY_POINT_GROUP, cache_dir):
        dist_name = ep.dist_name
        record = PluginRecord(ep.name, f"entry point ({dist_name})", ep.version)
        if ep.name in seen:
            record.status = "failed"
            record.error = (
                f"two distributions register the plugin name {ep.name!r}: "
                f"{seen[ep.name]} and {dist_name}; only the first was loaded"
            )
            host.records.append(record)
            continue
        seen[ep.name] = dist_name
        if ep.name in disabled:
            record.status = "disabled"
            host.records.append(record)
            continue
        requires = ep.requires
        problem = kernel_mismatch(dist_name, requires)
        if problem:
            record.status, record.error = "failed", problem
            host.records.append(record)
            if strict:
                raise OmpError(f"plugin {record.name} ({record.source}): {problem}")
            continue
        _load(host, record, ep.load, strict)


def kernel_mismatch(dist_name: str, requires: Iterable[str] | None) -> str | None:
    """Why a distribution's plugins must not load on this kernel (its requirement on
    omp-kernel, among its Requires-Dist lines, excludes the running version), or None."""
    from omp import __version__
    from omp.base.versions import KERNEL_DISTRIBUTION, requirement_on, satisfies

    wanted = requirement_on(requires or (), KERNEL_DISTRIBUTION)
    if not wanted or satisfies(__version__, wanted):
        return None
    return (
        f"built for {KERNEL_DISTRIBUTION}{wanted}, but this is {KERNEL_DISTRIBUTION} "
        f"{__version__}; install a release of {dist_name} made for this kernel, or "
        "disable it"
    )


def load_extension_file(host: PluginHost, path: Path, disabled: set[str], strict: bool) -> None:
    name = f"ext:{path.stem}"
    record = PluginRecord(name, f"extension {path}")
    if path.stem in disabled or name in disabled:
        record.status = "disabled"
        host.records.append(record)
        return
    if host.pm.has_plugin(name):
        record.status, record.error = "failed", "an extension with this name is already loaded"
        host.records.append(record)
        return
    _load(host, record, lambda: _import_file(path), strict)


def _load(host: PluginHost, record: PluginRecord, load: Any, strict: bool) -> None:
    """Import a plugin with ``load()`` and register it; a failure is recorded with its
    reason and loading goes on (unless strict)."""
    try:
        plugin = load()
    except (Exception, SystemExit) as exc:
        record.status, record.error = "failed", describe_failure(exc)
        host.records.append(record)
        if strict:
            raise OmpError(
                f"plugin {record.name} ({record.source}) failed to load: {record.error}"
            ) from exc
        return
    _register(host, plugin, record, strict)


def _import_file(path: Path) -> ModuleType:
    """An extension file, or a package directory (its ``__init__.py``)."""
    module_name = f"omp_extension_{abs(hash(str(path))):x}_{path.stem}"
    if path.is_dir() and (path / "__init__.py").is_file():
        spec = importlib.util.spec_from_file_location(
            module_name, path / "__init__.py", submodule_search_locations=[str(path)]
        )
    elif path.is_file():
        spec = importlib.util.spec_from_file_location(module_name, path)
    else:
        raise FileNotFoundError(f"no such extension file: {path}")
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def extension_files(folder: Path) -> list[Path]:
    """The single-file extensions in ``folder`` (``*.py``, not ``_private.py``), sorted."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))


def project_extension_files(cwd: Path) -> list[Path]:
    """``<cwd>/.omp/extensions/*.py``: project code, loaded only in a trusted project."""
    return extension_files(cwd / ".omp" / "extensions")


def _withhold(host: PluginHost, paths: list[Path], reason: str) -> None:
    for path in paths:
        record = PluginRecord(f"ext:{path.stem}", f"extension {path}", status="withheld")
        record.error = reason
        host.records.append(record)


def build_plugin_host(
    *,
    cwd: Path,
    agent_dir: Path,
    disabled: set[str] | None = None,
    extension_paths: list[Path] | None = None,
    discover: bool = True,
    entry_points: bool = True,
    extra_plugins: list[Any] | None = None,
    strict: bool | None = None,
    project_code: str | None = None,
) -> PluginHost:
    """A fresh plugin manager with every plugin this run should have.

    ``extension_paths`` (from ``-e`` and settings) always load; discovered extension
    folders only when ``discover``. The project's folder loads only when
    ``project_code`` is None; otherwise its files are listed as withheld with that
    reason (an untrusted project, or a command that never runs project code).
    ``extra_plugins`` are objects registered directly (tests).
    """
    if strict is None:
        strict = os.environ.get("OMP_STRICT_PLUGINS") == "1"
    disabled = set(disabled or ())
    host = PluginHost(new_plugin_manager())
    if entry_points:
        load_entry_points(host, disabled, strict, agent_dir / "cache")
    paths = list(extension_paths or [])
    if discover:
        project = project_extension_files(cwd)
        if project_code is None:
            paths += project
        else:
            _withhold(host, project, project_code)
        paths += extension_files(agent_dir / "extensions")
    for path in dict.fromkeys(p.resolve() for p in paths):
        load_extension_file(host, path, disabled, strict)
    for plugin in extra_plugins or ():
        base = getattr(plugin, "__name__", None) or type(plugin).__name__
        name, number = base, 1
        while host.pm.has_plugin(name):
            number += 1
            name = f"{base}-{number}"
        _register(host, plugin, PluginRecord(name, "registered in process"), strict)
    return host
