"""The provider contract: models keyed provider/id, and the normalized event stream.

A provider's ``stream(model, context, options)`` is an async iterator of event dicts:
``start``; for each content block ``text_start/_delta/_end``, ``thinking_start/_delta/
_end`` or ``toolcall_start/_delta/_end``; then ``done`` (reason stop | length |
toolUse) or ``error`` (reason error | aborted). ``AssistantStream`` builds these
events and the partial message they carry, so a provider only reports what arrived.
"""

from __future__ import annotations

import difflib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from omp.agent.messages import (
    AssistantMessage,
    RedactedThinkingContent,
    TextContent,
    ThinkingContent,
    ToolCall,
)
from omp.base.errors import UsageError
from omp.base.partial_json import CUT_OFF_TEXT, PartialJson, parse_partial_json

__all__ = ["AssistantStream", "Model", "ModelRegistry", "Provider", "parse_partial_json"]


@dataclass(frozen=True)
class Model:
    provider: str
    id: str
    name: str = ""
    api: str = ""
    base_url: str = ""
    context_window: int = 128_000
    max_tokens: int = 16_384
    reasoning: bool = False
    input: tuple[str, ...] = ("text",)
    cost: dict[str, float] = field(default_factory=dict)
    """Dollars per million tokens: input, output, cacheRead, cacheWrite (empty: unpriced)."""
    compat: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    thinking_level_map: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.provider}/{self.id}"


@dataclass
class LlmContext:
    """One provider request: the system prompt, the messages the model may see (already
    converted by ``omp.agent.messages.convert_to_llm``) and the tools it may call."""

    system_prompt: str
    messages: list[Any]
    tools: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class StreamOptions:
    signal: Any = None
    thinking_level: str = "off"
    api_key: str | None = None
    max_tokens: int | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    on_payload: Callable[[Any], Awaitable[Any]] | None = None
    """Given the JSON body an HTTP provider is about to send, returns the body to send."""
    on_response: Callable[[int, dict[str, str]], Awaitable[None]] | None = None
    """Told the status and (redacted) headers of each response."""
    on_credential_disabled: Callable[[str, str], Awaitable[None]] | None = None
    """Told (provider, cause) when a provider rejects its key."""


class Provider:
    """A model provider. Subclass and implement ``stream``.

    ``fallback`` providers (the scripted demo) are chosen only when no other provider
    is usable. ``unavailable_reason`` returns why the provider cannot be used now (a
    missing key, say) or None when it can.
    """

    name: str = ""
    api: str = ""
    fallback: bool = False
    priority: int = 1000
    """Lower is preferred when no model is named; fallback providers always come last."""
    configured_in: str = ""
    """The user's file that configures this provider ("" for a built-in one)."""

    def __init__(self, models: list[Model] | None = None) -> None:
        self.models: list[Model] = list(models or [])

    def unavailable_reason(self, settings: dict[str, Any]) -> str | None:
        return None

    def requested_by(self, flags: dict[str, Any]) -> str | None:
        """The flag (``--script``) by which the command line asked for this provider,
        or None. A requested provider is used without ``--model``, and ``--model``
        naming another provider's model is then an error."""
        return None

    def stream(
        self, model: Model, context: LlmContext, options: StreamOptions
    ) -> AsyncIterator[dict[str, Any]]:
        raise NotImplementedError


