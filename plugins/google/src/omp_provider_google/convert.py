"""The one place where omp's messages become a Gemini generateContent request body."""

from __future__ import annotations

import re
from typing import Any

from omp import (
    AssistantMessage,
    DeveloperMessage,
    ImageContent,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from omp_llm.body import PreparedBody
from omp_llm.incremental import WireCache, convert, tools_encoding
from omp_llm.usage import budget_tokens, thinking_value

from omp_provider_google.schema import sanitize_schema

SKIP_SIGNATURE = "skip_thought_signature_validator"
"""What Gemini 3 accepts on a function call that has no signature of its own."""
NO_RESULT = "No result provided"
LEVELS = {"minimal": "low", "low": "low", "medium": "high", "high": "high", "xhigh": "high"}


def build_request(request: Any) -> dict[str, Any]:
    """The JSON body of one streamGenerateContent call."""
    return prepare_request(request).payload


def prepare_request(request: Any) -> PreparedBody:
    """The body with the encoded bytes of the contents earlier requests converted."""
    model, context, options = request.model, request.context, request.options
    compat = request.compat
    contents = convert(request, context.messages, lambda: ContentFold(model, compat))
    body: dict[str, Any] = {"contents": contents.items}
    fixed: dict[str, bytes] = {}
    if context.system_prompt:
        system = body["systemInstruction"] = {"parts": [{"text": context.system_prompt}]}
        memo = WireCache.of(request).memo
        fixed["systemInstruction"] = memo.encode(("system", context.system_prompt), None, system)
    if context.tools:
        body["tools"] = [{"functionDeclarations": [_declaration(t) for t in context.tools]}]
        fixed.update(tools_encoding(request, body["tools"]))
    config: dict[str, Any] = {"maxOutputTokens": options.max_tokens or model.max_tokens}
    thinking = thinking_config(model, options.thinking_level, options.settings, compat)
    if thinking is not None:
        config["thinkingConfig"] = thinking
    body["generationConfig"] = config
    return contents.body(body, "contents", fixed)


def _declaration(tool: dict[str, Any]) -> dict[str, Any]:
    out = {"name": tool["name"], "description": tool.get("description") or ""}
    params = sanitize_schema(tool.get("parameters") or {})
    if params.get("properties") or params.get("type", "object") != "object":
        out["parameters"] = params
    return out


# -- thinking ---------------------------------------------------------------------------


def uses_levels(model: Model, compat: dict[str, Any]) -> bool:
    """Gemini 3 takes a thinkingLevel; earlier models a token budget."""
    mode = compat.get("thinkingMode")
    return mode == "level" if mode in ("level", "budget") else "gemini-3" in model.id


def thinking_config(
    model: Model, level: str, settings: dict[str, Any], compat: dict[str, Any]
) -> dict[str, Any] | None:
    if not model.reasoning:
        return None
    levels = uses_levels(model, compat)
    value = thinking_value(model, level)
    if value is None:
        return None
    explicit = level in model.thinking_level_map
    if level == "off":
        if explicit:
            return _value_config(value, levels, thoughts=False)
        if levels:
            return {"thinkingLevel": "low"}
        # 2.5 Pro cannot switch thinking off: leave its default
        return None if "pro" in model.id else {"thinkingBudget": 0}
    if not explicit:
        value = LEVELS.get(level, "high") if levels else budget_tokens(level, settings)
    return _value_config(value, levels, thoughts=compat.get("includeThoughts", True))


def _value_config(value: Any, levels: bool, thoughts: bool) -> dict[str, Any]:
    key = "thinkingBudget" if isinstance(value, int) or not levels else "thinkingLevel"
    config: dict[str, Any] = {key: value}
    if thoughts:
        config["includeThoughts"] = True
    return config


# -- messages ---------------------------------------------------------------------------

_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def normalize_id(call_id: str) -> str:
    return _ID_UNSAFE.sub("_", call_id)[:64] or "call"


def _same_source(message: AssistantMessage, model: Model) -> bool:
    return message.provider == model.provider and message.api == model.api


def _signature(block: Any, *names: str) -> str | None:
    for name in names:
        value = getattr(block, name, None)
        if value is None and block.model_extra:
            value = block.model_extra.get(name)
        if isinstance(value, str) and value:
            return value
    return None


def _user_parts(content: Any, model: Model) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}] if content.strip() else []
    parts: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, TextContent):
            if block.text.strip():
                parts.append({"text": block.text})
        elif isinstance(block, ImageContent):
            if "image" in model.input:
                parts.append({"inlineData": {"mimeType": block.mime_type, "data": block.data}})
            else:
                parts.append({"text": "(image omitted: this model does not accept images)"})
    return parts


