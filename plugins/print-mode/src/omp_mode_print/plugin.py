"""The print run mode (``omp -p``): only the final assistant text goes to stdout."""

from __future__ import annotations

import sys
from typing import Any

import omp
from omp.contrib import RunMode
from omp.modes import run_prompts


@omp.hookimpl
def omp_register_modes(api):
    from omp.ui import StderrUI

    return [
        RunMode(
            "print",
            "Run the prompt(s) once and print the final answer",
            run=run_print,
            make_ui=lambda session: StderrUI(),
        )
    ]


def _verbose_line(event: Any) -> str | None:
    kind = event.type
    if kind == "notice":
        return event.message
    if kind == "tool_execution_start":
        args = ", ".join(f"{k}={v!r}" for k, v in event.args.items())
        return f"-> {event.tool_name}({args})"
    if kind == "tool_execution_end" and event.is_error:
        text = "".join(getattr(b, "text", "") for b in event.result["content"])
        return f"<- {event.tool_name} failed: {text.splitlines()[0] if text else ''}"
    if kind == "extension_error":
        return f"plugin {event.extension_path} failed in {event.event}: {event.error}"
    return None


async def run_print(session: Any, request: Any) -> int:
    if not request.prompts:
        print("omp: no prompt given: pass text after -p, or pipe it on stdin", file=sys.stderr)
        return 2

    def on_event(event: Any) -> None:
        line = _verbose_line(event) if request.verbose else None
        if event.type == "extension_error" and not request.verbose:
            line = f"plugin {event.extension_path} failed in {event.event}: {event.error}"
        if event.type == "notice" and event.level != "info":
            line = f"{event.level}: {event.message}"
        if line:
            print(f"omp: {line}", file=sys.stderr, flush=True)

    session.subscribe(on_event)
    final = await run_prompts(session, request.prompts)
    if final is None:
        return 0
    if final.stop_reason in ("error", "aborted"):
        reason = final.error_message or ("aborted" if final.stop_reason == "aborted" else "error")
        print(f"omp: {reason}", file=sys.stderr)
        return 1
    text = final.text
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()
    return 0