class AssistantStream:
    """Builds the normalized events of one assistant message, and the message itself."""

    def __init__(self, model: Model) -> None:
        self.message = AssistantMessage(api=model.api, provider=model.provider, model=model.id)
        self._partial_json: dict[int, PartialJson] = {}
        self._unsettled: set[int] = set()
        """Tool calls whose arguments may still grow: not ended, or fed after the end."""

    def _event(self, kind: str, **fields: Any) -> dict[str, Any]:
        return {"type": kind, **fields, "partial": self.message}

    @property
    def _index(self) -> int:
        return len(self.message.content) - 1

    def _grow(self, kind: str, field: str, delta: str) -> dict[str, Any]:
        """Append to the open block's text in amortized constant time.

        Taken out of the block's field dict first, the string has a single reference,
        so CPython extends it in place instead of copying the whole text for every
        delta (a long answer was quadratic); the dict write also skips pydantic's
        setattr, which nothing needs here.
        """
        content = self.message.content
        fields = content[-1].__dict__
        text = fields.pop(field)
        text += delta
        fields[field] = text
        return {
            "type": kind,
            "contentIndex": len(content) - 1,
            "delta": delta,
            "partial": self.message,
        }

    def start(self) -> dict[str, Any]:
        return self._event("start")

    def text_start(self) -> dict[str, Any]:
        self.message.content.append(TextContent(text=""))
        return self._event("text_start", contentIndex=self._index)

    def text_delta(self, delta: str) -> dict[str, Any]:
        return self._grow("text_delta", "text", delta)

    def text_end(self) -> dict[str, Any]:
        block = cast(TextContent, self.message.content[-1])
        return self._event("text_end", contentIndex=self._index, content=block.text)

    def thinking_start(self) -> dict[str, Any]:
        self.message.content.append(ThinkingContent(thinking=""))
        return self._event("thinking_start", contentIndex=self._index)

    def thinking_delta(self, delta: str) -> dict[str, Any]:
        return self._grow("thinking_delta", "thinking", delta)

    def thinking_end(self, signature: str | None = None) -> dict[str, Any]:
        block = cast(ThinkingContent, self.message.content[-1])
        if signature is not None:
            block.thinking_signature = signature
        return self._event("thinking_end", contentIndex=self._index, content=block.thinking)

    def redacted_thinking(self, data: str) -> None:
        """An encrypted thinking block (no text to stream); kept to be sent back."""
        self.message.content.append(RedactedThinkingContent(data=data))

    def toolcall_start(self, call_id: str, name: str) -> dict[str, Any]:
        self.message.content.append(ToolCall(id=call_id, name=name, arguments={}))
        self._partial_json[self._index] = PartialJson()
        self._unsettled.add(self._index)
        return self._event("toolcall_start", contentIndex=self._index)

    def toolcall_delta(self, fragment: str, index: int | None = None) -> dict[str, Any]:
        """A fragment of a tool call's JSON arguments; ``index`` names an earlier call's
        block when a provider interleaves parallel calls (default: the last block), which
        may have been ended already: the message's end settles it again."""
        index = self._index if index is None else index
        partial = self._partial_json[index]
        partial.feed(fragment)
        cast(ToolCall, self.message.content[index]).arguments = partial.value()
        self._unsettled.add(index)
        return self._event("toolcall_delta", contentIndex=index, delta=fragment)

    def toolcall_end(self, index: int | None = None) -> dict[str, Any]:
        index = self._index if index is None else index
        self._settle(index)
        block = self.message.content[index]
        return self._event("toolcall_end", contentIndex=index, toolCall=block)

    def _settle(self, index: int, cut_off: bool = False) -> None:
        """Final arguments, and whether the call may run: the one place that decides,
        for every provider (see ``omp.base.partial_json``)."""
        self._unsettled.discard(index)
        partial = self._partial_json.get(index)
        if partial is None:
            return
        block = cast(ToolCall, self.message.content[index])
        arguments = partial.result()
        block.arguments = arguments.value
        block.arguments_error = CUT_OFF_TEXT if cut_off else arguments.error
        block.arguments_repair = None if block.arguments_error else arguments.repair

    def done(self, reason: str | None = None) -> dict[str, Any]:
        """The message is complete. At the output limit (``length``) every tool call
        still streaming - not ended, or the last block - was cut off and must not run."""
        if reason is None:
            reason = "toolUse" if self.message.tool_calls else "stop"
        cut: set[int] = set()
        if reason == "length":
            cut = set(self._unsettled)
            if self.message.content and isinstance(self.message.content[-1], ToolCall):
                cut.add(self._index)
        for index in sorted(self._unsettled | cut):
            self._settle(index, cut_off=index in cut)
        self.message.stop_reason = reason  # type: ignore[assignment]
        return {"type": "done", "reason": reason, "message": self.message}

    def error(self, message: str, reason: str = "error") -> dict[str, Any]:
        """The message failed; tool calls still streaming were cut off."""
        for index in sorted(self._unsettled):
            self._settle(index, cut_off=True)
        self.message.stop_reason = reason  # type: ignore[assignment]
        self.message.error_message = message
        return {"type": "error", "reason": reason, "error": self.message}


# -- model registry and resolution ---------------------------------------------------


