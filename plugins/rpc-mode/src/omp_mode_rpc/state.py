"""What the read-only commands answer: get_state, get_session_stats, models, messages
and their pages, the branch's user messages, the todo list."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import asdict
from typing import Any

from omp import OmpError, content_text, to_wire

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


def model_dict(model: Any) -> dict[str, Any] | None:
    """An ``omp.agent.providers.Model`` as omp's ``Model`` record (camelCase)."""
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


def context_usage(session: Any) -> dict[str, Any] | None:
    usage = session.context_usage()
    if usage is None:
        return None
    return {
        "tokens": usage["tokens"],
        "contextWindow": usage["context_window"],
        "percent": usage["percent"],
    }


def todo_phases(session: Any) -> list[dict[str, Any]]:
    """The branch's todo list as omp's phases, from the todo plugin on the event bus
    ([] without it)."""
    request: dict[str, Any] = {}
    session.api.events.emit("todos.get", request)
    phases = request.get("phases")
    return phases if isinstance(phases, list) else []


def get_state(
    session: Any, compacting: bool, tokens_per_second: float | None = None
) -> dict[str, Any]:
    agent, file = session.agent, session.session_file
    state: dict[str, Any] = {
        "model": model_dict(agent.model),
        "thinkingLevel": agent.thinking_level,
        "isStreaming": agent.is_streaming,
        "isCompacting": compacting,
        "steeringMode": agent.settings.steering_mode,
        "followUpMode": agent.settings.follow_up_mode,
        "interruptMode": agent.settings.interrupt_mode,
        "sessionFile": str(file.path) if file.path else None,
        "sessionId": file.session_id,
        "sessionName": file.name,
        "autoCompactionEnabled": session.settings.get("compaction.enabled", True) is not False,
        "fastModeEnabled": False,
        "fastModeActive": False,
        "tokensPerSecond": tokens_per_second,
        "messageCount": len(agent.messages),
        "queuedMessageCount": len(agent.steering) + len(agent.follow_up),
        "todoPhases": todo_phases(session),
        "systemPrompt": list(session.effective_system_prompt or session.system_prompt_sections),
        "dumpTools": [tool.spec() for tool in agent.tools.active()],
        "contextUsage": context_usage(session),
    }
    return {k: v for k, v in state.items() if v is not None or k == "tokensPerSecond"}


def session_stats(session: Any) -> dict[str, Any]:
    messages = session.agent.messages
    roles = [getattr(m, "role", "") for m in messages]
    totals = session.usage_totals()
    reasoning = sum(
        getattr(getattr(m, "usage", None), "reasoning_tokens", 0) or 0
        for m in messages
        if getattr(m, "role", "") == "assistant"
    )
    tokens = {
        "input": totals["input"],
        "output": totals["output"],
        "reasoning": reasoning,
        "cacheRead": totals["cache_read"],
        "cacheWrite": totals["cache_write"],
    }
    tokens["total"] = sum(v for k, v in tokens.items() if k != "reasoning")
    stats: dict[str, Any] = {
        "sessionFile": str(session.session_file.path) if session.session_file.path else None,
        "sessionId": session.session_file.session_id,
        "userMessages": roles.count("user"),
        "assistantMessages": roles.count("assistant"),
        "toolCalls": sum(
            len(m.tool_calls) for m in messages if getattr(m, "role", "") == "assistant"
        ),
        "toolResults": roles.count("toolResult"),
        "totalMessages": len(messages),
        "tokens": tokens,
        "premiumRequests": 0,
        "cost": totals["cost"],
        "contextUsage": context_usage(session),
    }
    return {k: v for k, v in stats.items() if v is not None}


def branch_messages(session: Any) -> list[dict[str, Any]]:
    """The user messages of the current branch, for ``branch`` (oldest first)."""
    out = []
    for entry in session.session_file.branch_entries():
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "user":
            out.append({"entryId": entry["id"], "text": _text(message.get("content"))})
    return out


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return content_text(content) if isinstance(content, str) else ""


def last_assistant_text(session: Any) -> str | None:
    for message in reversed(session.agent.messages):
        if getattr(message, "role", "") == "assistant" and message.stop_reason != "aborted":
            return message.text
    return None


# -- get_messages_page ----------------------------------------------------------------


def _cursor_key(session: Any) -> dict[str, Any]:
    file = session.session_file
    return {
        "version": 1,
        "sessionId": file.session_id,
        "leafId": file.leaf_id,
        "messageCount": len(session.agent.messages),
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


def messages_page(session: Any, busy: bool, cursor: Any, limit: Any) -> dict[str, Any]:
    if busy:
        raise RpcError("Cannot page messages while the session is changing", "session_busy")
    key = _cursor_key(session)
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
    messages = session.agent.messages
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
