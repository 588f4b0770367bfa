"""build_request: the one place where omp's messages become a Responses API request body.

History rules: thinking from another provider/api becomes plain assistant text (its
signature means nothing here); a failed or aborted assistant turn is sent without its
reasoning and tool calls; a tool result that answers no sent call is dropped and a sent
call that got no result is given a placeholder one, so the API never rejects the input.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from typing import Any

from omp import (
    AssistantMessage,
    DeveloperMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from omp_llm.body import PreparedBody
from omp_llm.incremental import WireCache, convert, tools_encoding
from omp_llm.usage import effort, thinking_value

MAX_ID = 64
NO_RESULT = "No result provided (the tool call did not complete)."
NO_IMAGES = "(image omitted: this model does not accept images)"
_BAD_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def build_request(request: Any) -> dict[str, Any]:
    return prepare_request(request).payload


def prepare_request(request: Any) -> PreparedBody:
    """The body with the encoded bytes of the items earlier requests converted."""
    model, context, compat = request.model, request.context, request.compat
    options = request.options
    store = bool(compat.get("store", False))
    converted = convert(request, context.messages, lambda: ItemFold(model, compat))
    if context.system_prompt:
        role = _developer_role(compat) if model.reasoning else "system"
        system = {"role": role, "content": clean(context.system_prompt)}
        converted = converted.after([system], WireCache.of(request).memo)
    body: dict[str, Any] = {
        "model": model.id,
        "input": converted.items,
        "stream": True,
        "store": store,
    }
    if model.reasoning:
        body["include"] = ["reasoning.encrypted_content"]
        reasoning = reasoning_param(model, options.thinking_level, compat)
        if reasoning:
            body["reasoning"] = reasoning
    if not compat.get("omitMaxOutputTokens"):
        body["max_output_tokens"] = options.max_tokens or model.max_tokens
    fixed: dict[str, bytes] = {}
    if context.tools:
        body["tools"] = [
            {
                "type": "function",
                "name": tool["name"],
                "description": tool.get("description", ""),
                "parameters": tool.get("parameters") or {"type": "object", "properties": {}},
                "strict": False,
            }
            for tool in context.tools
        ]
        body["tool_choice"] = "auto"
        fixed = tools_encoding(request, body["tools"])
    if compat.get("serviceTier"):
        body["service_tier"] = compat["serviceTier"]
    return converted.body(body, "input", fixed)


def reasoning_param(model: Any, level: str, compat: dict[str, Any]) -> dict[str, Any] | None:
    """``reasoning`` for a reasoning model: the effort for ``level`` (a thinkingLevelMap
    entry wins; None there means unsupported), with a summary unless compat turns it off.
    "off" sends nothing unless the map names an effort for it (e.g. "none")."""
    if level == "off":
        value = model.thinking_level_map.get("off")
        return {"effort": str(value)} if value is not None else None
    value = thinking_value(model, level)
    if value is None:
        return None
    chosen = str(value) if level in model.thinking_level_map else effort(level)
    param: dict[str, Any] = {"effort": chosen}
    summary = compat.get("reasoningSummary", "auto")
    if summary:
        param["summary"] = summary
    return param


@functools.lru_cache(maxsize=4096)
def call_id(tool_call_id: str) -> str:
    """The API's call_id for a stored tool-call id (``<call_id>|<item_id>`` or a foreign id):
    letters, digits, ``_`` and ``-``, at most 64 characters, the same for a call and its
    result."""
    base = tool_call_id.split("|", 1)[0]
    safe = _BAD_ID_CHARS.sub("_", base)
    if safe and safe == base and len(safe) <= MAX_ID:
        return safe
    digest = hashlib.sha256(base.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{safe[: MAX_ID - 13]}_{digest}" if safe else f"call_{digest}"


def clean(text: str) -> str:
    """Text that encodes as UTF-8 (lone surrogates replaced)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def convert_messages(model: Any, context: Any, compat: dict[str, Any]) -> list[dict[str, Any]]:
    """The system prompt and the messages as input items."""
    fold = ItemFold(model, compat)
    for message in context.messages:
        fold.add(message)
    lead = []
    if context.system_prompt:
        role = _developer_role(compat) if model.reasoning else "system"
        lead.append({"role": role, "content": clean(context.system_prompt)})
    kept, tail = fold.end()
    return lead + fold.items[:kept] + tail


def _developer_role(compat: dict[str, Any]) -> str:
    return "developer" if compat.get("supportsDeveloperRole", True) else "system"


