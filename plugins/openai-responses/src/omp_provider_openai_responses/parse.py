"""The Responses API's stream events turned into omp's normalized events; no HTTP here.

Each output item is one content block: ``reasoning`` -> thinking (its id and encrypted
content are kept as the block's ``thinking_signature``), ``message`` -> text (its id as
``text_signature``), ``function_call`` -> a tool call with id ``<call_id>|<item_id>``.
A hosted ``web_search_call`` becomes a ``ServerToolContent`` block (its ``action`` as
the input, the action's ``sources`` as the result); a message's ``url_citation``
annotations become its text block's ``citations``.
"""

from __future__ import annotations

import json
from typing import Any

from omp import AssistantStream, Citation, ServerToolContent
from omp_llm.errors import ProviderError, stream_error
from omp_llm.sse import SseEvent, iter_sse_sync, json_loads, split_lines

# OpenAI's codes for failures that a later attempt may not hit.
RETRYABLE_CODES = {"rate_limit_exceeded", "server_error", "server_is_overloaded", "slow_down"}
_TEXT = ("response.output_text.delta", "response.refusal.delta")
_THINKING = ("response.reasoning_summary_text.delta", "response.reasoning_text.delta")


def decode_event(event: SseEvent) -> dict[str, Any] | None:
    """An SSE event's JSON payload (``type`` taken from the event name when missing);
    None for anything that is not a JSON object (``[DONE]``, keep-alives)."""
    try:
        data = json_loads(event.data)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if "type" not in data and event.event != "message":
        data["type"] = event.event
    return data


