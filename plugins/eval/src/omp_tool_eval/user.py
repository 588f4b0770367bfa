"""``$code`` / ``$$code`` typed at the prompt, run in the session's eval kernel: what the
user defines there the ``eval`` tool sees, and the other way round. The result takes the
user shell's shape (output, exit code, cancelled); omp-user-shell's wrapper turns it into
the recorded message and keeps ``$$`` runs out of the model's context."""

from __future__ import annotations

from typing import Any

from omp import AbortSignal

from omp_tool_eval.kernel import CellRun, session_kernel
from omp_tool_eval.tool import LOST, LOST_STATE


async def run_user_python(event: Any, ctx: Any) -> dict[str, Any]:
    """Run the user's code in the kernel, without a time limit (the user can abort it)."""
    kernel = session_kernel(ctx, ctx.cwd)
    signal = event.signal if event.signal is not None else AbortSignal()
    async with kernel.lock:
        try:
            await kernel.prepare(event.cwd)
        except Exception as exc:
            return {"output": f"Could not start the Python kernel: {exc}\n", "exit_code": 1}
        run = await kernel.run(event.code, None, signal)
    return {
        "output": user_output(run),
        "exit_code": 0 if run.ok else 1,
        "cancelled": run.stopped == "aborted",
    }


def user_output(run: CellRun) -> str:
    """What the user sees, as ``python3 -c`` would print it: the output, then the
    traceback; notes for a restart or a dead kernel; images as a placeholder."""
    parts = ["".join(run.text)]
    parts += [f"[{mime} image: not shown here]\n" for mime, _ in run.images]
    if run.error:
        parts.append(run.error + "\n")
    if run.died is not None:
        parts.append(f"The kernel died (exit code {run.died}) and was restarted: {LOST_STATE}\n")
    elif run.restarted:
        parts.append(LOST + "\n")
    return "".join(parts)
