"""Commands the user runs straight from the prompt, as in omp: the kernel's part.

``!cmd`` / ``!!cmd`` run a shell command, ``$code`` / ``$$code`` Python; the doubled
prefix keeps the run out of the model's context. The kernel only recognises the
prefixes, dispatches user_bash / user_python and records the message the winning
handler's result became. Running the command, cutting its output and hiding secrets
belong to the user shell plugin (omp-user-shell): without it nothing runs, and the
user is told so — the text is never sent to the model as a prompt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from omp.agent.events import UserBashEvent, UserPythonEvent, UserShellRun
from omp.base.errors import OmpError

if TYPE_CHECKING:
    from omp.base.abort import AbortSignal
    from omp.runtime.session import AgentSession

_PREFIXES: tuple[tuple[str, Literal["bash", "python"], bool], ...] = (
    ("!!", "bash", True),
    ("!", "bash", False),
    ("$$", "python", True),
    ("$", "python", False),
)


def parse(text: str) -> tuple[str, Literal["bash", "python"], str, bool] | None:
    """(prefix, kind, code, exclude_from_context) for a user command, else None."""
    for prefix, kind, exclude in _PREFIXES:
        if text.startswith(prefix):
            return prefix, kind, text[len(prefix) :].strip(), exclude
    return None


async def run_user_command(session: AgentSession, text: str) -> bool:
    """Run ``text`` if it is a user command (then True), else leave it (False)."""
    parsed = parse(text)
    if parsed is None:
        return False
    prefix, kind, code, exclude = parsed
    if not code:
        await session.notice(f"nothing to run after {prefix}", "warning")
        return True
    try:
        await run_user_shell(session, kind, code, exclude)
    except OmpError as exc:
        await session.notice(str(exc), "warning")
    return True


async def run_user_shell(
    session: AgentSession,
    kind: Literal["bash", "python"],
    code: str,
    exclude: bool = False,
    signal: AbortSignal | None = None,
) -> UserShellRun:
    """Run ``code`` as the user's own command (``kind`` bash or python) through the
    user_bash / user_python hooks, and add its message to the conversation (steered in
    while the agent runs). An abort ``signal`` ends the run as cancelled. The prompt's
    ``!``/``$`` path and RPC's ``bash`` both come here. Raises OmpError (one line) when
    no user shell plugin is installed."""
    cwd = session.cwd
    if kind == "bash":
        bash = UserBashEvent(command=code, exclude_from_context=exclude, cwd=cwd, signal=signal)
        answer = await session.hooks.user_bash(bash)
    else:
        python = UserPythonEvent(code=code, exclude_from_context=exclude, cwd=cwd, signal=signal)
        answer = await session.hooks.user_python(python)
    run = answer.result if answer is not None else None
    if not isinstance(run, UserShellRun):
        raise OmpError(f"no user shell plugin is installed: the {kind} command was not run")
    if session.agent.is_streaming:
        session.agent.steer(run.message)
    else:
        await session.agent.add_message(run.message)
    return run
