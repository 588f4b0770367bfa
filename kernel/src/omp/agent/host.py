"""What the agent loop asks of whoever runs it: one typed protocol whose methods return
decisions (messages to send, a model to retry with, a denial, messages to go on with).
The loop applies every decision itself; nothing outside it changes its conversation or
its model. ``NullHost`` answers for a loop used bare.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

if TYPE_CHECKING:
    from omp.agent.events import ToolCallDecision
    from omp.agent.messages import AgentMessage, AssistantMessage, ToolCall
    from omp.agent.providers import Model
    from omp.agent.tools import Tool
    from omp.base.abort import AbortSignal


@dataclass(frozen=True, slots=True)
class RequestPlan:
    """How to send the next model request: ``messages`` replace the conversation
    (pruned, or compacted at the threshold); ``stop`` ends the run instead of sending
    (the turn cannot fit the context; the host has said why)."""

    messages: list[AgentMessage] | None = None
    stop: bool = False


@dataclass(frozen=True, slots=True)
class ResponseDecision:
    """What to do about a response: ``messages`` replace the conversation (compacted
    after a context overflow); ``retry`` sends the request once more, with ``model``
    for the rest of this run when given (a fallback: the loop goes back to its model
    when the run ends, unless the model was changed meanwhile)."""

    retry: bool = False
    model: Model | None = None
    messages: list[AgentMessage] | None = None


@dataclass(frozen=True, slots=True)
class CompactionOutcome:
    """A compaction the host made: ``result`` for the caller (summary,
    first_kept_entry_id, tokens_before, tokens_after, details), and ``messages``, the
    conversation that replaces every message up to and including ``upto`` (messages
    added after ``upto`` while it was made are kept after them)."""

    result: dict[str, Any]
    messages: list[AgentMessage]
    upto: AgentMessage | None


Approver = Callable[["ToolCall", "Tool", "ToolCallDecision | None"], Awaitable[str | None]]
"""Decides whether a tool call may run: None, or why it may not (``LoopHost.approve``)."""


class RequestHooks(TypedDict, total=False):
    """The StreamOptions callbacks of one request (omp.agent.providers.StreamOptions)."""

    on_payload: Callable[[Any], Awaitable[Any]]
    on_response: Callable[[int, dict[str, str]], Awaitable[None]]
    on_credential_disabled: Callable[[str, str], Awaitable[None]]


class LoopHost(Protocol):
    """The loop's questions to the session that runs it (``omp.runtime.host``)."""

    async def before_request(
        self, messages: Sequence[AgentMessage], model: Model | None
    ) -> RequestPlan | None:
        """Before each model request: None to send the conversation as it is."""
        ...

    def request_hooks(self, model: Model) -> RequestHooks:
        """The provider callbacks for a request to ``model``."""
        ...

    async def on_response(
        self, message: AssistantMessage, model: Model | None, messages: Sequence[AgentMessage]
    ) -> ResponseDecision | None:
        """Told every response (``message`` is already in ``messages``): None accepts
        it; a decision may replace the conversation and send the request again."""
        ...

    async def approve(
        self, call: ToolCall, tool: Tool, decision: ToolCallDecision | None
    ) -> str | None:
        """Before a tool call runs, with the tool_call hooks' decision: None to run it,
        else why it is denied."""
        ...

    async def before_stop(
        self, turn_index: int, messages: Sequence[AgentMessage]
    ) -> list[AgentMessage]:
        """When the run would stop: messages to go on with, or none to stop."""
        ...

    async def compact(
        self, instructions: str | None, messages: Sequence[AgentMessage], signal: AbortSignal
    ) -> CompactionOutcome:
        """Compact the conversation now (``messages`` is the loop's, live and read-only);
        raises omp.base.errors.OmpError when nothing was compacted."""
        ...


class NullHost:
    """The host of a loop used bare: sends everything as it is, runs every tool call,
    never retries nor goes on, cannot compact."""

    async def before_request(
        self, messages: Sequence[AgentMessage], model: Model | None
    ) -> RequestPlan | None:
        return None

    def request_hooks(self, model: Model) -> RequestHooks:
        return {}

    async def on_response(
        self, message: AssistantMessage, model: Model | None, messages: Sequence[AgentMessage]
    ) -> ResponseDecision | None:
        return None

    async def approve(
        self, call: ToolCall, tool: Tool, decision: ToolCallDecision | None
    ) -> str | None:
        return None

    async def before_stop(
        self, turn_index: int, messages: Sequence[AgentMessage]
    ) -> list[AgentMessage]:
        return []

    async def compact(
        self, instructions: str | None, messages: Sequence[AgentMessage], signal: AbortSignal
    ) -> CompactionOutcome:
        from omp.base.errors import OmpError

        raise OmpError("this agent has no host that can compact")
