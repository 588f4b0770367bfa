"""What the read-only commands answer: get_state, get_session_stats, models, messages
and their pages, the branch's user messages, the todo list."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from omp import AssistantMessage, OmpError, content_text, to_wire

if TYPE_CHECKING:
    from omp import AgentMessage, AgentSession, Model

NO_DATA = object()
"""A response's ``data`` left out (``None`` is sent as ``null``)."""
PAGE_DEFAULT = 100
PAGE_MAX = 256
PAGE_MAX_BYTES = 768 << 10
CURSOR_MAX_CHARS = 2048


class RpcError(OmpError):
    """A command failure with omp's machine-readable ``code``."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


def one_line(exc: BaseException) -> str:
    """An error message for a response: one line (a validation error names each field
    and what is wrong with it, without pydantic's links)."""
    errors = getattr(exc, "errors", None)
    if callable(errors) and type(exc).__name__ == "ValidationError":
        try:
            return "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}" for e in errors()
            )
        except (TypeError, KeyError):
            pass
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def model_dict(model: Model | None) -> dict[str, Any] | None:
    """An ``omp.Model`` as omp's ``Model`` record (camelCase)."""
    if model is None:
        return None
    raw = asdict(model)
    out: dict[str, Any] = {
        "id": raw["id"],
        "name": raw["name"] or raw["id"],
        "api": raw["api"],
        "provider": raw["provider"],
        "baseUrl": raw["base_url"],
        "reasoning": raw["reasoning"],
        "input": list(raw["input"]),
        "cost": raw["cost"] or {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": raw["context_window"],
        "maxTokens": raw["max_tokens"],
    }
    if raw["compat"]:
        out["compat"] = raw["compat"]
    return out


def context_usage(session: AgentSession) -> dict[str, Any] | None:
    usage = session.context_usage()
    if usage is None:
        return None
    return {
        "tokens": usage["tokens"],
        "contextWindow": usage["context_window"],
        "percent": usage["percent"],
    }


def todo_phases(session: AgentSession) -> list[dict[str, Any]]:
    """The branch's todo list as omp's phases, from the todo plugin on the event bus
    ([] without it)."""
    request: dict[str, Any] = {}
    session.context.api.events.emit("todos.get", request)
    phases = request.get("phases")
    return phases if isinstance(phases, list) else []


def get_state(
    session: AgentSession, compacting: bool, tokens_per_second: float | None = None
) -> dict[str, Any]:
    path = session.session_file
    state: dict[str, Any] = {
        "model": model_dict(session.model),
        "thinkingLevel": session.thinking_level,
        "isStreaming": session.is_streaming,
        "isCompacting": compacting,
        "steeringMode": session.steering_mode,
        "followUpMode": session.follow_up_mode,
        "interruptMode": session.interrupt_mode,
        "sessionFile": str(path) if path else None,
        "sessionId": session.session_id,
        "sessionName": session.session_view.name,
        "autoCompactionEnabled": session.auto_compaction_enabled,
        "fastModeEnabled": False,
        "fastModeActive": False,
        "tokensPerSecond": tokens_per_second,
        "messageCount": len(session.messages),
        "queuedMessageCount": len(session.queued_messages),
        "todoPhases": todo_phases(session),
        "systemPrompt": session.context.get_system_prompt(),
        "dumpTools": _active_tool_specs(session),
        "contextUsage": context_usage(session),
    }
    return {k: v for k, v in state.items() if v is not None or k == "tokensPerSecond"}


def _active_tool_specs(session: AgentSession) -> list[dict[str, Any]]:
    tools = (session.tool(name) for name in session.context.api.get_active_tools())
    return [tool.spec() for tool in tools if tool is not None]


def session_stats(session: AgentSession) -> dict[str, Any]:
    messages = session.messages
    roles = [getattr(m, "role", "") for m in messages]
    totals = session.usage_totals()
    reasoning = sum(
        getattr(getattr(m, "usage", None), "reasoning_tokens", 0) or 0
        for m in messages
        if getattr(m, "role", "") == "assistant"
    )
    tokens = {
        "input": totals.input,
        "output": totals.output,
        "reasoning": reasoning,
        "cacheRead": totals.cache_read,
        "cacheWrite": totals.cache_write,
    }
    tokens["total"] = sum(v for k, v in tokens.items() if k != "reasoning")
    stats: dict[str, Any] = {
        "sessionFile": str(session.session_file) if session.session_file else None,
        "sessionId": session.session_id,
        "userMessages": roles.count("user"),
        "assistantMessages": roles.count("assistant"),
        "toolCalls": sum(len(m.tool_calls) for m in messages if isinstance(m, AssistantMessage)),
        "toolResults": roles.count("toolResult"),
        "totalMessages": len(messages),
        "tokens": tokens,
        "premiumRequests": 0,
        "cost": totals.cost,
        "contextUsage": context_usage(session),
    }
    return {k: v for k, v in stats.items() if v is not None}


def branch_messages(session: AgentSession) -> list[dict[str, Any]]:
    """The user messages of the current branch, for ``branch`` (oldest first)."""
    out = []
    for entry in session.session_view.branch_entries():
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "user":
            out.append({"entryId": entry["id"], "text": _text(message.get("content"))})
    return out


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return content_text(content) if isinstance(content, str) else ""


def last_assistant_text(session: AgentSession) -> str | None:
    for message in reversed(session.messages):
        if isinstance(message, AssistantMessage) and message.stop_reason != "aborted":
            return message.text
    return None


# -- get_messages_page ----------------------------------------------------------------


def _cursor_key(session: AgentSession, messages: list[AgentMessage]) -> dict[str, Any]:
    return {
        "version": 1,
        "sessionId": session.session_id,
        "leafId": session.session_view.leaf_id,
        "messageCount": len(messages),
    }


def _decode_cursor(cursor: Any) -> dict[str, Any]:
    if not isinstance(cursor, str) or len(cursor) > CURSOR_MAX_CHARS:
        raise RpcError("RPC message cursor is stale", "stale_cursor")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        value = json.loads(raw)
    except (binascii.Error, ValueError):
        raise RpcError("RPC message cursor is stale", "stale_cursor") from None
    if not isinstance(value, dict) or not isinstance(value.get("offset"), int):
        raise RpcError("RPC message cursor is stale", "stale_cursor")
    return value


def messages_page(session: AgentSession, busy: bool, cursor: Any, limit: Any) -> dict[str, Any]:
    if busy:
        raise RpcError("Cannot page messages while the session is changing", "session_busy")
    messages = session.messages
    key = _cursor_key(session, messages)
    offset = 0
    if cursor is not None:
        decoded = _decode_cursor(cursor)
        if {k: decoded.get(k) for k in key} != key:
            raise RpcError("RPC message cursor is stale", "stale_cursor")
        offset = decoded["offset"]
    if limit is None:
        limit = PAGE_DEFAULT
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise RpcError("limit must be a positive integer")
    limit = min(limit, PAGE_MAX)
    page: list[dict[str, Any]] = []
    size = 0
    for message in messages[offset : offset + limit]:
        wire = to_wire(message)
        weight = len(json.dumps(wire, ensure_ascii=False, default=str).encode("utf-8"))
        if page and size + weight > PAGE_MAX_BYTES:
            break
        page.append(wire)
        size += weight
    data: dict[str, Any] = {"messages": page, "totalMessages": len(messages)}
    following = offset + len(page)
    if following < len(messages):
        encoded = json.dumps({**key, "offset": following}, separators=(",", ":")).encode()
        data["nextCursor"] = base64.urlsafe_b64encode(encoded).decode().rstrip("=")
    return data
