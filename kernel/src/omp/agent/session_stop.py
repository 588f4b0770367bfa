"""The session_stop hook: asked each time the agent would stop, it may make the run
go on with a message, at most ``MAX_CONTINUATIONS`` times in a row."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from omp.agent.events import SessionStopEvent
from omp.agent.messages import CustomMessage

MAX_CONTINUATIONS = 8


class StopHook:
    """Asked (by the session's loop host) when the run would stop: fires session_stop
    and turns what the handlers returned into the message the run goes on with."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self._run: Any = None
        self.continuations = 0

    async def __call__(self, turn_index: int, messages: Sequence[Any]) -> list[Any]:
        session = self._session
        agent = session.agent
        if agent.signal is not self._run:  # a new run: the count starts again
            self._run, self.continuations = agent.signal, 0
        last = next((m for m in reversed(messages) if m.role == "assistant"), None)
        path = session.session_file.path
        event = SessionStopEvent(
            messages=list(messages),
            turn_id=turn_index,
            last_assistant_message=last,
            session_id=session.session_file.session_id,
            session_file=str(path) if path else None,
            stop_hook_active=self.continuations > 0,
            signal=agent.signal,
        )
        outcome = await session.hooks.session_stop(event)
        texts = [m["content"] for m in outcome.added_messages]
        if not texts:
            return []
        if self.continuations >= MAX_CONTINUATIONS:
            await session.notice(
                f"session_stop handlers asked the agent to go on {MAX_CONTINUATIONS} times "
                "in a row; it stops here",
                "warning",
            )
            return []
        self.continuations += 1
        return [CustomMessage(custom_type="session_stop", content="\n\n".join(texts))]
