"""Running a slash command, with its failures attributed as a hook's are.

A handler that raises is its plugin's failure: an ``extension_error`` event naming the
plugin and ``command /NAME`` (the one line modes show), ``abort_message`` says so
(one-shot modes exit non-zero), and ``AgentSession.prompt`` returns normally. An
``OmpError`` is the command refusing the user's input, no plugin failure: it goes on
to the mode like any bad input (one line, its exit code).
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from omp.base.errors import OmpError
from omp.plugin.dispatch import describe_error

if TYPE_CHECKING:
    import pluggy

    from omp.plugin.contrib import Command
    from omp.runtime.session import AgentSession


async def run_command(session: AgentSession, command: Command, args: str) -> str | None:
    """Run ``command`` with ``args``; report what it raises (see the module). The
    failure reported (also kept as the abort message), None when it ran."""
    try:
        result = command.handler(args, session._command_context)
        if inspect.isawaitable(result):
            await result
    except OmpError:
        raise
    except (Exception, SystemExit) as exc:
        error = describe_error(exc)
        plugin = plugin_of(session.dispatcher.pm, command.handler) or _module_of(command.handler)
        session.abort_message = failure = f"/{command.name} failed: {error}"
        await session._report_extension_error(plugin, f"command /{command.name}", error)
        return failure
    return None


def plugin_of(pm: pluggy.PluginManager, function: Callable[..., Any]) -> str | None:
    """The name of the registered plugin that defines ``function``: the instance a
    bound method belongs to, the class a function was written in (its methods and
    the closures they return), or the module - or package - a function comes from."""
    while hasattr(function, "func"):  # functools.partial
        function = function.func
    owner = getattr(function, "__self__", None)
    module = getattr(function, "__module__", None) or ""
    qualname = getattr(function, "__qualname__", "") or ""
    packages: list[tuple[str, str]] = []
    for name, plugin in pm.list_name_plugin():
        if plugin is None:
            continue
        if owner is not None and owner is plugin:
            return name
        if isinstance(plugin, types.ModuleType):
            packages.append((name, plugin.__name__))
        elif type(plugin).__module__ == module and qualname.startswith(
            type(plugin).__qualname__ + "."
        ):
            return name
    for name, plugin_module in packages:
        if module == plugin_module:
            return name
    for name, plugin_module in packages:
        package = plugin_module.split(".", 1)[0]
        if package != "omp" and module.split(".", 1)[0] == package:
            return name
    return None


def _module_of(function: Callable[..., Any]) -> str:
    """Who to name for a handler no plugin defines (omp's own commands: ``omp``)."""
    module = getattr(getattr(function, "func", function), "__module__", None) or "unknown"
    return module.split(".", 1)[0]
