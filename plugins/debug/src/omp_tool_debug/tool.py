"""The ``debug`` tool: omp's DAP operations on the session's one active debug session."""

from __future__ import annotations

from typing import Any, Literal

from omp import Tool, ToolResult, tool_cwd
from pydantic import BaseModel, Field

from omp_tool_debug.manager import DebugError, DebugManager

STATE_KEY = "omp-tool-debug"
IDLE_SETTING = "debug.idleTimeoutSeconds"
IDLE_TIMEOUT = 600
DEFAULT_TIMEOUT = 30.0
MIN_TIMEOUT = 5.0
MAX_TIMEOUT = 300.0

Action = Literal[
    "launch",
    "attach",
    "set_breakpoint",
    "remove_breakpoint",
    "set_exception_breakpoints",
    "continue",
    "step_over",
    "step_in",
    "step_out",
    "pause",
    "evaluate",
    "stack_trace",
    "threads",
    "scopes",
    "variables",
    "set_variable",
    "disassemble",
    "read_memory",
    "modules",
    "loaded_sources",
    "custom_request",
    "output",
    "terminate",
    "disconnect",
    "status",
    "sessions",
]


class DebugParams(BaseModel):
    action: Action
    program: str | None = Field(default=None, description="debug target path (launch)")
    args: list[str] | None = Field(default=None, description="program arguments")
    adapter: str | None = Field(
        default=None, description="adapter name: debugpy, or one from debug.adapters"
    )
    cwd: str | None = None
    file: str | None = Field(default=None, description="source file")
    line: int | None = Field(default=None, description="source line")
    function: str | None = Field(default=None, description="function name")
    name: str | None = Field(default=None, description="variable name (set_variable)")
    value: str | None = Field(default=None, description="new value (set_variable)")
    condition: str | None = Field(default=None, description="breakpoint condition")
    hit_condition: str | None = None
    filters: list[str] | None = Field(
        default=None, description="exception filter ids (set_exception_breakpoints)"
    )
    expression: str | None = Field(default=None, description="expression to evaluate")
    context: str | None = Field(
        default=None, description="evaluate context: watch | repl | hover | variables | clipboard"
    )
    frame_id: int | None = None
    scope_id: int | None = Field(default=None, description="scope variables reference")
    variable_ref: int | None = Field(default=None, description="variable reference")
    pid: int | None = Field(default=None, description="process id for attach")
    port: int | None = Field(default=None, description="remote attach port")
    host: str | None = Field(default=None, description="remote attach host")
    levels: int | None = Field(default=None, description="max stack frames")
    memory_reference: str | None = Field(default=None, description="memory reference or address")
    instruction_count: int | None = None
    offset: int | None = Field(
        default=None, description="memory offset; first item of a variables/output page"
    )
    count: int | None = Field(
        default=None, description="bytes to read; items of a variables/output page"
    )
    resolve_symbols: bool | None = None
    command: str | None = Field(default=None, description="custom DAP request command")
    arguments: dict[str, Any] | None = Field(
        default=None,
        description="custom_request's arguments; extra launch/attach arguments for the adapter",
    )
    timeout: float | None = Field(default=None, description="per-call timeout seconds (5-300)")


class DebugTool(Tool):
    name = "debug"
    label = "Debug"
    description = (
        "Debugger access over the Debug Adapter Protocol (debugpy for Python). Prefer it "
        "over bash for program state, breakpoints, stepping or thread inspection. Only one "
        "active session at a time; `program` is a target path, not a shell command. "
        "Launch stops on entry: set breakpoints, then continue; inspect with stack_trace, "
        "scopes, variables (scope_id / variable_ref) and evaluate; terminate when done."
    )
    parameters = DebugParams
    exclusive = True

    async def execute(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        from omp_tool_debug.operations import OPERATIONS

        timeout = clamp_timeout(params.timeout)
        details: dict[str, Any] = {"action": params.action}
        try:
            manager = session_manager(ctx)
            text, extra = await OPERATIONS[params.action](manager, params, ctx, signal, timeout)
        except (DebugError, ValueError) as exc:
            return ToolResult.error(str(exc), {**details, "success": False})
        return ToolResult.text(text, {**details, "success": True, **extra})


def clamp_timeout(value: float | None) -> float:
    if value is None:
        return DEFAULT_TIMEOUT
    return min(max(float(value), MIN_TIMEOUT), MAX_TIMEOUT)


def session_manager(ctx: Any) -> DebugManager:
    """The debug sessions of this agent session (``ctx.state``, never a module global)."""
    state = getattr(ctx, "state", None)
    if state is None:
        raise DebugError("The debug tool needs a session context.")
    manager = state.get(STATE_KEY)
    if manager is None:
        manager = state[STATE_KEY] = DebugManager(idle_timeout(ctx))
    return manager


def idle_timeout(ctx: Any) -> float:
    settings = getattr(ctx, "settings", None)
    value = settings.get(IDLE_SETTING, IDLE_TIMEOUT) if settings is not None else IDLE_TIMEOUT
    return float(value) if isinstance(value, int | float) and value > 0 else IDLE_TIMEOUT


def working_dir(ctx: Any) -> str:
    return str(tool_cwd(ctx))
