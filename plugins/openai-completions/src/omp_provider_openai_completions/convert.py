"""The request body: omp's messages, tools and options in the Chat Completions format.

``build_request`` is the one place where the kernel's messages become wire messages.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import string
from typing import Any

from omp import (
    AssistantMessage,
    DeveloperMessage,
    ImageContent,
    Model,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from omp_llm.body import PreparedBody
from omp_llm.incremental import WireCache, convert, tools_encoding
from omp_llm.usage import effort, thinking_value

OPENAI_ID_LIMIT = 40
_ALPHANUMERIC = string.ascii_letters + string.digits
_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]")
IMAGE_OMITTED = "(image omitted: this model does not accept images)"


def build_request(request: Any) -> dict[str, Any]:
    """The JSON body for POST {baseUrl}/chat/completions."""
    return prepare_request(request).payload


def prepare_request(request: Any) -> PreparedBody:
    """The body with the encoded bytes of the messages earlier requests converted."""
    model, context, options = request.model, request.context, request.options
    compat = request.compat
    converted = convert(request, context.messages, lambda: MessageFold(model, compat))
    if context.system_prompt:
        system = {"role": _system_role(model, compat), "content": context.system_prompt}
        converted = converted.after([system], WireCache.of(request).memo)
    body: dict[str, Any] = {"model": model.id, "messages": converted.items, "stream": True}
    if compat.get("supportsUsageInStreaming") is not False:
        body["stream_options"] = {"include_usage": True}
    fixed: dict[str, bytes] = {}
    if context.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool["name"],
                    "description": tool.get("description", ""),
                    "parameters": tool.get("parameters") or {"type": "object", "properties": {}},
                },
            }
            for tool in context.tools
        ]
        fixed = tools_encoding(request, body["tools"])
    if options.max_tokens:
        body[compat.get("maxTokensField") or "max_completion_tokens"] = options.max_tokens
    body.update(_thinking(model, options.thinking_level, compat))
    return converted.body(body, "messages", fixed)


def _thinking(model: Model, level: str, compat: dict[str, Any]) -> dict[str, Any]:
    """Reasoning parameters; ``off`` (or a level the model maps to None) sends none,
    except for the formats whose servers think by default and must be told not to."""
    if not model.reasoning:
        return {}
    chosen: str | None = None
    if level and level != "off":
        value = thinking_value(model, level)
        if value is not None:
            chosen = str(value) if level in model.thinking_level_map else effort(level)
    fmt = compat.get("thinkingFormat")
    if fmt == "qwen":
        return {"enable_thinking": chosen is not None}
    if fmt == "zai":
        return {"thinking": {"type": "enabled" if chosen else "disabled"}}
    if chosen is None:
        return {}
    if fmt == "openrouter":
        return {"reasoning": {"effort": chosen}}
    if compat.get("supportsReasoningEffort") is False:
        return {}
    return {"reasoning_effort": chosen}


@functools.lru_cache(maxsize=4096)
def tool_call_id(raw: str, length: int | None = None) -> str:
    """An id the API accepts, the same for a call and its result: ``length`` alphanumeric
    characters from a hash (Mistral wants 9), else the id itself when it is short and
    plain, else a 40-character form that keeps its start and a hash of the whole."""
    if length and len(raw) == length and raw.isascii() and raw.isalnum():
        return raw
    digest = hashlib.sha256(raw.encode("utf-8")).digest()
    if length:
        number = int.from_bytes(digest, "big")
        chars = []
        for _ in range(length):
            number, rest = divmod(number, len(_ALPHANUMERIC))
            chars.append(_ALPHANUMERIC[rest])
        return "".join(chars)
    clean = _ID_CHARS.sub("_", raw)
    if clean == raw and 0 < len(raw) <= OPENAI_ID_LIMIT:
        return raw
    return f"{clean[: OPENAI_ID_LIMIT - 9]}_{digest.hex()[:8]}"


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _image_part(block: ImageContent) -> dict[str, Any]:
    return {
        "type": "image_url",
        "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"},
    }


def _user_content(content: Any, images: bool) -> str | list[dict[str, Any]]:
    """A string when there is only text, else text and image_url parts."""
    if isinstance(content, str):
        return content
    if not any(isinstance(block, ImageContent) for block in content):
        return "".join(block.text for block in content if isinstance(block, TextContent))
    parts: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, TextContent):
            parts.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageContent):
            parts.append(_image_part(block) if images else {"type": "text", "text": IMAGE_OMITTED})
    return parts


def _system_role(model: Model, compat: dict[str, Any]) -> str:
    if model.reasoning and compat.get("supportsDeveloperRole") is not False:
        return "developer"
    return "system"


class MessageFold:
    """The messages in the wire format, one at a time (``omp_llm.incremental.Fold``).
    Before any message that is not a tool result, the calls left without a result get
    one (the API rejects them) and the images the tool results returned follow in a
    user message (tool messages cannot carry images)."""

    def __init__(self, model: Model, compat: dict[str, Any]) -> None:
        self.model, self.compat = model, compat
        self.id_length = int(compat.get("toolCallIdLength") or 0) or None
        self.images = "image" in model.input
        self.system_role = _system_role(model, compat)
        self.items: list[dict[str, Any]] = []
        self.pending: dict[str, str] = {}
        """Tool calls sent and not answered yet: wire id -> tool name."""
        self.tool_images: list[dict[str, Any]] = []

    def save(self) -> Any:
        return dict(self.pending), tuple(self.tool_images)

    def load(self, saved: Any) -> None:
        self.pending, self.tool_images = dict(saved[0]), list(saved[1])

    def add(self, message: Any) -> None:
        out = self.items
        if isinstance(message, ToolResultMessage):
            wire_id = tool_call_id(message.tool_call_id, self.id_length)
            if wire_id in self.pending:  # else it answers no call that was sent
                del self.pending[wire_id]
                out.append(
                    _tool_result(message, wire_id, self.images, self.compat, self.tool_images)
                )
            return
        out.extend(self._settled())
        self.pending, self.tool_images = {}, []
        if isinstance(message, UserMessage):
            out.append({"role": "user", "content": _user_content(message.content, self.images)})
        elif isinstance(message, DeveloperMessage):
            content = _user_content(message.content, self.images)
            role = self.system_role if isinstance(content, str) else "user"
            out.append({"role": role, "content": content})
        elif isinstance(message, AssistantMessage):
            entry = _assistant(message, self.id_length)
            if entry is not None:
                out.append(entry)
                for call in entry.get("tool_calls", []):
                    self.pending[call["id"]] = call["function"]["name"]

    def _settled(self) -> list[dict[str, Any]]:
        """What must follow the tool results before any other message."""
        out: list[dict[str, Any]] = [
            {"role": "tool", "tool_call_id": wire_id, "content": "No result provided"}
            for wire_id in self.pending
        ]
        if self.tool_images:
            text = {"type": "text", "text": "Images returned by the tool call(s) above:"}
            out.append({"role": "user", "content": [text, *self.tool_images]})
        return out

    def end(self) -> tuple[int, list[dict[str, Any]]]:
        return len(self.items), self._settled()


def _assistant(message: AssistantMessage, id_length: int | None) -> dict[str, Any] | None:
    """Text and tool calls; thinking is never sent back. A failed or aborted message
    keeps its text but not its tool calls, which were never run."""
    text = "".join(
        block.text for block in message.content if isinstance(block, TextContent) and block.text
    )
    calls = []
    if message.stop_reason not in ("error", "aborted"):
        calls = [
            {
                "id": tool_call_id(block.id, id_length),
                "type": "function",
                "function": {"name": block.name, "arguments": _json(block.arguments)},
            }
            for block in message.content
            if isinstance(block, ToolCall)
        ]
    if not text.strip() and not calls:
        return None
    entry: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        entry["tool_calls"] = calls
    return entry


def _tool_result(
    message: ToolResultMessage,
    wire_id: str,
    images: bool,
    compat: dict[str, Any],
    tool_images: list[dict[str, Any]],
) -> dict[str, Any]:
    """A role "tool" message: its text (tool messages cannot carry images, so those go
    in a user message after the tool results, with a note here)."""
    text = "\n".join(block.text for block in message.content if isinstance(block, TextContent))
    pictures = [block for block in message.content if isinstance(block, ImageContent)]
    if pictures:
        if images:
            tool_images.extend(_image_part(block) for block in pictures)
            note = f"({len(pictures)} image(s) attached in the next message)"
        else:
            note = IMAGE_OMITTED
        text = f"{text}\n{note}" if text else note
    if message.is_error and not text.lower().startswith("error"):
        text = f"Error: {text}" if text else "Error"
    entry = {"role": "tool", "tool_call_id": wire_id, "content": text or "(no output)"}
    if compat.get("requiresToolResultName"):
        entry["name"] = message.tool_name
    return entry
