"""The debug tool's operations: a table of ``(manager, params, ctx, signal, timeout) ->
(text, details)`` handlers, each raising DebugError (or ValueError) with one line."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Any

from omp import resolve_path

from omp_tool_debug import adapters, format
from omp_tool_debug.manager import DebugError, DebugManager
from omp_tool_debug.session import FunctionBreakpoint, LineBreakpoint
from omp_tool_debug.tool import working_dir

Result = tuple[str, dict[str, Any]]
Handler = Callable[[DebugManager, Any, Any, Any, float], Awaitable[Result]]
VARIABLES_PAGE = 100


def _cwd(params: Any, ctx: Any) -> str:
    base = working_dir(ctx)
    return resolve_path(params.cwd, base) if params.cwd else base


def _session_text(manager: DebugManager, text: str) -> Result:
    session = manager.active
    details = {"snapshot": format.snapshot_details(session)} if session else {}
    return text, details


async def launch(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    if not p.program:
        raise DebugError("program is required for launch")
    cwd = _cwd(p, ctx)
    if not os.path.isdir(cwd):
        raise DebugError(f"Working directory does not exist: {cwd}")
    program = resolve_path(p.program, cwd)
    if not os.path.exists(program):
        raise DebugError(f"Program not found: {program}")
    adapter = adapters.choose(
        adapters.available(getattr(ctx, "settings", None)), p.adapter, program
    )
    if os.path.isdir(program):
        raise DebugError(f"launch program resolves to a directory: {program}")
    arguments = {
        **adapter.launch_defaults,
        "request": "launch",
        "program": program,
        "cwd": cwd,
        "args": list(p.args or []),
        **(p.arguments or {}),
    }
    session = await m.launch(adapter.name, adapter.argv, cwd, arguments, signal, timeout)
    return "\n".join(format.snapshot(session)), {
        "snapshot": format.snapshot_details(session),
        "adapter": adapter.name,
    }


async def attach(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    if p.pid is None and p.port is None:
        raise DebugError("attach requires pid or port")
    cwd = _cwd(p, ctx)
    adapter = adapters.choose(adapters.available(getattr(ctx, "settings", None)), p.adapter, None)
    arguments: dict[str, Any] = {"request": "attach", "cwd": cwd, "justMyCode": False}
    if adapter.name == "debugpy":
        if p.port is not None:
            arguments["connect"] = {"host": p.host or "127.0.0.1", "port": p.port}
        else:
            arguments["processId"] = p.pid
    else:
        arguments.update(
            {
                k: v
                for k, v in (
                    ("pid", p.pid),
                    ("processId", p.pid),
                    ("port", p.port),
                    ("host", p.host),
                )
                if v is not None
            }
        )
    arguments.update(p.arguments or {})
    session = await m.attach(adapter.name, adapter.argv, cwd, arguments, signal, timeout)
    return "\n".join(format.snapshot(session)), {
        "snapshot": format.snapshot_details(session),
        "adapter": adapter.name,
    }


async def set_breakpoint(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    if p.function:
        change = FunctionBreakpoint(p.function, p.condition)
        items = await m.set_function_breakpoints(change, signal, timeout)
        return format.function_breakpoints(items), {"functionBreakpoints": len(items)}
    if not p.file or p.line is None:
        raise DebugError("set_breakpoint requires file+line or function")
    path = resolve_path(p.file, working_dir(ctx))
    bp = LineBreakpoint(p.line, p.condition, p.hit_condition)
    lines = await m.set_breakpoints(path, bp, signal, timeout)
    return format.breakpoints(path, lines), {"breakpoints": [b.line for b in lines]}


async def remove_breakpoint(
    m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float
) -> Result:
    if p.function:
        items = await m.set_function_breakpoints(p.function, signal, timeout)
        return format.function_breakpoints(items), {"functionBreakpoints": len(items)}
    if not p.file or p.line is None:
        raise DebugError("remove_breakpoint requires file+line or function")
    path = resolve_path(p.file, working_dir(ctx))
    lines = await m.set_breakpoints(path, p.line, signal, timeout)
    return format.breakpoints(path, lines), {"breakpoints": [b.line for b in lines]}


async def set_exception_breakpoints(
    m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float
) -> Result:
    session = m.require()
    known = session.capabilities.get("exceptionBreakpointFilters") or []
    if p.filters is None:
        rows = [f"- {f.get('filter')}: {f.get('label', '')}" for f in known]
        active = ", ".join(session.exception_filters) or "none"
        return format.listing("Exception filters:", rows) + f"\nActive: {active}", {}
    filters = await m.set_exception_filters(list(p.filters), signal, timeout)
    return f"Exception breakpoints: {', '.join(filters) or 'none'}", {"filters": filters}


def _resume(command: str, verb: str) -> Handler:
    async def run(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
        session, timed_out = await m.resume(command, signal, timeout)
        return format.outcome(session, timed_out, timeout, verb), {
            "snapshot": format.snapshot_details(session),
            "state": session.status,
            "timedOut": timed_out,
        }

    return run


async def pause(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    session, timed_out = await m.pause(signal, timeout)
    text = format.outcome(session, timed_out, timeout, "Pause")
    return text, {"snapshot": format.snapshot_details(session), "timedOut": timed_out}


async def evaluate(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    if not p.expression:
        raise DebugError("expression is required for evaluate")
    arguments: dict[str, Any] = {"expression": p.expression, "context": p.context or "repl"}
    session = m.require()
    frame = p.frame_id if p.frame_id is not None else session.stop.frame_id
    if frame is not None:
        arguments["frameId"] = frame
    body = await m.request("evaluate", arguments, signal, timeout)
    return format.evaluation(body), {"evaluation": body}


async def stack_trace(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    frames = await m.stack_trace(p.levels, signal, timeout)
    return format.frames(frames), {"stackFrames": frames}


async def threads(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    items = await m.threads(signal, timeout)
    return format.threads(items), {"threads": items}


async def scopes(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    body = await m.request("scopes", {"frameId": m.frame_id(p.frame_id)}, signal, timeout)
    items = list(body.get("scopes") or [])
    return format.scopes(items), {"scopes": items}


async def variables(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    ref = p.variable_ref if p.variable_ref is not None else p.scope_id
    if ref is None:
        raise DebugError("variables requires variable_ref or scope_id")
    body = await m.request("variables", {"variablesReference": ref}, signal, timeout)
    items = list(body.get("variables") or [])
    start = max(0, p.offset or 0)
    page = items[start : start + (p.count or VARIABLES_PAGE)]
    return format.variables(page, start, len(items)), {"variables": page, "total": len(items)}


async def set_variable(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    m.capability("supportsSetVariable", "set_variable")
    ref = p.variable_ref if p.variable_ref is not None else p.scope_id
    if ref is None or not p.name or p.value is None:
        raise DebugError("set_variable requires scope_id or variable_ref, name and value")
    arguments = {"variablesReference": ref, "name": p.name, "value": p.value}
    body = await m.request("setVariable", arguments, signal, timeout)
    shown = f"{p.name} = {body.get('value')}" + (f" ({body['type']})" if body.get("type") else "")
    return shown, {"variable": {"name": p.name, **body}}


async def disassemble(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    m.capability("supportsDisassembleRequest", "disassemble")
    reference = p.memory_reference or m.require().stop.instruction_pointer
    if not reference:
        raise DebugError("disassemble requires memory_reference (no instruction pointer here)")
    arguments: dict[str, Any] = {
        "memoryReference": reference,
        "instructionCount": p.instruction_count or 32,
        "offset": p.offset or 0,
        "resolveSymbols": bool(p.resolve_symbols),
    }
    body = await m.request("disassemble", arguments, signal, timeout)
    items = list(body.get("instructions") or [])
    return format.disassembly(items), {"disassembly": items}


async def read_memory(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    m.capability("supportsReadMemoryRequest", "read_memory")
    if not p.memory_reference or p.count is None:
        raise DebugError("read_memory requires memory_reference and count")
    arguments = {"memoryReference": p.memory_reference, "count": p.count, "offset": p.offset or 0}
    body = await m.request("readMemory", arguments, signal, timeout)
    address = str(body.get("address", p.memory_reference))
    text = format.memory(address, body.get("data"), body.get("unreadableBytes"))
    return text, {"address": address, "data": body.get("data")}


async def modules(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    m.capability("supportsModulesRequest", "modules")
    arguments = {"startModule": p.offset or 0, "moduleCount": p.count or 0}
    body = await m.request("modules", arguments, signal, timeout)
    items = list(body.get("modules") or [])
    rows = [
        f"- {x.get('id')}: {x.get('name')}" + (f" ({x['path']})" if x.get("path") else "")
        for x in items
    ]
    return format.listing("Modules:", rows), {"modules": items}


async def loaded_sources(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    m.capability("supportsLoadedSourcesRequest", "loaded_sources")
    body = await m.request("loadedSources", None, signal, timeout)
    items = list(body.get("sources") or [])
    rows = [f"- {s.get('path') or s.get('name')}" for s in items]
    return format.listing("Loaded sources:", rows), {"sources": items}


async def custom_request(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    import json

    if not p.command:
        raise DebugError("command is required for custom_request")
    body = await m.request(p.command, p.arguments, signal, timeout)
    return f"{p.command} response:\n{json.dumps(body, indent=2, default=str)}", {"body": body}


async def output(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    session = m.active
    if session is None:
        raise DebugError("No active debug session. Launch or attach first.")
    return format.output_page(session, p.offset, p.count), {
        "snapshot": format.snapshot_details(session),
        "outputChars": len(session.output),
    }


async def terminate(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    session = await m.terminate(signal, timeout)
    if session is None:
        return "No debug session to terminate.", {}
    text = "\n".join([*format.snapshot(session), "Debug session terminated."])
    return text, {"snapshot": format.snapshot_details(session)}


async def disconnect(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    session = await m.disconnect(signal, timeout)
    if session is None:
        return "No debug session to disconnect.", {}
    text = "\n".join([*format.snapshot(session), "Debugger disconnected."])
    return text, {"snapshot": format.snapshot_details(session)}


async def status(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    if m.active is None:
        return "No active debug session.", {}
    return _session_text(m, "\n".join(format.snapshot(m.active)))


async def sessions(m: DebugManager, p: Any, ctx: Any, signal: Any, timeout: float) -> Result:
    items = list(m.sessions.values())
    return format.sessions(items), {"sessions": [format.snapshot_details(s) for s in items]}


OPERATIONS: dict[str, Handler] = {
    "launch": launch,
    "attach": attach,
    "set_breakpoint": set_breakpoint,
    "remove_breakpoint": remove_breakpoint,
    "set_exception_breakpoints": set_exception_breakpoints,
    "continue": _resume("continue", "Continue"),
    "step_over": _resume("next", "Step over"),
    "step_in": _resume("stepIn", "Step in"),
    "step_out": _resume("stepOut", "Step out"),
    "pause": pause,
    "evaluate": evaluate,
    "stack_trace": stack_trace,
    "threads": threads,
    "scopes": scopes,
    "variables": variables,
    "set_variable": set_variable,
    "disassemble": disassemble,
    "read_memory": read_memory,
    "modules": modules,
    "loaded_sources": loaded_sources,
    "custom_request": custom_request,
    "output": output,
    "terminate": terminate,
    "disconnect": disconnect,
    "status": status,
    "sessions": sessions,
}
