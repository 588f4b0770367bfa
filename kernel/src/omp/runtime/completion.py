"""One-shot model calls without a session (pi's ``complete``/``stream``): a plugin
asks a model something of its own — a handoff summary, a title, a classification::

    answer = await complete(ctx.model, [UserMessage(content=question)],
                            registry=ctx.model_registry)

The provider is found through the model registry and the messages cross the same
conversion boundary as the agent loop's. No hooks run and nothing is written.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from omp.base.errors import OmpError
from omp.base.thinking import ThinkingLevel

if TYPE_CHECKING:
    from omp.agent.messages import AgentMessage, AssistantMessage
    from omp.agent.providers import LlmContext, Model, ModelRegistry, Provider, StreamOptions
    from omp.agent.tools import Tool
    from omp.base.abort import AbortSignal


async def complete(
    model: Model | str,
    messages: Sequence[AgentMessage | str],
    *,
    system: str | None = None,
    tools: Sequence[Tool] | None = None,
    thinking: ThinkingLevel | None = None,
    signal: AbortSignal | None = None,
    max_tokens: int | None = None,
    registry: ModelRegistry | None = None,
    settings: Mapping[str, Any] | None = None,
    on_payload: Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]] | None = None,
) -> AssistantMessage:
    """The model's answer to ``messages`` (a string is a user message).

    ``registry``: where to find the model's provider (a plugin passes
    ``ctx.model_registry``); without it the installed providers are loaded for the
    current directory. ``tools`` are offered to the model; the calls it makes are in the
    answer's ``tool_calls``, for the caller to run. A failed or aborted request is an
    answer whose ``stop_reason`` is ``"error"`` or ``"aborted"`` (``error_message``
    says why); a model that is unknown or cannot be used raises ``OmpError``.
    ``on_payload`` is given the JSON body an HTTP provider is about to send and returns
    the body to send (None: unchanged), for provider-specific request fields such as
    Anthropic's server tools; a provider that sends no JSON body never calls it.
    """
    from omp.agent.messages import AssistantMessage
    from omp.base.abort import AbortSignal, run_abortable

    signal = signal or AbortSignal()
    provider, found, context, options = _request(
        model, messages, system, tools, thinking, signal, max_tokens, registry, settings, on_payload
    )
    final: list[AssistantMessage] = []

    async def consume() -> None:
        async for event in provider.stream(found, context, options):
            if event["type"] in ("done", "error"):
                final.append(event.get("message") or event["error"])
                return

    failure = await run_abortable(consume(), signal)
    if final:
        return final[0]
    return AssistantMessage(
        api=found.api,
        provider=found.provider,
        model=found.id,
        stop_reason="aborted" if signal.aborted else "error",
        error_message=failure or "the provider ended without an answer",
    )


async def stream_completion(
    model: Model | str,
    messages: Sequence[AgentMessage | str],
    *,
    system: str | None = None,
    tools: Sequence[Tool] | None = None,
    thinking: ThinkingLevel | None = None,
    signal: AbortSignal | None = None,
    max_tokens: int | None = None,
    registry: ModelRegistry | None = None,
    settings: Mapping[str, Any] | None = None,
    on_payload: Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]] | None = None,
) -> AsyncIterator[dict[str, Any]]:
    """``complete``, as the provider's events: ``start``, ``text_delta`` (``delta``),
    ``thinking_delta``, ``toolcall_*`` and a last ``done`` (``message``) or ``error``
    (``error``: the failed AssistantMessage). Each event's ``partial`` is the message
    so far."""
    from omp.base.abort import AbortSignal

    signal = signal or AbortSignal()
    provider, found, context, options = _request(
        model, messages, system, tools, thinking, signal, max_tokens, registry, settings, on_payload
    )
    async for event in provider.stream(found, context, options):
        yield event


def serialize_conversation(messages: Sequence[AgentMessage]) -> str:
    """The conversation as labelled text (``[User]: ...``, ``[Assistant]: ...``,
    ``[Tool result]: ...``, long results cut), for a prompt that asks a model *about*
    a conversation instead of continuing it (pi's ``serializeConversation``)."""
    from omp.agent.messages import AssistantMessage, ToolResultMessage, content_text, convert_to_llm

    lines: list[str] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            thinking = "".join(getattr(b, "thinking", "") for b in message.content)
            if thinking.strip():
                lines.append(f"[Assistant thinking]: {thinking}")
            if message.text.strip():
                lines.append(f"[Assistant]: {message.text}")
            calls = "; ".join(f"{c.name}({_arguments(c.arguments)})" for c in message.tool_calls)
            if calls:
                lines.append(f"[Assistant tool calls]: {calls}")
        elif isinstance(message, ToolResultMessage):
            text = content_text(message.content)
            if len(text) > TOOL_RESULT_CHARS:
                cut = len(text) - TOOL_RESULT_CHARS
                text = text[:TOOL_RESULT_CHARS] + f"\n[... {cut} more characters truncated]"
            lines.append(f"[Tool result]: {text}")
        else:
            for converted in convert_to_llm([message]):
                lines.append(f"[User]: {content_text(converted.content)}")
    return "\n\n".join(lines)


TOOL_RESULT_CHARS = 2_000
"""A tool result is cut to this many characters in ``serialize_conversation``."""


def _arguments(arguments: dict[str, Any]) -> str:
    import json

    return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)[:200]}" for k, v in arguments.items())


def _request(
    model: Model | str,
    messages: Sequence[AgentMessage | str],
    system: str | None,
    tools: Sequence[Tool] | None,
    thinking: ThinkingLevel | None,
    signal: AbortSignal,
    max_tokens: int | None,
    registry: ModelRegistry | None,
    settings: Mapping[str, Any] | None,
    on_payload: Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]] | None = None,
) -> tuple[Provider, Model, LlmContext, StreamOptions]:
    from omp.agent.loop import IncrementalConversion
    from omp.agent.messages import UserMessage
    from omp.agent.providers import LlmContext, StreamOptions
    from omp.base.thinking import THINKING_LEVELS

    if thinking is not None and thinking not in THINKING_LEVELS:
        raise OmpError(
            f"unknown thinking level {thinking!r}; use one of " + ", ".join(THINKING_LEVELS)
        )
    if registry is None:
        registry, discovered = _installed_models()
        settings = discovered if settings is None else settings
    found = registry.resolve(model) if isinstance(model, str) else model
    provider = registry.providers.get(found.provider)
    if provider is None:
        raise OmpError(f"model {found.key}: no installed provider is named {found.provider!r}")
    stream_settings = dict(settings or {})
    reason = provider.unavailable_reason(stream_settings)
    if reason:
        raise OmpError(f"model {found.key} cannot be used: {reason}")
    given = [UserMessage(content=m) if isinstance(m, str) else m for m in messages]
    context = LlmContext(
        system_prompt=system or "",
        messages=IncrementalConversion()(given),
        tools=[tool.spec() for tool in tools or ()],
    )
    options = StreamOptions(
        signal=signal,
        thinking_level=thinking or "off",
        max_tokens=max_tokens or found.max_tokens,
        settings=stream_settings,
        on_payload=on_payload,
    )
    return provider, found, context, options


def _installed_models() -> tuple[ModelRegistry, dict[str, Any]]:
    """The installed providers' models and the current directory's settings."""
    import os
    from pathlib import Path

    from omp.runtime.bootstrap import load_runtime, model_registry
    from omp.runtime.sdk import flag_values

    runtime = load_runtime(cwd=Path(os.getcwd()), kinds=["providers"])
    runtime.api._set_flags(flag_values(runtime, {}))
    return model_registry(runtime), runtime.settings.data
