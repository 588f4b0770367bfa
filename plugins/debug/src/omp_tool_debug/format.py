"""The text the model reads for each debug operation, in omp's shapes."""

from __future__ import annotations

import base64
from typing import Any

from omp_tool_debug.session import DebugSession, FunctionBreakpoint, LineBreakpoint

OUTPUT_PAGE_LINES = 200


def location(session: DebugSession) -> str | None:
    stop = session.stop
    if not stop.path or stop.line is None:
        return None
    return f"{stop.path}:{stop.line}" + (f":{stop.column}" if stop.column is not None else "")


def snapshot(session: DebugSession) -> list[str]:
    lines = [
        f"Session {session.id}",
        f"Adapter: {session.adapter}",
        f"Status: {session.status}",
        f"CWD: {session.cwd}",
    ]
    if session.program:
        lines.append(f"Program: {session.program}")
    if session.stop.reason:
        lines.append(f"Stop reason: {session.stop.reason}")
    if session.stop.frame_name:
        lines.append(f"Frame: {session.stop.frame_name}")
    where = location(session)
    if where:
        lines.append(f"Location: {where}")
    if session.exit_code is not None:
        lines.append(f"Exit code: {session.exit_code}")
    return lines


def snapshot_details(session: DebugSession) -> dict[str, Any]:
    stop = session.stop
    return {
        "id": session.id,
        "adapter": session.adapter,
        "status": session.status,
        "cwd": session.cwd,
        "program": session.program,
        "threadId": stop.thread_id,
        "frameId": stop.frame_id,
        "stopReason": stop.reason,
        "path": stop.path,
        "line": stop.line,
        "exitCode": session.exit_code,
        "pid": session.debuggee_pid,
    }


def outcome(session: DebugSession, timed_out: bool, timeout: float, verb: str) -> str:
    lines = snapshot(session)
    if timed_out:
        lines.append(
            f"Program is still running after {timeout:g}s. "
            "Use pause to interrupt and inspect state."
        )
    elif session.status == "stopped":
        lines.append(f"{verb} stopped at {location(session) or 'unknown location'}.")
    elif session.status == "terminated":
        code = session.exit_code
        lines.append(
            "Program terminated" + (f" with exit code {code}." if code is not None else ".")
        )
    else:
        lines.append("Program is running.")
    return "\n".join(lines)


def breakpoints(path: str, items: list[LineBreakpoint]) -> str:
    lines = [f"Breakpoints for {path}:"] + [
        f"- line {b.line}: {'verified' if b.verified else 'pending'}"
        + (f" if {b.condition}" if b.condition else "")
        + (f" after {b.hit_condition}" if b.hit_condition else "")
        + (f" ({b.message})" if b.message else "")
        for b in items
    ]
    return "\n".join(lines if items else [*lines, "(none)"])


def function_breakpoints(items: list[FunctionBreakpoint]) -> str:
    lines = ["Function breakpoints:"] + [
        f"- {b.name}: {'verified' if b.verified else 'pending'}"
        + (f" if {b.condition}" if b.condition else "")
        + (f" ({b.message})" if b.message else "")
        for b in items
    ]
    return "\n".join(lines if items else [*lines, "(none)"])


def listing(title: str, rows: list[str]) -> str:
    return "\n".join([title, *(rows or ["(none)"])])


def frames(items: list[dict[str, Any]]) -> str:
    rows = []
    for frame in items:
        path = (frame.get("source") or {}).get("path") or "<unknown>"
        rows.append(
            f"- #{frame.get('id')} {frame.get('name')} @ "
            f"{path}:{frame.get('line')}:{frame.get('column')}"
        )
    return listing("Stack trace:", rows)


def threads(items: list[dict[str, Any]]) -> str:
    return listing("Threads:", [f"- {t.get('id')}: {t.get('name')}" for t in items])


def scopes(items: list[dict[str, Any]]) -> str:
    return listing(
        "Scopes:",
        [
            f"- {s.get('name')}: ref={s.get('variablesReference')}, "
            f"expensive={'yes' if s.get('expensive') else 'no'}"
            + (f", hint={s['presentationHint']}" if s.get("presentationHint") else "")
            for s in items
        ],
    )


def variable(v: dict[str, Any]) -> str:
    ref = v.get("variablesReference") or 0
    return (
        f"- {v.get('name')} = {v.get('value')}"
        + (f" ({v['type']})" if v.get("type") else "")
        + (f" [ref={ref}]" if ref > 0 else "")
    )


def variables(items: list[dict[str, Any]], start: int, total: int) -> str:
    text = listing("Variables:", [variable(v) for v in items])
    end = start + len(items)
    if start > 0 or end < total:
        text += f"\n(variables {start + 1}-{end} of {total}; pass offset={end} for more)"
    return text


def evaluation(body: dict[str, Any]) -> str:
    lines = [f"Result: {body.get('result')}"]
    if body.get("type"):
        lines.append(f"Type: {body['type']}")
    if (body.get("variablesReference") or 0) > 0:
        lines.append(f"Variables ref: {body['variablesReference']}")
    return "\n".join(lines)


def output_page(session: DebugSession, offset: int | None, count: int | None) -> str:
    """A page of the debuggee's output by lines: the last page unless ``offset``."""
    if not session.output:
        return "(no output captured)"
    lines = session.output.splitlines()
    size = count or OUTPUT_PAGE_LINES
    start = max(0, len(lines) - size) if offset is None else max(0, offset)
    page = lines[start : start + size]
    text = "\n".join(page)
    notes = []
    if session.output_truncated:
        notes.append("older output was dropped")
    if start > 0 or start + len(page) < len(lines):
        notes.append(f"lines {start + 1}-{start + len(page)} of {len(lines)}; page with offset")
    return text + (f"\n({'; '.join(notes)})" if notes else "")


def disassembly(items: list[dict[str, Any]]) -> str:
    rows = []
    for ins in items:
        parts = [
            ins.get("address", ""),
            ins.get("instructionBytes") or "",
            ins.get("instruction", ""),
        ]
        if ins.get("symbol"):
            parts.append(f"<{ins['symbol']}>")
        rows.append("  ".join(p for p in parts if p).rstrip())
    return listing("Disassembly:", rows)


def memory(address: str, data: str | None, unreadable: int | None) -> str:
    raw = base64.b64decode(data) if data else b""
    lines = [f"Memory at {address}:"]
    if not raw:
        lines.append("(no readable bytes)")
    for at in range(0, len(raw), 16):
        chunk = raw[at : at + 16]
        hexed = " ".join(f"{b:02x}" for b in chunk)
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        label = address if at == 0 else f"+0x{at:x}"
        lines.append(f"{label:<18} {hexed:<47} |{text}|")
    if unreadable:
        lines.append(f"Unreadable bytes: {unreadable}")
    return "\n".join(lines)


def sessions(items: list[DebugSession]) -> str:
    if not items:
        return "No debug sessions."
    blocks = []
    for session in items:
        rows = [
            f"{session.id}: {session.status}",
            f"  adapter={session.adapter}",
            f"  cwd={session.cwd}",
        ]
        if session.program:
            rows.append(f"  program={session.program}")
        where = location(session)
        if where:
            rows.append(f"  location={where}")
        blocks.append("\n".join(rows))
    return "\n\n".join(blocks)
