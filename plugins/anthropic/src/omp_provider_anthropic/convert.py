"""The request body: omp's messages in the Anthropic Messages wire format.

``build_request`` is the one place where the kernel's messages become Anthropic's:
strictly alternating user/assistant turns, tool results as ``tool_result`` blocks in
the user turn right after the ``tool_use``, and prompt-caching markers on the system
prompt and on the last block of the last user turn.
"""

from __future__ import annotations

import re
from typing import Any

from omp import (
    AssistantMessage,
    DeveloperMessage,
    ImageContent,
    Model,
    RedactedThinkingContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from omp_llm.body import PreparedBody
from omp_llm.incremental import WireCache, convert, tools_encoding
from omp_llm.usage import budget_tokens, thinking_value

MIN_OUTPUT_TOKENS = 4096
MIN_BUDGET = 1024
CACHE = {"type": "ephemeral"}
MISSING_RESULT = "No result provided: the tool call was interrupted."
_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


def tool_id(call_id: str) -> str:
    """A tool-call id as Anthropic accepts it (``^[a-zA-Z0-9_-]{1,64}$``)."""
    return _ID_CHARS.sub("_", call_id)[:64] or "toolu_missing"


def build_request(request: Any) -> dict[str, Any]:
    """The JSON body of one streamed ``POST /v1/messages``."""
    return prepare_request(request).payload


def prepare_request(request: Any) -> PreparedBody:
    """The body with the encoded bytes of the turns earlier requests converted."""
    model: Model = request.model
    options = request.options
    caching = request.compat.get("cacheControl", True) is not False
    body: dict[str, Any] = {
        "model": model.id,
        "max_tokens": int(options.max_tokens or model.max_tokens),
        "stream": True,
    }
    fixed: dict[str, bytes] = {}
    if request.context.system_prompt:
        prompt = request.context.system_prompt
        system = {"type": "text", "text": prompt}
        body["system"] = [{**system, "cache_control": CACHE} if caching else system]
        memo = WireCache.of(request).memo
        fixed["system"] = memo.encode(("system", caching, prompt), None, body["system"])
    turns = convert(request, request.context.messages, lambda: TurnFold(model, caching))
    body["messages"] = turns.items
    if request.context.tools:
        body["tools"] = [
            {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "input_schema": tool.get("parameters") or {"type": "object", "properties": {}},
            }
            for tool in request.context.tools
        ]
        fixed.update(tools_encoding(request, body["tools"]))
    budget = thinking_budget(model, options.thinking_level, options.settings)
    if budget and _unsigned_tool_turn(body["messages"]):
        budget = None
    if budget:
        if body["max_tokens"] <= budget:
            limit = model.max_tokens
            if budget + MIN_OUTPUT_TOKENS > limit >= MIN_BUDGET + MIN_OUTPUT_TOKENS:
                # the model's output limit wins: shrink the budget rather than be rejected
                budget, body["max_tokens"] = limit - MIN_OUTPUT_TOKENS, limit
            else:
                body["max_tokens"] = budget + MIN_OUTPUT_TOKENS
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    return turns.body(body, "messages", fixed)


def thinking_budget(model: Model, level: str, settings: dict[str, Any]) -> int | None:
    """Budget tokens for a reasoning model at ``level``; None when thinking is off."""
    if not model.reasoning or not level or level == "off":
        return None
    value = thinking_value(model, level)
    if value is None or value == "off" or value is False:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        budget = int(value)
    else:
        budget = budget_tokens(str(value), settings)
    return max(budget, MIN_BUDGET) if budget > 0 else None


def convert_messages(messages: list[Any], model: Model) -> list[dict[str, Any]]:
    """Strictly alternating turns (without prompt-caching markers)."""
    fold = TurnFold(model, caching=False)
    for message in messages:
        fold.add(message)
    kept, tail = fold.end()
    return fold.items[:kept] + tail


class TurnFold:
    """The messages as turns, one message at a time (``omp_llm.incremental.Fold``):
    a turn is final once the other role speaks; tool results join the user turn after
    their ``tool_use``, and a call left without one gets a placeholder result."""

    def __init__(self, model: Model, caching: bool) -> None:
        self.model, self.caching = model, caching
        self.items: list[dict[str, Any]] = []
        self.role: str | None = None
        self.blocks: list[dict[str, Any]] = []
        """The open turn."""
        self.pending: dict[str, None] = {}
        """The tool_use ids of the last assistant message, in order (a dict: a reply of
        thousands of calls is looked up once per result)."""
        self.answered: set[str] = set()

    def save(self) -> Any:
        return self.role, tuple(self.blocks), tuple(self.pending), frozenset(self.answered)

    def load(self, saved: Any) -> None:
        role, blocks, pending, answered = saved
        self.role, self.blocks = role, list(blocks)
        self.pending, self.answered = dict.fromkeys(pending), set(answered)

    def add(self, message: Any) -> None:
        if isinstance(message, ToolResultMessage):
            call = tool_id(message.tool_call_id)
            if call in self.pending and call not in self.answered:
                self.answered.add(call)
                content = _user_blocks(message.content, self.model)
                self._add("user", [_result_block(call, content, message.is_error)])
            return
        self._add("user", self._missing_results())
        self.pending, self.answered = {}, set()
        if isinstance(message, UserMessage | DeveloperMessage):
            self._add("user", _user_blocks(message.content, self.model))
        elif isinstance(message, AssistantMessage):
            blocks = _assistant_blocks(message, self.model)
            self.pending = dict.fromkeys(b["id"] for b in blocks if b["type"] == "tool_use")
            self._add("assistant", blocks)

    def _missing_results(self) -> list[dict[str, Any]]:
        # Anthropic rejects a tool_use without its tool_result in the next user turn.
        return [
            _result_block(call, [_text(MISSING_RESULT)], True)
            for call in self.pending
            if call not in self.answered
        ]

    def _add(self, role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if role != self.role:
            if self.role is not None:
                self.items.append(_turn(self.role, self.blocks))
            self.role, self.blocks = role, []
        self.blocks.extend(blocks)

    def end(self) -> tuple[int, list[dict[str, Any]]]:
        tail: list[dict[str, Any]] = []
        if self.role is not None:
            tail.append(_turn(self.role, self.blocks))
        missing = self._missing_results()
        if missing:
            if self.role == "user":
                tail[-1] = _turn("user", [*self.blocks, *missing])
            else:
                tail.append(_turn("user", missing))
        kept = len(self.items)
        if self.caching:
            # the prompt-caching marker goes on the last block of the last user turn
            if not any(t["role"] == "user" for t in tail) and kept:
                kept -= 1
                tail.insert(0, self.items[kept])
            for index in range(len(tail) - 1, -1, -1):
                if tail[index]["role"] == "user":
                    tail[index] = _marked(tail[index])
                    break
        return kept, tail


def _turn(role: str, blocks: list[dict[str, Any]]) -> dict[str, Any]:
    content = list(blocks)
    if role == "user":
        # tool_result blocks must come first in their user turn
        content.sort(key=lambda block: block["type"] != "tool_result")
    return {"role": role, "content": content}


def _marked(turn: dict[str, Any]) -> dict[str, Any]:
    content = list(turn["content"])
    content[-1] = {**content[-1], "cache_control": CACHE}
    return {**turn, "content": content}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _user_blocks(content: Any, model: Model) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [_text(content)] if content else []
    blocks: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, TextContent):
            if block.text:
                blocks.append(_text(block.text))
        elif isinstance(block, ImageContent):
            if "image" in model.input:
                source = {"type": "base64", "media_type": block.mime_type, "data": block.data}
                blocks.append({"type": "image", "source": source})
            else:
                blocks.append(_text("(image omitted: this model does not accept images)"))
    return blocks


def _result_block(call: str, content: list[dict[str, Any]], is_error: bool) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call}
    if content:
        block["content"] = content
    block["is_error"] = bool(is_error)
    return block


