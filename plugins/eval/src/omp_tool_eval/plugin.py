"""Entry module of omp-tool-eval: only the hooks, cheap to import (``omp --help`` loads it)."""

from __future__ import annotations

from typing import Any

import omp
from omp import SettingSpec

STATE_KEY = "omp-tool-eval"
JS_STATE_KEY = "omp-tool-eval.js"
MISSING = "ipykernel or jupyter_client is not importable (pip install ipykernel jupyter_client)"


@omp.hookimpl
def omp_register_tools(api: Any) -> list[Any]:
    """The ``eval`` tool when a kernel can start; else the registration fails with the
    reason, so ``omp plugins`` lists the plugin as degraded and says why."""
    if not _kernel_installed():
        raise omp.OmpError(f"eval tool not offered: {MISSING}")
    from omp_tool_eval.tool import EvalTool

    return [EvalTool()]


@omp.hookimpl
def omp_register_tool_checks(api: Any) -> list[Any]:
    """``omp plugins`` says whether the eval tool is offered here, and why not."""
    return [omp.ToolCheck("eval", _unavailable)]


def _unavailable(settings: Any, cwd: Any) -> str | None:
    if not _kernel_installed():
        return MISSING
    if settings is not None and settings.get("eval.enabled", True) is False:
        return "turned off by the eval.enabled setting"
    return None


def _kernel_installed() -> bool:
    """A spec lookup, no import: cheap enough for registration."""
    import importlib.util

    return all(importlib.util.find_spec(name) for name in ("ipykernel", "jupyter_client"))


@omp.hookimpl
def omp_register_settings(api: Any) -> list[SettingSpec]:
    return [
        SettingSpec("eval.enabled", "boolean", True, "offer the eval tool (a Python kernel)"),
        SettingSpec(
            "eval.timeoutMs",
            "integer",
            30_000,
            "how long an eval cell may run when the call gives no timeout",
            minimum=1000,
        ),
    ]


@omp.hookimpl
def omp_session_start(ctx: Any, api: Any) -> None:
    if ctx.settings.get("eval.enabled", True) is False:
        api.set_active_tools([name for name in api.get_active_tools() if name != "eval"])


@omp.hookimpl
async def omp_user_python(event: Any, ctx: Any) -> dict[str, Any] | None:
    """``$code`` runs in the session's eval kernel (shared with the tool); when eval is
    off or cannot run, None lets omp-user-shell run it with python3."""
    if ctx.settings.get("eval.enabled", True) is False or not _kernel_installed():
        return None
    from omp_tool_eval.user import run_user_python

    return {"result": await run_user_python(event, ctx)}


@omp.hookimpl
async def omp_session_shutdown(ctx: Any) -> None:
    """End the session's kernels: no kernel process outlives its session."""
    for key in (STATE_KEY, JS_STATE_KEY):
        kernel = ctx.state.pop(key, None)
        if kernel is not None:
            await kernel.shutdown()
