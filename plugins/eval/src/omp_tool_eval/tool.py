"""The ``eval`` tool: Python cells in the session's persistent Jupyter kernel, JavaScript
cells in its persistent node process."""

from __future__ import annotations

import contextlib
import os
import time
from typing import Any, Literal

from omp import ImageContent, TextContent, Tool, ToolResult, resolve_path, tool_cwd
from pydantic import BaseModel, Field

from omp_tool_eval import render
from omp_tool_eval.kernel import CellRun, session_kernel
from omp_tool_eval.node import node_path, session_node
from omp_tool_eval.output import spill, spill_tail

DEFAULT_TIMEOUT_MS = 30_000
MIN_TIMEOUT = 1.0
MAX_TIMEOUT = 600.0
LOST_STATE = "its state (variables, imports) was lost."
RESET = "Kernel reset: all state cleared."
JS_RESET = "JavaScript process reset: all state cleared."
DETAIL_LINES = 200
DETAIL_BYTES = 16 * 1024
"""How much of a cell's output its details keep (for the renderer)."""
LOST = f"The kernel did not stop on interrupt and was restarted: {LOST_STATE}"


class Cell(BaseModel):
    code: str = Field(description="Code to run.")
    title: str | None = Field(default=None, description='Short label, e.g. "imports".')
    language: Literal["py", "js"] = Field(
        default="py",
        description='"py" for the IPython kernel, "js" for the persistent Node.js process.',
    )


class EvalParams(BaseModel):
    cells: list[Cell] = Field(min_length=1, description="Cells to run in order.")
    timeout: float | None = Field(
        default=None,
        allow_inf_nan=False,
        description=f"Seconds each cell may run (default 30, {MIN_TIMEOUT:g}..{MAX_TIMEOUT:g}).",
    )
    cwd: str | None = Field(default=None, description="Working directory for these cells.")
    reset: bool = Field(default=False, description="Restart the kernel (clear all state) first.")


