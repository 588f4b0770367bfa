"""The loop host of an AgentSession (omp.agent.host.LoopHost): the session's compaction,
retry fallback, tool approval, provider hooks and session_stop hook, answering the
loop's questions with decisions the loop applies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from omp.agent.fallback import ModelFallback
from omp.agent.host import CompactionOutcome, RequestHooks, RequestPlan, ResponseDecision
from omp.agent.session_stop import StopHook

if TYPE_CHECKING:
    from omp.agent.events import ToolCallDecision
    from omp.agent.messages import AgentMessage, AssistantMessage, ToolCall
    from omp.agent.providers import Model
    from omp.agent.tools import Tool
    from omp.base.abort import AbortSignal
    from omp.runtime.session import AgentSession


class SessionHost:
    """Built by the session once its parts are; reads the session, never writes the
    loop's conversation or model."""

    def __init__(self, session: AgentSession) -> None:
        self._session = session
        self._fallback = ModelFallback(session)
        self._stop = StopHook(session)
        self._overflow_retried = False

    async def before_request(
        self, messages: Sequence[AgentMessage], model: Model | None
    ) -> RequestPlan | None:
        self._overflow_retried = False
        return await self._session.compactor.before_request(messages, model)

    def request_hooks(self, model: Model) -> RequestHooks:
        return self._session.provider_hooks(model)

    async def on_response(
        self, message: AssistantMessage, model: Model | None, messages: Sequence[AgentMessage]
    ) -> ResponseDecision | None:
        """A fallback model first; a context overflow is compacted once per request."""
        fallback = await self._fallback(message, model)
        if fallback is not None:
            return ResponseDecision(retry=True, model=fallback)
        if message.stop_reason != "error" or self._overflow_retried:
            return None
        self._overflow_retried = True
        return await self._session.compactor.on_overflow(message, messages, model)

    async def approve(
        self, call: ToolCall, tool: Tool, decision: ToolCallDecision | None
    ) -> str | None:
        denied: str | None = await self._session.approval(call, tool, decision)
        return denied

    async def before_stop(
        self, turn_index: int, messages: Sequence[AgentMessage]
    ) -> list[AgentMessage]:
        return await self._stop(turn_index, messages)

    async def compact(
        self, instructions: str | None, messages: Sequence[AgentMessage], signal: AbortSignal
    ) -> CompactionOutcome:
        return await self._session.compactor.compact(messages, instructions, signal=signal)
