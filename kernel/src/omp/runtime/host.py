"""The loop host of an AgentSession (omp.agent.host.LoopHost): retry fallback, tool
approval, provider hooks and the session_stop hook, answering the loop's questions with
decisions the loop applies; compaction is asked of plugins (``omp_before_request``,
``omp_context_overflow``, ``omp.runtime.compaction``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from omp.agent.fallback import ModelFallback
from omp.agent.host import CompactionOutcome, RequestHooks, RequestPlan, ResponseDecision
from omp.agent.provider_errors import is_context_overflow
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
        from omp.agent.events import BeforeRequestEvent

        decision = await self._session.hooks.before_request(
            BeforeRequestEvent(
                messages=list(messages), model=model, session=self._session.compaction_session
            )
        )
        if decision is None:
            return None
        return RequestPlan(messages=decision.messages, stop=decision.stop)

    def request_hooks(self, model: Model) -> RequestHooks:
        return self._session.provider_hooks(model)

    async def on_response(
        self, message: AssistantMessage, model: Model | None, messages: Sequence[AgentMessage]
    ) -> ResponseDecision | None:
        """A fallback model first; a context overflow is told the plugins once per
        request."""
        fallback = await self._fallback(message, model)
        if fallback is not None:
            return ResponseDecision(retry=True, model=fallback)
        if message.stop_reason != "error" or self._overflow_retried:
            return None
        self._overflow_retried = True
        overflow = message.error_kind == "context_overflow" or (
            message.error_kind is None and is_context_overflow(message.error_message or "")
        )
        if not overflow:
            return None
        from omp.agent.events import ContextOverflowEvent

        decision = await self._session.hooks.context_overflow(
            ContextOverflowEvent(
                message=message,
                messages=list(messages),
                model=model,
                session=self._session.compaction_session,
            )
        )
        if decision is None:
            return None
        return ResponseDecision(retry=decision.retry, messages=decision.messages)

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
        from omp.runtime.compaction import require_service

        service = await require_service(self._session)
        return await service.compact(messages, instructions, signal=signal)