class EvalTool(Tool):
    name = "eval"
    label = "Eval"
    description = (
        "Run Python cells in a persistent IPython kernel: variables and imports stay across "
        "calls until `reset`. Cells run in order and stop at the first error. stdout, stderr, "
        "results and displays are returned; images (PNG/JPEG) come back as images. On timeout "
        "the cell is interrupted; a kernel that ignores the interrupt is restarted and loses "
        'its state. No stdin: pass data in code. A cell with `language: "js"` runs '
        "JavaScript in a persistent Node.js process instead (its own state; top-level "
        "`await` allowed; on timeout the process is killed and its state lost)."
    )
    parameters = EvalParams
    exclusive = True
    render_call = staticmethod(render.render_call)
    render_result = staticmethod(render.render_result)

    async def execute(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        base_cwd = os.path.normpath(os.path.expanduser(str(tool_cwd(ctx))))
        cwd = resolve_path(params.cwd, base_cwd) if params.cwd else base_cwd
        timeout = _timeout(params.timeout, ctx)
        if not os.path.isdir(cwd):
            return ToolResult.error(f"Working directory does not exist: {cwd}")
        if any(cell.language == "js" for cell in params.cells) and node_path() is None:
            return ToolResult.error("JavaScript cells need node, which is not on PATH.")
        async with contextlib.AsyncExitStack() as held:
            backends = Backends(ctx, base_cwd, cwd, params.reset, held)
            return await self._run(backends, params, timeout, signal, on_update, ctx)

    async def _run(
        self,
        backends: Backends,
        params: Any,
        timeout: float,
        signal: Any,
        on_update: Any,
        ctx: Any,
    ) -> ToolResult:
        total = len(params.cells)
        parts: list[str] = backends.parts
        images: list[ImageContent] = []
        cells: list[dict[str, Any]] = []
        failed = False
        for index, cell in enumerate(params.cells, 1):
            try:
                kernel = await backends.get(cell.language)
            except Exception as exc:
                name = "JavaScript process" if cell.language == "js" else "Python kernel"
                return ToolResult.error(f"Could not start the {name}: {exc}")
            started = time.monotonic()
            run = await kernel.run(cell.code, timeout, signal, _live(parts, on_update))
            cells.append(_cell_details(index, cell, run, started, timeout))
            parts.append(_cell_text(index, total, cell.title, run, timeout))
            images += [ImageContent(data=data, mime_type=mime) for mime, data in run.images]
            if not run.ok:
                failed = True
                if index < total:
                    rest = (
                        f"Cell {total} was"
                        if index + 1 == total
                        else f"Cells {index + 1}-{total} were"
                    )
                    parts.append(f"{rest} not run.")
                break
        text = "\n\n".join(part for part in parts if part) or "(no output)"
        text, artifact = spill(text, ctx)
        python, node = backends.used.get("py"), backends.used.get("js")
        details = {
            "cells": cells,
            "notes": list(backends.resets),
            "cwd": backends.cwd,
            "python": python.python if python else None,
            "pid": python.pid if python else None,
            "nodePid": node.pid if node else None,
            "artifact": artifact,
            "images": len(images),
        }
        content: list[Any] = [TextContent(text=text), *images]
        return ToolResult(content=content, details=details, is_error=failed)


class Backends:
    """The session's kernels a call uses, each locked and made ready (started, reset
    when asked, moved to the call's cwd) on its first cell."""

    def __init__(
        self, ctx: Any, base_cwd: str, cwd: str, reset: bool, held: contextlib.AsyncExitStack
    ) -> None:
        self.ctx, self.base_cwd, self.cwd, self.reset, self.held = ctx, base_cwd, cwd, reset, held
        self.used: dict[str, Any] = {}
        self.parts: list[str] = []
        """The model's text so far: reset notices, then each cell's part."""
        self.resets: list[str] = []

    async def get(self, language: str) -> Any:
        kernel = self.used.get(language)
        if kernel is not None:
            return kernel
        if language == "js":
            kernel = session_node(self.ctx, self.base_cwd)
        else:
            kernel = session_kernel(self.ctx, self.base_cwd)
        await self.held.enter_async_context(kernel.lock)
        self.used[language] = kernel
        if await kernel.prepare(self.cwd, self.reset):
            note = RESET if language == "py" else JS_RESET
            self.parts.append(note)
            self.resets.append(note)
        return kernel


def _live(parts: list[str], on_update: Any) -> Any:
    """Streams the output so far (earlier cells, then this one's) to ``on_update``."""
    if on_update is None:
        return None

    def send(run: CellRun) -> None:
        text = "\n\n".join(part for part in [*parts, run.output] if part)
        on_update(ToolResult.text(spill_tail(text)))

    return send


def _timeout(value: float | None, ctx: Any) -> float:
    if value is None:
        settings = getattr(ctx, "settings", None)
        raw = settings.get("eval.timeoutMs", DEFAULT_TIMEOUT_MS) if settings else None
        value = raw / 1000 if isinstance(raw, int | float) and not isinstance(raw, bool) else 30
    return min(max(float(value), MIN_TIMEOUT), MAX_TIMEOUT)


def _cell_notes(run: CellRun, timeout: float) -> list[str]:
    """Why a cell did not finish by itself, and what happened to the kernel."""
    notes = []
    if run.killed:
        why = f"timed out after {timeout:g} s" if run.stopped == "timeout" else "was aborted"
        return [f"Cell {why}: the JavaScript process was killed, {LOST_STATE}"]
    if run.stopped == "timeout":
        notes.append(f"Cell timed out after {timeout:g} s and was interrupted.")
    elif run.stopped == "aborted":
        notes.append("Cell was aborted and interrupted.")
    if run.died is not None:
        notes.append(f"The kernel died (exit code {run.died}) and was restarted: {LOST_STATE}")
    elif run.restarted:
        notes.append(LOST)
    return notes


def _cell_text(index: int, total: int, title: str | None, run: CellRun, timeout: float) -> str:
    lines = []
    if total > 1:
        lines.append(f"[{index}/{total}]" + (f" {title}" if title else ""))
    if run.output:
        lines.append(run.output)
    if run.error:
        lines.append(run.error)
    lines += _cell_notes(run, timeout)
    if run.images and not run.output:
        lines.append(f"({len(run.images)} image(s) attached)")
    return "\n".join(lines)


def _cell_details(
    index: int, cell: Cell, run: CellRun, started: float, timeout: float
) -> dict[str, Any]:
    """One cell for the session file and the renderer: its status, and the tail of its
    output and error (the model's text holds the whole)."""
    status = "complete" if run.ok else ("error" if run.error else run.stopped or "died")
    return {
        "index": index,
        "title": cell.title,
        "language": cell.language,
        "status": status,
        "restarted": run.restarted,
        "durationMs": int((time.monotonic() - started) * 1000),
        "output": _detail_tail(run.output),
        "error": _detail_tail(run.error or ""),
        "notes": _cell_notes(run, timeout),
        "images": [mime for mime, _ in run.images],
    }


def _detail_tail(text: str) -> str:
    return "\n".join(text.splitlines()[-DETAIL_LINES:])[-DETAIL_BYTES:]
