"""Anthropic's stream events as omp's normalized events, independent of HTTP.

``StreamParser.feed`` takes one decoded SSE event (``omp_llm.sse.SseEvent``) or its JSON
object; the event's kind is read from the JSON ``type`` (some servers omit ``event:``).

Server tools (``web_search``) have no normalized event: each ``server_tool_use`` becomes
a ``ServerToolContent`` block of the message, its ``*_tool_result`` the block's
``result``; text ``citations`` (and ``citations_delta``) land on the text block.
"""

from __future__ import annotations

import json
from typing import Any

from omp import AssistantStream, Citation, RedactedThinkingContent, ServerToolContent, TextContent
from omp_llm.errors import ProviderError, stream_error
from omp_llm.sse import json_loads

STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "refusal": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "toolUse",
}
_ENDS = {"text": "text_end", "thinking": "thinking_end", "tool_use": "toolcall_end"}


class StreamParser:
    def __init__(self, out: AssistantStream, secrets: list[str | None] | None = None) -> None:
        self.out = out
        self.secrets = list(secrets or [])
        self.open: dict[int, str] = {}
        """Index of each block still open -> its kind (text | thinking | tool_use)."""
        self.server: dict[int, tuple[ServerToolContent, str]] = {}
        """Index of each server tool call still open -> its block and input JSON so far."""
        self.signature: str | None = None
        self.stop_reason: str | None = None
        self.done = False
        self.started = False
        """Whether any content arrived (a failure after it is not retried)."""

    def feed(self, event: Any) -> list[dict[str, Any]]:
        data = event if isinstance(event, dict) else _json(event.data, self.secrets)
        kind = data.get("type") or getattr(event, "event", None)
        if self.done or kind is None or kind == "ping":
            return []
        if kind == "content_block_delta":  # nearly every event: skip the lookup
            return self._on_content_block_delta(data)
        handler = getattr(self, "_on_" + str(kind), None)
        return handler(data) if handler else []

    def finish(self) -> list[dict[str, Any]]:
        """The final done when the message was complete; else a ProviderError."""
        if self.done:
            return []
        if self.stop_reason is not None:
            return self._on_message_stop({})
        raise ProviderError(
            "the stream ended early, before the response was complete",
            retryable=not self.started,
            kind="incomplete",
        )

    # -- events ------------------------------------------------------------------------

    def _on_error(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        error = data.get("error", data)
        if not isinstance(error, dict):
            raise stream_error(str(error), None, self.secrets)
        message = str(error.get("message") or json.dumps(error))
        raise stream_error(message, error.get("type"), self.secrets)

    def _on_message_start(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        self._usage((data.get("message") or {}).get("usage") or {})
        return []

    def _on_message_delta(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        reason = (data.get("delta") or {}).get("stop_reason")
        if reason:
            self.stop_reason = reason
        self._usage(data.get("usage") or {})
        return []

    def _on_message_stop(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        events = [self._end(index) for index in sorted(self.open)]
        self.done = True
        reason = STOP_REASONS.get(self.stop_reason or "") if self.stop_reason else None
        if reason is None and self.stop_reason:
            reason = "stop"
        events.append(self.out.done(reason))
        return events

    def _on_content_block_start(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        block = data.get("content_block") or {}
        index, kind = int(data.get("index", len(self.open))), block.get("type")
        events: list[dict[str, Any]] = [self._end(i) for i in sorted(self.open) if i != index]
        out = self.out
        if kind == "text":
            events.append(out.text_start())
            self._cite(block.get("citations"))
            if block.get("text"):
                events.append(out.text_delta(block["text"]))
        elif kind == "thinking":
            events.append(out.thinking_start())
            self.signature = block.get("signature") or None
            if block.get("thinking"):
                events.append(out.thinking_delta(block["thinking"]))
        elif kind == "tool_use":
            events.append(out.toolcall_start(str(block.get("id") or ""), str(block.get("name"))))
            if block.get("input"):
                events.append(out.toolcall_delta(json.dumps(block["input"])))
        elif kind == "redacted_thinking":
            # kept verbatim (sent back unchanged); there is no normalized event for it
            out.message.content.append(RedactedThinkingContent(data=str(block.get("data", ""))))
            self.started = True
            return events
        elif kind == "server_tool_use":
            self._server_tool(index, block)
            return events
        elif isinstance(kind, str) and kind.endswith("_tool_result"):
            self._server_result(block)
            return events
        else:
            return events  # other block kinds are not shown
        self.open[index] = kind
        self.started = True
        return events

    def _on_content_block_delta(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        delta = data.get("delta")
        index = data.get("index", -1)
        index = index if type(index) is int else int(index)
        kind = self.open.get(index)
        if kind is None or not delta:
            if index in self.server and delta and delta.get("type") == "input_json_delta":
                block, text = self.server[index]
                self.server[index] = (block, text + str(delta.get("partial_json") or ""))
            return []
        dtype = delta.get("type")
        if dtype == "citations_delta" and kind == "text":
            self._cite([delta.get("citation")])
            return []
        if dtype == "text_delta":
            text = delta.get("text")
            return [self.out.text_delta(text)] if kind == "text" and text else []
        if dtype == "thinking_delta":
            thinking = delta.get("thinking")
            return [self.out.thinking_delta(thinking)] if kind == "thinking" and thinking else []
        if dtype == "signature_delta" and kind == "thinking":
            self.signature = (self.signature or "") + str(delta.get("signature") or "")
            self.out.message.content[-1].thinking_signature = self.signature
        elif dtype == "input_json_delta" and kind == "tool_use" and delta.get("partial_json"):
            return [self.out.toolcall_delta(delta["partial_json"])]
        return []

    def _on_content_block_stop(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        index = int(data.get("index", -1))
        if index in self.server:
            block, text = self.server.pop(index)
            if text.strip():
                try:
                    value = json.loads(text)
                except ValueError:
                    value = None
                if isinstance(value, dict):
                    block.input = value
        return [self._end(index)] if index in self.open else []

    # -- helpers -----------------------------------------------------------------------

    def _end(self, index: int) -> dict[str, Any]:
        kind = self.open.pop(index)
        if kind == "thinking":
            signature, self.signature = self.signature, None
            return self.out.thinking_end(signature)
        return getattr(self.out, _ENDS[kind])()

    def _cite(self, citations: Any) -> None:
        """Add ``citations`` (Anthropic's citation objects) to the open text block."""
        if not isinstance(citations, list):
            return
        block = self.out.message.content[-1]
        if not isinstance(block, TextContent):
            return
        for item in citations:
            if isinstance(item, dict):
                block.citations = [
                    *(block.citations or []),
                    Citation.model_validate(_without_encrypted(item)),
                ]

    def _server_tool(self, index: int, block: dict[str, Any]) -> None:
        """A tool the server runs itself: kept as a block, its input JSON streamed."""
        given = block.get("input")
        call = ServerToolContent(
            id=str(block.get("id") or ""),
            name=str(block.get("name") or ""),
            input=given if isinstance(given, dict) else {},
        )
        self.out.message.content.append(call)
        self.server[index] = (call, "")
        self.started = True

    def _server_result(self, block: dict[str, Any]) -> None:
        """A server tool's result, on its call's block (encrypted content left out:
        it only matters when sent back, which omp does not do)."""
        self.started = True
        target = str(block.get("tool_use_id") or "")
        for item in self.out.message.content:
            if isinstance(item, ServerToolContent) and item.id == target:
                item.result = _without_encrypted(block.get("content"))
                return

    def _usage(self, usage: dict[str, Any]) -> None:
        target = self.out.message.usage
        for field, key in (
            ("input", "input_tokens"),
            ("output", "output_tokens"),
            ("cache_read", "cache_read_input_tokens"),
            ("cache_write", "cache_creation_input_tokens"),
        ):
            value = usage.get(key)
            if isinstance(value, int):
                setattr(target, field, value)
        target.total_tokens = target.input + target.output + target.cache_read + target.cache_write


def _without_encrypted(value: Any) -> Any:
    """``value`` without its ``encrypted_*`` fields (large opaque blobs)."""
    if isinstance(value, list):
        return [_without_encrypted(item) for item in value]
    if isinstance(value, dict):
        return {
            k: _without_encrypted(v) for k, v in value.items() if not k.startswith("encrypted_")
        }
    return value


def _json(text: str, secrets: list[str | None]) -> dict[str, Any]:
    try:
        data = json_loads(text)
    except ValueError:
        from omp import redact_keys

        snippet = redact_keys(" ".join(text.split())[:200], secrets)
        raise ProviderError(f"the provider sent an unreadable event: {snippet}") from None
    return data if isinstance(data, dict) else {}