class ModelRegistry:
    """Every provider's models, keyed provider/id."""

    def __init__(self, providers: list[Provider], roles: Mapping[str, str] | None = None) -> None:
        self.providers = {p.name: p for p in providers}
        self.roles: dict[str, str] = dict(roles or {})
        """Model role -> pattern for this run (``omp.agent.model_roles``)."""

    @property
    def models(self) -> list[Model]:
        """Every provider's models now (a local provider may discover its models late)."""
        return [m for p in self.providers.values() for m in p.models]

    def provider_of(self, model: Model) -> Provider:
        return self.providers[model.provider]

    def usable(self, settings: dict[str, Any]) -> list[Model]:
        """The models that can be used now (their provider has no ``unavailable_reason``
        under ``settings``), in registry order: what every mode offers to pick or cycle."""
        return [m for m in self.models if not self.provider_of(m).unavailable_reason(settings)]

    def find(self, key: str) -> Model | None:
        return next((m for m in self.models if m.key == key), None)

    def expand_role(self, selector: str) -> str | None:
        """The model pattern ``selector`` stands for: itself when it names no role
        (``omp.agent.model_roles``); the role's pattern when the role is set (a
        ``:level`` suffix on the selector kept); None when the role is not set, so the
        caller uses its default model (the session's, for a subagent)."""
        from omp.agent.model_roles import role_named
        from omp.base.thinking import split_thinking

        seen: set[str] = set()
        pattern, level = split_thinking(selector)
        while (role := role_named(pattern, self.roles)) is not None:
            if role in seen or role not in self.roles:
                return None
            seen.add(role)
            pattern, own_level = split_thinking(self.roles[role])
            level = level or own_level
        if not seen:
            return selector
        return f"{pattern}:{level}" if level else pattern

    def resolve(self, pattern: str) -> Model:
        """provider/id exactly, then a unique id, then a unique fuzzy match; a role
        (``@smol``) is its pattern (``expand_role``; a thinking suffix dropped), and an
        error when the role is not set. Otherwise the error suggests models, those the
        user configured or can use now first."""
        from omp.agent.model_roles import role_named

        expanded = self.expand_role(pattern)
        if expanded is None:
            role = role_named(pattern, self.roles)
            raise UsageError(
                f"model role {role!r} is not set; set modelRoles.{role} in the settings"
                + (f" (or --{role} for this run)" if role in ("smol", "slow") else "")
            )
        if expanded != pattern:
            from omp.base.thinking import split_thinking

            pattern = split_thinking(expanded)[0]
        exact = self.find(pattern)
        if exact:
            return exact
        lowered = pattern.lower()
        by_id = [m for m in self.models if m.id.lower() == lowered]
        if len(by_id) == 1:
            return by_id[0]
        fuzzy = [m for m in self.models if lowered in m.key.lower()]
        if len(fuzzy) == 1:
            return fuzzy[0]
        if not self.models:
            raise UsageError(f"unknown model {pattern!r}: no providers are installed")
        candidates = by_id or fuzzy
        if not candidates:
            keys = [m.key for m in self.models]
            close = difflib.get_close_matches(pattern, keys, n=5, cutoff=0.3)
            candidates = [m for m in self.models if m.key in close]
        if not candidates:
            models = self.suggestion_order(self.models)
            raise UsageError(
                f"unknown model {pattern!r}; available: "
                + ", ".join(m.key for m in models[:10])
                + (f" (`omp models` lists all {len(models)})" if len(models) > 10 else "")
            )
        names = ", ".join(m.key for m in self.suggestion_order(candidates)[:5])
        verb = "is ambiguous" if (by_id or fuzzy) else "is unknown"
        raise UsageError(f"model {pattern!r} {verb}; closest matches: {names}")

    def suggestion_order(self, models: list[Model]) -> list[Model]:
        """``models`` with the usable ones the user configured first, then the rest that
        can be used now, then the user's unusable ones, the demo, and the others."""
        tiers: dict[str, int] = {}
        for name, provider in self.providers.items():
            usable = provider.unavailable_reason({}) is None
            configured = bool(provider.configured_in)
            if provider.fallback:
                tiers[name] = 3
            elif usable:
                tiers[name] = 0 if configured else 1
            else:
                tiers[name] = 2 if configured else 4
        priority = {name: p.priority for name, p in self.providers.items()}
        return sorted(models, key=lambda m: (tiers.get(m.provider, 4), priority.get(m.provider, 0)))

    def default(self, settings: dict[str, Any]) -> tuple[Model | None, list[str]]:
        """The model to use without --model, and why other providers were passed over."""
        reasons: list[str] = []
        ordered = sorted(self.providers.values(), key=lambda p: (p.fallback, p.priority))
        for provider in ordered:
            if not provider.models:
                continue
            why = provider.unavailable_reason(settings)
            if why:
                reasons.append(f"{provider.name}: {why}")
                continue
            return provider.models[0], reasons
        return None, reasons