def _assistant_blocks(message: AssistantMessage, model: Model) -> list[dict[str, Any]]:
    native = message.provider == model.provider and message.api == model.api
    incomplete = message.stop_reason in ("error", "aborted")
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text:
                blocks.append(_text(block.text))
        elif isinstance(block, ThinkingContent):
            signature = block.thinking_signature
            if native and signature:
                blocks.append(
                    {"type": "thinking", "thinking": block.thinking, "signature": signature}
                )
            elif block.thinking.strip():
                blocks.append(_text(block.thinking))
        elif isinstance(block, RedactedThinkingContent):
            if native:
                blocks.append({"type": "redacted_thinking", "data": block.data})
        elif isinstance(block, ToolCall) and not incomplete:
            blocks.append(
                {
                    "type": "tool_use",
                    "id": tool_id(block.id),
                    "name": block.name,
                    "input": block.arguments or {},
                }
            )
    return blocks


def _unsigned_tool_turn(turns: list[dict[str, Any]]) -> bool:
    """Whether the request continues a tool call whose assistant turn has no leading
    thinking block (another provider made it, say): Anthropic rejects such a request
    with thinking enabled, so this one is sent without thinking."""
    if len(turns) < 2 or turns[-1]["role"] != "user" or turns[-2]["role"] != "assistant":
        return False
    if not any(block["type"] == "tool_result" for block in turns[-1]["content"]):
        return False
    return turns[-2]["content"][0]["type"] not in ("thinking", "redacted_thinking")