def _model_parts(message: AssistantMessage, model: Model) -> list[dict[str, Any]]:
    same = _same_source(message, model)
    signed = same and message.model == model.id
    broken = message.stop_reason in ("error", "aborted")
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if not block.text.strip():
                continue
            part: dict[str, Any] = {"text": block.text}
            sig = signed and _signature(block, "text_signature", "textSignature")
            if sig:
                part["thoughtSignature"] = sig
            parts.append(part)
        elif isinstance(block, ThinkingContent):
            if not block.thinking.strip():
                continue
            if not same:
                parts.append({"text": block.thinking})
                continue
            part = {"text": block.thinking, "thought": True}
            sig = signed and _signature(block, "thinking_signature", "thinkingSignature")
            if sig:
                part["thoughtSignature"] = sig
            parts.append(part)
        elif isinstance(block, ToolCall) and not broken:
            call = {"name": block.name, "args": block.arguments or {}, "id": normalize_id(block.id)}
            part = {"functionCall": call}
            sig = signed and _signature(block, "thought_signature", "thoughtSignature")
            if sig or "gemini-3" in model.id:
                part["thoughtSignature"] = sig or SKIP_SIGNATURE
            parts.append(part)
    return parts


def _response_parts(
    message: ToolResultMessage, model: Model, call_id: str
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The functionResponse part, and the parts that must follow the responses (images
    for models that cannot take them inside the response)."""
    text = "\n".join(b.text for b in message.content if isinstance(b, TextContent))
    images = [
        {"inlineData": {"mimeType": b.mime_type, "data": b.data}}
        for b in message.content
        if isinstance(b, ImageContent) and "image" in model.input
    ]
    value = text or ("(see attached image)" if images else "")
    response: dict[str, Any] = {
        "name": message.tool_name,
        "response": {"error": value} if message.is_error else {"output": value},
        "id": call_id,
    }
    if images and "gemini-3" in model.id:
        response["parts"] = images
        return {"functionResponse": response}, []
    after = [{"text": "Tool result image:"}, *images] if images else []
    return {"functionResponse": response}, after


def convert_messages(
    model: Model, messages: list[Any], compat: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Gemini ``contents``: user/model turns, consecutive same-role turns merged, every
    function call answered (results with no sent call dropped, missing ones filled)."""
    fold = ContentFold(model, compat or {})
    for message in messages:
        fold.add(message)
    kept, tail = fold.end()
    return fold.items[:kept] + tail


class ContentFold:
    """``contents``, one message at a time (``omp_llm.incremental.Fold``): a content is
    final once the other role speaks."""

    def __init__(self, model: Model, compat: dict[str, Any]) -> None:
        self.model = model
        self.send_ids = compat.get("sendToolCallIds", True) is not False
        self.items: list[dict[str, Any]] = []
        self.role: str | None = None
        self.parts: list[dict[str, Any]] = []
        """The open content."""
        self.pending: dict[str, str] = {}
        """Call id -> tool name, awaiting a result."""
        self.trailing: list[dict[str, Any]] = []
        """Parts that follow the run of responses."""

    def save(self) -> Any:
        return self.role, tuple(self.parts), dict(self.pending), tuple(self.trailing)

    def load(self, saved: Any) -> None:
        role, parts, pending, trailing = saved
        self.role, self.parts = role, list(parts)
        self.pending, self.trailing = dict(pending), list(trailing)

    def add(self, message: Any) -> None:
        model = self.model
        if isinstance(message, ToolResultMessage):
            call_id = normalize_id(message.tool_call_id)
            if call_id not in self.pending:
                return
            del self.pending[call_id]
            part, extra = _response_parts(message, model, call_id)
            self._add("user", [part])
            self.trailing.extend(extra)
            return
        self._add("user", self._unanswered())
        self.pending, self.trailing = {}, []
        if isinstance(message, UserMessage | DeveloperMessage):
            self._add("user", _user_parts(message.content, model))
        elif isinstance(message, AssistantMessage):
            parts = _model_parts(message, model)
            for part in parts:
                if "functionCall" in part:
                    self.pending[part["functionCall"]["id"]] = part["functionCall"]["name"]
            self._add("model", parts)

    def _unanswered(self) -> list[dict[str, Any]]:
        """Responses for the calls left without one, then the trailing parts."""
        missing = [
            {"functionResponse": {"name": name, "response": {"error": NO_RESULT}, "id": call_id}}
            for call_id, name in self.pending.items()
        ]
        return missing + self.trailing

    def _add(self, role: str, parts: list[dict[str, Any]]) -> None:
        if not parts:
            return
        if role != self.role:
            if self.role is not None:
                self.items.append({"role": self.role, "parts": self.parts})
            self.role, self.parts = role, []
        self.parts.extend(parts if self.send_ids else map(_without_id, parts))

    def end(self) -> tuple[int, list[dict[str, Any]]]:
        if self.role is None:
            return len(self.items), []
        parts = self.parts
        unanswered = self._unanswered()
        if not self.send_ids:
            unanswered = [_without_id(part) for part in unanswered]
        if unanswered and self.role == "user":
            return len(self.items), [{"role": "user", "parts": [*parts, *unanswered]}]
        tail = [{"role": self.role, "parts": list(parts)}]
        if unanswered:
            tail.append({"role": "user", "parts": unanswered})
        return len(self.items), tail


def _without_id(part: dict[str, Any]) -> dict[str, Any]:
    for key in ("functionCall", "functionResponse"):
        if key in part:
            inner = {name: value for name, value in part[key].items() if name != "id"}
            return {**part, key: inner}
    return part
