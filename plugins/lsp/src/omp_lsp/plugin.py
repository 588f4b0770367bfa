"""Entry module of omp-lsp: only the hooks, cheap to import (``omp --help`` loads it).
The session's language servers live in ``ctx.state`` (``omp_lsp.manager``), started on
first use and stopped with the session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import omp
from omp import Flag, SettingSpec

STATE_KEY = "omp-lsp"
WRITERS = ("write", "edit")


@omp.hookimpl
def omp_register_flags(api: Any) -> list[Flag]:
    return [Flag("no-lsp", "Start no language servers (no diagnostics after write/edit)")]


@omp.hookimpl
def omp_register_settings(api: Any) -> list[SettingSpec]:
    return [
        SettingSpec("lsp.enabled", "boolean", True, "use language servers"),
        SettingSpec(
            "lsp.diagnosticsOnWrite",
            "boolean",
            True,
            "after write/edit, add the file's new errors and warnings to the result",
        ),
        SettingSpec(
            "lsp.diagnosticsBudgetMs",
            "integer",
            3000,
            "how long write/edit waits for a language server's diagnostics",
            minimum=0,
        ),
        SettingSpec(
            "lsp.formatOnWrite", "boolean", False, "format files with their server after write/edit"
        ),
        SettingSpec(
            "lsp.idleTimeoutMs",
            "integer",
            600_000,
            "stop a language server unused this long (0: keep it for the session)",
            minimum=0,
        ),
        SettingSpec("lsp.requestTimeoutMs", "integer", 10_000, "LSP request timeout", minimum=1),
        SettingSpec(
            "lsp.servers",
            "map",
            {},
            "server name to its command line (a list; [] switches the server off); "
            "file types and the rest come from lsp.json",
            items="array",
        ),
    ]


@omp.hookimpl
def omp_register_tools(api: Any) -> list[Any]:
    return []  # the lsp tool is per session: omp_session_start offers it when a server exists


@omp.hookimpl
def omp_register_tool_checks(api: Any) -> list[Any]:
    """``omp plugins`` says whether the lsp tool is offered here, and why not."""
    agent_dir = Path(getattr(api, "agent_dir", None) or omp.agent_dir())

    def unavailable(settings: Any, cwd: Path) -> str | None:
        from omp_lsp.availability import unavailable

        return unavailable(settings, cwd, agent_dir)

    return [omp.ToolCheck("lsp", unavailable)]


@omp.hookimpl
def omp_session_start(event: Any, ctx: Any, api: Any) -> None:
    if api.get_flag("no-lsp") or ctx.settings.get("lsp.enabled") is False:
        return
    from omp_lsp.manager import LspManager

    manager = LspManager(
        ctx.settings,
        Path(ctx.cwd),
        bool(ctx.is_project_trusted),
        Path(getattr(api, "agent_dir", None) or omp.agent_dir()),
    )
    for problem in manager.problems:
        ctx.ui.notify(f"lsp: {problem}", "warning")
    ctx.state[STATE_KEY] = manager
    from omp_lsp.actions_base import serves_workspace

    if serves_workspace(manager.configs, ctx.cwd):  # only where a server can answer it
        from omp_lsp.tool import LspTool

        api.register_tool(LspTool())


@omp.hookimpl
async def omp_tool_result(event: Any, ctx: Any) -> Any:
    manager = ctx.state.get(STATE_KEY)
    if manager is None or event.is_error or event.tool_name not in WRITERS:
        return None
    if ctx.settings.get("lsp.diagnosticsOnWrite") is False:
        return None
    raw = event.input.get("path")
    if not isinstance(raw, str) or not manager.configs:
        return None
    from omp_lsp.writethrough import diagnostics_note

    path = Path(raw) if Path(raw).is_absolute() else Path(ctx.cwd) / raw
    budget = float(ctx.settings.get("lsp.diagnosticsBudgetMs") or 0) / 1000
    note = await diagnostics_note(
        manager, path, budget, bool(ctx.settings.get("lsp.formatOnWrite"))
    )
    if not note:
        return None
    # The text is for the model; details["diagnostics"] lets a UI show the same lines
    # under the edit's diff (the interactive mode colours them, ACP adds them as text).
    details = dict(event.details) if isinstance(event.details, dict) else {}
    details["diagnostics"] = note.split("\n")
    return {"content": [*event.content, omp.TextContent(text=note)], "details": details}


@omp.hookimpl
async def omp_session_shutdown(event: Any, ctx: Any) -> None:
    manager = ctx.state.pop(STATE_KEY, None)
    if manager is not None:
        await manager.close()
