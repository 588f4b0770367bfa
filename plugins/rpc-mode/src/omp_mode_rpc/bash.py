"""``bash`` and ``abort_bash`` (§2.3): one user command at a time or several, each in
the background so ``abort_bash`` (or any command) can overtake it; the command runs as
a ``!cmd`` typed at the prompt does (``AgentSession.run_user_shell``: the user shell plugin runs
it, the kernel adds its ``bashExecution`` message), and the response is omp's
BashResult."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from omp import AbortSignal, OmpError

from omp_mode_rpc.state import one_line

if TYPE_CHECKING:
    from omp import AgentSession


class UserBash:
    def __init__(
        self,
        session: AgentSession,
        respond: Callable[..., None],
        settled: Callable[[Any], None],
    ) -> None:
        self.session = session
        self.respond = respond
        self._settled = settled
        self.tasks: set[asyncio.Future[Any]] = set()
        self._signals: set[AbortSignal] = set()

    def start(self, request_id: Any, command: str) -> None:
        signal = AbortSignal()
        self._signals.add(signal)
        task = asyncio.ensure_future(self._run(request_id, command, signal))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        task.add_done_callback(self._settled)

    def abort(self) -> None:
        for signal in list(self._signals):
            signal.abort("aborted")

    async def _run(self, request_id: Any, command: str, signal: AbortSignal) -> None:
        try:
            run = await self.session.run_user_shell("bash", command, signal=signal)
        except (OSError, OmpError) as exc:
            self.respond(request_id, "bash", error=one_line(exc))
            return
        finally:
            self._signals.discard(signal)
        message = run.message
        output = message.output
        result = {
            "output": output,
            "exitCode": message.exit_code,
            "cancelled": message.cancelled,
            "truncated": message.truncated,
            "totalLines": run.total_lines,
            "totalBytes": run.total_bytes,
            "outputLines": len(output.splitlines()),
            "outputBytes": len(output.encode("utf-8")),
            "workingDir": str(self.session.cwd),
        }
        self.respond(request_id, "bash", {k: v for k, v in result.items() if v is not None})
