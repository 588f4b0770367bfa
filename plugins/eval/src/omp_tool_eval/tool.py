"""The ``eval`` tool: Python cells in the session's persistent Jupyter kernel."""

from __future__ import annotations

import os
import time
from typing import Any

from omp import ImageContent, TextContent, Tool, ToolResult, resolve_path, tool_cwd
from pydantic import BaseModel, Field

from omp_tool_eval.kernel import CellRun, EvalKernel
from omp_tool_eval.output import spill, spill_tail
from omp_tool_eval.plugin import STATE_KEY

DEFAULT_TIMEOUT_MS = 30_000
MIN_TIMEOUT = 1.0
MAX_TIMEOUT = 600.0
LOST_STATE = "its state (variables, imports) was lost."
LOST = f"The kernel did not stop on interrupt and was restarted: {LOST_STATE}"


class Cell(BaseModel):
    code: str = Field(description="Python code to run.")
    title: str | None = Field(default=None, description='Short label, e.g. "imports".')


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
        "its state. No stdin: pass data in code."
    )
    parameters = EvalParams
    exclusive = True

    async def execute(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        base_cwd = os.path.normpath(os.path.expanduser(str(tool_cwd(ctx))))
        cwd = resolve_path(params.cwd, base_cwd) if params.cwd else base_cwd
        timeout = _timeout(params.timeout, ctx)
        if not os.path.isdir(cwd):
            return ToolResult.error(f"Working directory does not exist: {cwd}")
        kernel = ctx.state.get(STATE_KEY)
        if kernel is None:
            kernel = ctx.state[STATE_KEY] = EvalKernel(base_cwd)
        async with kernel.lock:
            return await self._run(kernel, params, cwd, timeout, signal, on_update, ctx)

    async def _run(
        self,
        kernel: EvalKernel,
        params: Any,
        cwd: str,
        timeout: float,
        signal: Any,
        on_update: Any,
        ctx: Any,
    ) -> ToolResult:
        notes: list[str] = []
        try:
            if params.reset and kernel.started:
                await kernel.restart()
                notes.append("Kernel reset: all state cleared.")
            elif not kernel.started:
                await kernel.start()
            await kernel.run_silent(f"import os as _o; _o.chdir({cwd!r}); del _o")
        except Exception as exc:
            await kernel.shutdown()
            return ToolResult.error(f"Could not start the Python kernel: {exc}")
        total = len(params.cells)
        parts: list[str] = list(notes)
        images: list[ImageContent] = []
        cells: list[dict[str, Any]] = []
        failed = False
        for index, cell in enumerate(params.cells, 1):
            started = time.monotonic()
            run = await kernel.run(cell.code, timeout, signal, _live(parts, on_update))
            cells.append(_cell_details(index, cell.title, run, started))
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
        details = {
            "cells": cells,
            "cwd": cwd,
            "python": kernel.python,
            "pid": kernel.pid,
            "artifact": artifact,
            "images": len(images),
        }
        content: list[Any] = [TextContent(text=text), *images]
        return ToolResult(content=content, details=details, is_error=failed)


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


def _cell_text(index: int, total: int, title: str | None, run: CellRun, timeout: float) -> str:
    lines = []
    if total > 1:
        lines.append(f"[{index}/{total}]" + (f" {title}" if title else ""))
    if run.output:
        lines.append(run.output)
    if run.error:
        lines.append(run.error)
    if run.stopped == "timeout":
        lines.append(f"Cell timed out after {timeout:g} s and was interrupted.")
    elif run.stopped == "aborted":
        lines.append("Cell was aborted and interrupted.")
    if run.died is not None:
        lines.append(f"The kernel died (exit code {run.died}) and was restarted: {LOST_STATE}")
    elif run.restarted:
        lines.append(LOST)
    if run.images and not run.output:
        lines.append(f"({len(run.images)} image(s) attached)")
    return "\n".join(lines)


def _cell_details(index: int, title: str | None, run: CellRun, started: float) -> dict[str, Any]:
    status = "complete" if run.ok else ("error" if run.error else run.stopped or "died")
    return {
        "index": index,
        "title": title,
        "status": status,
        "restarted": run.restarted,
        "durationMs": int((time.monotonic() - started) * 1000),
    }
