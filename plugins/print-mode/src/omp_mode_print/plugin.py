"""The print run mode (``omp -p``): only the final assistant text goes to stdout.

Warnings, errors, retries and plugin failures go to stderr as they happen (a failing
plugin hook once; the session counts its repeats when it ends); with
``--verbose`` so do tool calls (through a tool's registered renderer when it has one).
On a terminal, stderr also shows a spinner while the agent works (``busy``).
"""

from __future__ import annotations

import sys
from typing import Any

import omp
from omp import RunMode


@omp.hookimpl
def omp_register_modes(api):
    return [
        RunMode(
            "print",
            "Run the prompt(s) once and print the final answer",
            run=run_print,
            make_ui=_stderr_ui,
            public_session=True,
        )
    ]


def _stderr_ui(session: omp.AgentSession) -> omp.StderrUI:
    """The UI, imported when the mode runs: it brings asyncio, which ``omp --help``
    (it lists the modes) does not need."""
    from omp import StderrUI

    return StderrUI()


def _tool_lines(session: omp.AgentSession, event: Any) -> list[str]:
    renderer = session.renderer("tool", event.tool_name)
    if renderer is not None:
        if event.type != "tool_execution_end":
            return []
        return [str(line) for line in renderer.render(event, {"mode": "print"}) or []]
    if event.type == "tool_execution_start":
        args = ", ".join(f"{k}={v!r}" for k, v in event.args.items())
        return [f"omp: -> {event.tool_name}({args})"]
    if event.type == "tool_execution_end" and event.is_error:
        text = "".join(getattr(b, "text", "") for b in event.result["content"])
        first = text.splitlines()[0] if text else ""
        return [f"omp: <- {event.tool_name} failed: {first}"]
    return []


def _lines(session: omp.AgentSession, event: Any, verbose: bool) -> list[str]:
    kind = event.type
    if kind == "extension_error":
        if event.occurrence > 1:  # counted when the session ends
            return []
        plugin = event.extension_name or event.extension_path
        return [f"omp: plugin {plugin} failed in {event.event}: {event.error}"]
    if kind == "auto_retry_start":
        return [_retry_line(event)]
    if kind == "auto_compaction_end" and event.result:
        from omp import describe_compaction

        return [f"omp: {describe_compaction(event.result)}"]
    if kind == "notice" and (verbose or event.level != "info"):
        prefix = "" if event.level == "info" else f"{event.level}: "
        return [f"omp: {prefix}{event.message}"]
    if verbose and kind.startswith("tool_execution_") and kind != "tool_execution_update":
        return _tool_lines(session, event)
    return []


def _retry_line(event: Any) -> str:
    """``omp: retrying in 4 s (attempt 2 of 5): <why>``; attempts count the first
    request. The reason was redacted where it was made; key-shaped text is hidden
    here too."""
    from omp import redact_keys

    seconds = round(event.delay_ms / 1000, 1)
    reason = redact_keys(" ".join(str(event.error_message).split()), [])
    attempt, total = event.attempt + 1, event.max_attempts + 1
    return f"omp: retrying in {seconds:g} s (attempt {attempt} of {total}): {reason}"


def _usage_line(totals: omp.UsageTotals) -> str:
    cost = f"${totals.cost:.4f}"
    if totals.unpriced:
        cost += f" (+{totals.unpriced} unpriced response(s))"
    return (
        f"usage: {totals.requests} request(s), {totals.input} in, "
        f"{totals.output} out, {totals.cache_read} cache read, "
        f"{totals.cache_write} cache write, {cost}"
    )


async def run_print(session: omp.AgentSession, request: Any) -> int:
    if not request.prompts:
        print("omp: no prompt given: pass text after -p, or pipe it on stdin", file=sys.stderr)
        return 2

    from omp_mode_print.busy import BusyIndicator, wanted

    busy = BusyIndicator(sys.stderr) if wanted(sys.stderr) else None

    def on_event(event: Any) -> None:
        if busy is not None:
            busy.on_event(event)
        for line in _lines(session, event, request.verbose):
            print(line, file=sys.stderr, flush=True)

    session.subscribe(on_event)
    if busy is not None:
        busy.start()
    try:
        final = await session.run_prompts(request.prompts, request.images)
    finally:
        if busy is not None:
            busy.stop()
    if request.verbose:
        print(f"omp: {_usage_line(session.usage_totals())}", file=sys.stderr)
    if session.abort_reason:
        return 1  # the reason was reported as an error notice when the run stopped
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
