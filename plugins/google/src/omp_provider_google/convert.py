"""The one place where omp's messages become a Gemini generateContent request body."""

from __future__ import annotations

import re
from typing import Any

from omp.llm.usage import budget_tokens, thinking_value
from omp.messages import (
    AssistantMessage,
    DeveloperMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from omp.providers import Model

from omp_provider_google.schema import sanitize_schema

SKIP_SIGNATURE = "skip_thought_signature_validator"
"""What Gemini 3 accepts on a function call that has no signature of its own."""
NO_RESULT = "No result provided"
LEVELS = {"minimal": "low", "low": "low", "medium": "high", "high": "high", "xhigh": "high"}


def build_request(request: Any) -> dict[str, Any]:
    """The JSON body of one streamGenerateContent call."""
    model, context, options = request.model, request.context, request.options
    compat = request.compat
    body: dict[str, Any] = {"contents": convert_messages(model, context.messages, compat)}
    if context.system_prompt:
        body["systemInstruction"] = {"parts": [{"text": context.system_prompt}]}
    if context.tools:
        body["tools"] = [{"functionDeclarations": [_declaration(t) for t in context.tools]}]
    config: dict[str, Any] = {"maxOutputTokens": options.max_tokens or model.max_tokens}
    thinking = thinking_config(model, options.thinking_level, options.settings, compat)
    if thinking is not None:
        config["thinkingConfig"] = thinking
    body["generationConfig"] = config
    return body


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
    compat = compat or {}
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    pending: dict[str, str] = {}  # call id -> tool name, awaiting a result
    trailing: list[dict[str, Any]] = []  # parts that follow the run of responses

    def flush_pending() -> None:
        for call_id, name in pending.items():
            response = {"name": name, "response": {"error": NO_RESULT}, "id": call_id}
            turns.append(("user", [{"functionResponse": response}]))
        pending.clear()
        turns.append(("user", trailing[:]))
        trailing.clear()

    for message in messages:
        if isinstance(message, ToolResultMessage):
            call_id = normalize_id(message.tool_call_id)
            if call_id not in pending:
                continue
            del pending[call_id]
            part, extra = _response_parts(message, model, call_id)
            turns.append(("user", [part]))
            trailing.extend(extra)
            continue
        flush_pending()
        if isinstance(message, UserMessage | DeveloperMessage):
            turns.append(("user", _user_parts(message.content, model)))
        elif isinstance(message, AssistantMessage):
            parts = _model_parts(message, model)
            turns.append(("model", parts))
            for part in parts:
                if "functionCall" in part:
                    pending[part["functionCall"]["id"]] = part["functionCall"]["name"]
    flush_pending()

    contents: list[dict[str, Any]] = []
    for role, parts in turns:
        if not parts:
            continue
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": role, "parts": list(parts)})
    if compat.get("sendToolCallIds", True) is False:
        for content in contents:
            for part in content["parts"]:
                for key in ("functionCall", "functionResponse"):
                    if key in part:
                        part[key].pop("id", None)
    return contents
