"""The MCP plugin's hooks: servers start with the session (their tools, prompts and
``mcp://`` resources join it) and stop with it; ``omp mcp ...`` manages the config.
Heavy modules (the SDK, pydantic) load only when a session or the command runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import omp
from omp import SettingSpec, Subcommand

if TYPE_CHECKING:
    from omp import SubcommandContext

STATE_KEY = "omp-mcp"
READ_SCHEMES = "omp-tool-read.schemes"


def _run_command(args: list[str], ctx: SubcommandContext) -> int:
    from omp_mcp.command import run

    return run(args, ctx)


@omp.hookimpl
def omp_register_subcommands(api: Any) -> list[Subcommand]:
    return [
        Subcommand(
            "mcp", "MCP servers: list, add, remove, enable, disable, test NAME", _run_command
        )
    ]


@omp.hookimpl(tryfirst=True)
async def omp_session_start(event: Any, ctx: Any, api: Any) -> None:
    """First of the session's start-up work, so the servers' startup gate runs from the
    session's start (this plugin's own imports included) and overlaps the rest of it."""
    import asyncio

    began = asyncio.get_running_loop().time()
    from omp_mcp.manager import McpManager
    from omp_mcp.resources import read_resource
    from omp_mcp.session_servers import take_session_servers

    given, warnings = take_session_servers(ctx.state)
    for warning in warnings:
        ctx.ui.notify(f"mcp: {warning}", "warning")
    manager = McpManager(ctx, api, given)
    ctx.state[STATE_KEY] = manager
    ctx.state.setdefault(READ_SCHEMES, {})["mcp"] = lambda uri: read_resource(manager, uri)
    manager.start(began)


@omp.hookimpl
async def omp_input(ctx: Any) -> None:
    """A prompt (its slash commands included) waits for the servers' startup gate."""
    manager = ctx.state.get(STATE_KEY)
    if manager is not None:
        await manager.settled()


@omp.hookimpl
async def omp_session_shutdown(event: Any, ctx: Any) -> None:
    manager = ctx.state.pop(STATE_KEY, None)
    if manager is not None:
        await manager.close()


@omp.hookimpl
def omp_before_agent_start(event: Any, ctx: Any) -> Any:
    manager = ctx.state.get(STATE_KEY)
    if manager is None:
        return None
    from omp_mcp.resources import resources_section

    section = resources_section(manager)
    if section is None:
        return None
    return {"system_prompt": [*event.system_prompt, section]}


@omp.hookimpl
def omp_register_settings(api: Any) -> list[SettingSpec]:
    return [
        SettingSpec(
            "mcp.toolMode",
            "string",
            "auto",
            "MCP tools offered at once (eager), behind one search tool (deferred), or "
            "deferred above mcp.deferThreshold (auto)",
            choices=("auto", "eager", "deferred"),
        ),
        SettingSpec(
            "mcp.deferThreshold", "integer", 40, "MCP tools above which auto defers", minimum=0
        ),
        SettingSpec(
            "mcp.startupGateMs",
            "integer",
            250,
            "how long the first prompt waits for MCP servers; slower ones join when ready",
            minimum=0,
        ),
        SettingSpec(
            "mcp.timeoutMs", "integer", 60000, "MCP request timeout (a server's wins)", minimum=1
        ),
        SettingSpec(
            "mcp.resultMaxBytes",
            "integer",
            50 * 1024,
            "MCP tool result shown to the model; the whole result is kept as an artifact",
            minimum=1024,
        ),
        SettingSpec(
            "mcp.importOtherAgents",
            "boolean",
            True,
            "also start the MCP servers of Claude Code, Cursor, Windsurf, Codex, Gemini CLI, "
            "opencode",
        ),
    ]
