"""Entry module of omp-tool-debug: only the hooks, cheap to import (``omp --help`` loads it)."""

from __future__ import annotations

from typing import Any

import omp
from omp import SettingSpec

STATE_KEY = "omp-tool-debug"


@omp.hookimpl
def omp_register_tools(api: Any) -> list[Any]:
    """The ``debug`` tool when an adapter can start. Without debugpy the registration
    fails with the reason, so ``omp plugins`` lists the plugin as degraded and says why
    (adapters from ``debug.adapters`` are settings, unknown while the runtime is built)."""
    from omp_tool_debug.adapters import debugpy_adapter

    if debugpy_adapter() is None:
        raise omp.OmpError(
            "debug tool not offered: no debug adapter (debugpy is not importable: "
            "pip install debugpy)"
        )
    from omp_tool_debug.tool import DebugTool

    return [DebugTool()]


@omp.hookimpl
def omp_register_tool_checks(api: Any) -> list[Any]:
    """``omp plugins`` says whether the debug tool is offered here, and why not."""
    return [omp.ToolCheck("debug", _unavailable)]


def _unavailable(settings: Any, cwd: Any) -> str | None:
    from omp_tool_debug.adapters import debugpy_adapter

    if debugpy_adapter() is None:
        return "no debug adapter: debugpy is not importable (pip install debugpy)"
    return None


@omp.hookimpl
def omp_register_settings(api: Any) -> list[SettingSpec]:
    return [
        SettingSpec(
            "debug.adapters",
            "map",
            {},
            "extra debug adapters: a name to the adapter's command line (an array)",
            items="array",
        ),
        SettingSpec(
            "debug.idleTimeoutSeconds",
            "integer",
            600,
            "end a debug session left unused this long",
            minimum=1,
        ),
    ]


@omp.hookimpl
def omp_session_shutdown(ctx: Any) -> None:
    """End the session's debug sessions: no debuggee or adapter outlives it."""
    manager = ctx.state.pop(STATE_KEY, None)
    if manager is not None:
        manager.shutdown()