class StreamParser:
    def __init__(self, out: AssistantStream, secrets: list[str | None] | None = None) -> None:
        self.out, self.secrets = out, list(secrets or [])
        self.open: str | None = None  # "text" | "thinking" | "toolcall": the block being built
        self.args_seen = False
        self.completed = False
        self._reason: str | None = None

    # -- events in ---------------------------------------------------------------------

    def feed(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        kind = data.get("type")
        events: list[dict[str, Any]] = []
        if kind == "response.output_item.added":
            self._item_added(data.get("item") or {}, events)
        elif kind == "response.output_item.done":
            self._item_done(data.get("item") or {}, events)
        elif kind in _TEXT:
            self._ensure("text", events)
            events.append(self.out.text_delta(str(data.get("delta") or "")))
        elif kind in _THINKING:
            self._ensure("thinking", events)
            events.append(self.out.thinking_delta(str(data.get("delta") or "")))
        elif kind == "response.reasoning_summary_part.added":
            if self.open == "thinking" and self.out.message.content[-1].thinking:
                events.append(self.out.thinking_delta("\n\n"))
        elif kind == "response.function_call_arguments.delta":
            if self.open == "toolcall":
                self.args_seen = True
                events.append(self.out.toolcall_delta(str(data.get("delta") or "")))
        elif kind == "response.function_call_arguments.done":
            self._full_arguments(data.get("arguments"), events)
        elif kind in ("response.completed", "response.incomplete"):
            self._finished(data.get("response") or {}, events)
        elif kind == "response.failed":
            error = (data.get("response") or {}).get("error") or {}
            raise self._error(error.get("message"), error.get("code"))
        elif kind == "error":
            error = data["error"] if isinstance(data.get("error"), dict) else data
            code = error.get("code") or (error.get("type") if error is not data else None)
            raise self._error(error.get("message"), code)
        return events

    def finish(self) -> list[dict[str, Any]]:
        """The final ``done``; a ProviderError when the response never completed."""
        if not self.completed:
            raise ProviderError(
                "the stream ended early, before the response was complete",
                retryable=True,
                kind="incomplete",
            )
        return [self.out.done(self._reason)]

    # -- helpers -----------------------------------------------------------------------

    def _item_added(self, item: dict[str, Any], events: list[dict[str, Any]]) -> None:
        kind = item.get("type")
        if kind == "reasoning":
            self._start("thinking", events)
        elif kind == "message":
            self._start("text", events)
        elif kind == "function_call":
            self._start_call(item, events)

    def _item_done(self, item: dict[str, Any], events: list[dict[str, Any]]) -> None:
        kind, out = item.get("type"), self.out
        if kind == "reasoning":
            self._ensure("thinking", events)
            summary = [p.get("text") or "" for p in item.get("summary") or []]
            if not out.message.content[-1].thinking and any(summary):
                events.append(out.thinking_delta("\n\n".join(summary)))
            signature = None
            if item.get("id"):
                keep = {"id": item["id"], "encrypted_content": item.get("encrypted_content")}
                signature = json.dumps(keep)
            events.append(out.thinking_end(signature))
        elif kind == "message":
            self._ensure("text", events)
            block = out.message.content[-1]
            parts = item.get("content") or []
            full = "".join(p.get("text") or p.get("refusal") or "" for p in parts)
            if not block.text and full:
                events.append(out.text_delta(full))
            if item.get("id"):
                block.text_signature = item["id"]
            block.citations = _citations(parts) or None
            events.append(out.text_end())
        elif kind == "function_call":
            if self.open != "toolcall":
                self._start_call(item, events)
            self._full_arguments(item.get("arguments"), events)
            events.append(out.toolcall_end())
        elif kind == "web_search_call":
            self._close(events)
            action = item.get("action") if isinstance(item.get("action"), dict) else {}
            out.message.content.append(
                ServerToolContent(
                    id=str(item.get("id") or ""),
                    name="web_search",
                    input=action,
                    result=action.get("sources"),
                )
            )
        else:
            return
        self.open = None

    def _start_call(self, item: dict[str, Any], events: list[dict[str, Any]]) -> None:
        self._close(events)
        call_id = str(item.get("call_id") or item.get("id") or "")
        item_id = item.get("id")
        full_id = f"{call_id}|{item_id}" if item_id else call_id
        events.append(self.out.toolcall_start(full_id, str(item.get("name") or "")))
        self.open, self.args_seen = "toolcall", False
        self._full_arguments(item.get("arguments"), events)

    def _full_arguments(self, arguments: Any, events: list[dict[str, Any]]) -> None:
        """Complete arguments, used only when no fragments arrived."""
        usable = isinstance(arguments, str) and arguments
        if usable and self.open == "toolcall" and not self.args_seen:
            self.args_seen = True
            events.append(self.out.toolcall_delta(arguments))

    def _start(self, kind: str, events: list[dict[str, Any]]) -> None:
        self._close(events)
        events.append(self.out.text_start() if kind == "text" else self.out.thinking_start())
        self.open = kind

    def _ensure(self, kind: str, events: list[dict[str, Any]]) -> None:
        if self.open != kind:
            self._start(kind, events)

    def _close(self, events: list[dict[str, Any]]) -> None:
        if self.open == "text":
            events.append(self.out.text_end())
        elif self.open == "thinking":
            events.append(self.out.thinking_end())
        elif self.open == "toolcall":
            events.append(self.out.toolcall_end())
        self.open = None

    def _finished(self, response: dict[str, Any], events: list[dict[str, Any]]) -> None:
        self._usage(response.get("usage") or {})
        self._close(events)
        if response.get("status") == "incomplete":
            why = (response.get("incomplete_details") or {}).get("reason") or "unknown"
            if why != "max_output_tokens":
                raise ProviderError(f"the response is incomplete ({why})", kind=str(why))
            self._reason = "length"
        self.completed = True

    def _usage(self, usage: dict[str, Any]) -> None:
        if not usage:
            return
        cached = int((usage.get("input_tokens_details") or {}).get("cached_tokens") or 0)
        target = self.out.message.usage
        target.input = max(0, int(usage.get("input_tokens") or 0) - cached)
        target.output = int(usage.get("output_tokens") or 0)
        target.cache_read, target.cache_write = cached, 0
        target.total_tokens = int(usage.get("total_tokens") or 0) or (
            target.input + target.output + cached
        )

    def _error(self, message: Any, code: Any) -> ProviderError:
        text = str(message or "the provider reported an error without a message")
        error = stream_error(text, str(code) if code else None, self.secrets)
        if code in RETRYABLE_CODES:
            error.retryable = True
        return error


def _citations(parts: list[Any]) -> list[Citation]:
    """The ``url_citation`` annotations of a message's parts, each with the text it
    annotates as ``cited_text``."""
    found: list[Citation] = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        text = str(part.get("text") or "")
        for note in part.get("annotations") or ():
            if not isinstance(note, dict) or note.get("type") != "url_citation":
                continue
            start, end = note.get("start_index"), note.get("end_index")
            cited = text[start:end] if isinstance(start, int) and isinstance(end, int) else None
            found.append(
                Citation(
                    type="url_citation",
                    url=note.get("url"),
                    title=note.get("title"),
                    cited_text=cited or None,
                )
            )
    return found


def parse_recorded(data: bytes, model: Any) -> list[dict[str, Any]]:
    """A recorded SSE body replayed through the parser, from ``start`` to ``done``."""
    out = AssistantStream(model)
    parser = StreamParser(out)
    events = [out.start()]
    for sse in iter_sse_sync(split_lines(data)):
        decoded = decode_event(sse)
        if decoded is not None:
            events.extend(parser.feed(decoded))
            if parser.completed:
                break
    events.extend(parser.finish())
    return events