class ItemFold:
    """The messages as input items, one at a time (``omp_llm.incremental.Fold``).
    Before any message that is not a tool result, the calls left without a result get
    a placeholder one and the images the results returned follow as user content."""

    def __init__(self, model: Any, compat: dict[str, Any]) -> None:
        self.model, self.compat = model, compat
        self.developer = _developer_role(compat)
        self.store = bool(compat.get("store", False))
        self.items: list[dict[str, Any]] = []
        self.pending: dict[str, None] = {}
        """Calls sent and not yet answered, in order (a dict: a reply of thousands of
        calls is looked up and removed from once per result)."""
        self.deferred: list[dict[str, Any]] = []
        """Tool-result images, sent after the results."""

    def save(self) -> Any:
        return tuple(self.pending), tuple(self.deferred)

    def load(self, saved: Any) -> None:
        self.pending, self.deferred = dict.fromkeys(saved[0]), list(saved[1])

    def _settled(self) -> list[dict[str, Any]]:
        placeholders = [
            {"type": "function_call_output", "call_id": cid, "output": NO_RESULT}
            for cid in self.pending
        ]
        return placeholders + self.deferred

    def end(self) -> tuple[int, list[dict[str, Any]]]:
        return len(self.items), self._settled()

    def add(self, message: Any) -> None:
        items, model = self.items, self.model
        if isinstance(message, ToolResultMessage):
            cid = call_id(message.tool_call_id)
            if cid not in self.pending:  # answers no sent call, or one already answered
                return
            del self.pending[cid]
            output, images = _tool_result(message, model)
            items.append({"type": "function_call_output", "call_id": cid, "output": output})
            if images:
                self.deferred.append({"role": "user", "content": images})
            return
        items.extend(self._settled())
        self.pending, self.deferred = {}, []
        if isinstance(message, UserMessage):
            parts = _user_content(message.content, model)
            if parts:
                items.append({"role": "user", "content": parts})
        elif isinstance(message, DeveloperMessage):
            parts = _user_content(message.content, model)
            if parts:
                images = any(part["type"] == "input_image" for part in parts)
                items.append({"role": "user" if images else self.developer, "content": parts})
        elif isinstance(message, AssistantMessage):
            for item in _assistant_items(message, model, self.store):
                items.append(item)
                if item.get("type") == "function_call":
                    self.pending[item["call_id"]] = None


def _user_content(content: Any, model: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "input_text", "text": clean(content)}] if content else []
    parts: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, TextContent):
            parts.append({"type": "input_text", "text": clean(block.text)})
        elif isinstance(block, ImageContent):
            parts.append(_image(block, model))
    return parts


def _image(block: ImageContent, model: Any) -> dict[str, Any]:
    if "image" not in model.input:
        return {"type": "input_text", "text": NO_IMAGES}
    return {"type": "input_image", "image_url": f"data:{block.mime_type};base64,{block.data}"}


def _tool_result(message: ToolResultMessage, model: Any) -> tuple[str, list[dict[str, Any]]]:
    """The function_call_output text, and the user content carrying its images."""
    text = "\n".join(b.text for b in message.content if isinstance(b, TextContent))
    images = [b for b in message.content if isinstance(b, ImageContent)]
    output = clean(text) or ("(see the attached image)" if images else "")
    if message.is_error:
        output = f"Error: {output}" if output else "Error"
    if not images or "image" not in model.input:
        return output, []
    parts = [{"type": "input_text", "text": "Attached image(s) from the tool result:"}]
    return output, parts + [_image(b, model) for b in images]


def _assistant_items(message: AssistantMessage, model: Any, store: bool) -> list[dict[str, Any]]:
    same = message.provider == model.provider and message.api == model.api
    complete = message.stop_reason not in ("error", "aborted")
    # Reasoning goes back only from a complete turn, and only to a reasoning model.
    replay = same and complete and model.reasoning
    thinking = [b for b in message.content if isinstance(b, ThinkingContent)]
    reasoning = {id(b): _reasoning_item(b, store) if replay else None for b in thinking}
    # Item ids are sent only when every reasoning item they pair with is sent too.
    keep_ids = same and complete and all(item is not None for item in reasoning.values())
    items: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, ThinkingContent):
            if same:
                item = reasoning.get(id(block))
                if item is not None:
                    items.append(item)
            elif block.thinking.strip():
                items.append(_text_item(block.thinking, None))
        elif isinstance(block, TextContent):
            if block.text:
                items.append(_text_item(block.text, block.text_signature if keep_ids else None))
        elif isinstance(block, ToolCall) and complete:
            item = {
                "type": "function_call",
                "call_id": call_id(block.id),
                "name": block.name,
                "arguments": json.dumps(block.arguments, ensure_ascii=False),
            }
            item_id = block.id.split("|", 1)[1] if "|" in block.id else ""
            if keep_ids and item_id.startswith("fc") and len(item_id) <= MAX_ID:
                item["id"] = item_id
            items.append(item)
    return items


def _text_item(text: str, item_id: str | None) -> dict[str, Any]:
    if item_id and item_id.startswith("msg") and len(item_id) <= MAX_ID:
        return {
            "type": "message",
            "role": "assistant",
            "id": item_id,
            "status": "completed",
            "content": [{"type": "output_text", "text": clean(text), "annotations": []}],
        }
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": clean(text)}],
    }


def _reasoning_item(block: ThinkingContent, store: bool) -> dict[str, Any] | None:
    """The reasoning item stored on a thinking block (``{id, encrypted_content}`` JSON), or
    None when it cannot be sent back (no id; no encrypted payload while the store is off)."""
    try:
        data = json.loads(block.thinking_signature or "")
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("id"), str):
        return None
    encrypted = data.get("encrypted_content")
    if not encrypted and not store:
        return None
    summary = [{"type": "summary_text", "text": clean(block.thinking)}] if block.thinking else []
    item: dict[str, Any] = {"type": "reasoning", "id": data["id"], "summary": summary}
    if encrypted:
        item["encrypted_content"] = encrypted
    return item
