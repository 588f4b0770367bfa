"""Chat Completions stream chunks -> omp's normalized events, with no HTTP in sight.

``StreamParser.feed`` takes one decoded SSE event (``data: {...}`` or ``data: [DONE]``)
and returns the events it produces; ``finish`` ends the message when the stream ends.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from omp import AssistantStream, redact_keys
from omp_llm.errors import RETRYABLE_STATUS, ProviderError, stream_error
from omp_llm.sse import SseEvent, json_loads

REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
STOP_REASONS = {
    "stop": "stop",
    "end_turn": "stop",
    "eos": "stop",
    "length": "length",
    "max_tokens": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
    "tool_use": "toolUse",
}
OPEN_TAG, CLOSE_TAG = "<think>", "</think>"


class StreamParser:
    def __init__(
        self,
        out: AssistantStream,
        secrets: list[str | None] | None = None,
        reasoning_field: str | None = None,
        usage_expected: bool = True,
    ) -> None:
        self.out = out
        self.usage_expected = usage_expected
        """The request asked for usage (``stream_options.include_usage``)."""
        self.final_usage = False
        """Usage arrived with or after the finish reason."""
        self.secrets = secrets or []
        fields = (reasoning_field, *REASONING_FIELDS) if reasoning_field else REASONING_FIELDS
        self.reasoning_fields = tuple(dict.fromkeys(fields))
        self.done = False
        """The final done event was produced: ignore anything after it."""
        self.finish_reason: str | None = None
        self._open: str | None = None  # "text" | "thinking" | "tool": the last block
        self._tools: dict[Any, int] = {}  # the API's tool-call index -> content index
        self._made_ids: set[int] = set()
        self._tags = "detect"  # <think> tags in content: detect | think | text
        self._held = ""

    # -- input ---------------------------------------------------------------------

    def feed(self, event: SseEvent) -> list[dict[str, Any]]:
        if self.done:
            return []
        data = event.data.strip()
        if data == "[DONE]":
            return self._complete()
        if not data:
            return []
        try:
            chunk = json_loads(data)
        except ValueError:
            text = redact_keys(data[:200], self.secrets)
            raise ProviderError(
                f"the provider sent a malformed stream event: {text}", retryable=True
            ) from None
        if not isinstance(chunk, dict):
            return []
        if event.event == "error" or chunk.get("error"):
            raise self._error(chunk.get("error", chunk))
        usage = chunk.get("usage") or (chunk.get("x_groq") or {}).get("usage")
        choices = chunk.get("choices") or []
        choice = next((c for c in choices if c.get("index", 0) == 0), None)
        if isinstance(usage, dict):
            self._usage(usage)
            self.final_usage = bool(self.finish_reason or (choice or {}).get("finish_reason"))
        if choice is None:
            return []
        delta = choice.get("delta") or choice.get("message") or {}
        events: list[dict[str, Any]] = []
        for name in self.reasoning_fields:
            piece = delta.get(name)
            if isinstance(piece, str) and piece:
                events += self._thinking(piece)
                break
        if isinstance(delta.get("content"), str) and delta["content"]:
            events += self._content(delta["content"])
        if isinstance(delta.get("refusal"), str) and delta["refusal"]:
            events += self._text(delta["refusal"])
        for call in delta.get("tool_calls") or []:
            events += self._tool_call(call)
        if choice.get("finish_reason"):
            self.finish_reason = choice["finish_reason"]
        return events

    @property
    def complete(self) -> bool:
        """The choice finished and the usage asked for came: nothing else is needed,
        whether or not ``[DONE]`` follows (some servers never send it)."""
        return self.finish_reason is not None and (self.final_usage or not self.usage_expected)

    def finish(self) -> list[dict[str, Any]]:
        """The stream ended: the final done, or an error when it ended too soon."""
        if self.done:
            return []
        if self.finish_reason is None:
            raise ProviderError(
                "the stream ended early, before the response was complete",
                retryable=True,
                kind="incomplete",
            )
        return self._complete()

    # -- blocks --------------------------------------------------------------------

    def _close(self) -> list[dict[str, Any]]:
        kind, self._open = self._open, None
        if kind == "text":
            return [self.out.text_end()]
        if kind == "thinking":
            return [self.out.thinking_end()]
        if kind == "tool":
            return [self.out.toolcall_end()]
        return []

    def _text(self, piece: str) -> list[dict[str, Any]]:
        if not piece:
            return []
        events = [] if self._open == "text" else [*self._close(), self.out.text_start()]
        self._open = "text"
        return [*events, self.out.text_delta(piece)]

    def _thinking(self, piece: str) -> list[dict[str, Any]]:
        if not piece:
            return []
        events = [] if self._open == "thinking" else [*self._close(), self.out.thinking_start()]
        self._open = "thinking"
        return [*events, self.out.thinking_delta(piece)]

    def _content(self, piece: str) -> list[dict[str, Any]]:
        """Text, except a leading <think>...</think> (servers without a reasoning parser
        leave it in the content), which becomes thinking."""
        if self._tags == "text":
            return self._text(piece)
        held = self._held + piece
        if self._tags == "detect":
            start = held.lstrip()
            if OPEN_TAG.startswith(start):
                self._held = held
                return []
            if not start.startswith(OPEN_TAG):
                self._tags, self._held = "text", ""
                return self._text(held)
            self._tags, held = "think", start[len(OPEN_TAG) :]
        end = held.find(CLOSE_TAG)
        if end >= 0:
            self._tags, self._held = "text", ""
            rest = held[end + len(CLOSE_TAG) :].lstrip("\n")
            return [*self._thinking(held[:end]), *self._text(rest)]
        keep = next(
            (n for n in range(len(CLOSE_TAG) - 1, 0, -1) if held.endswith(CLOSE_TAG[:n])), 0
        )
        self._held = held[len(held) - keep :] if keep else ""
        return self._thinking(held[: len(held) - keep])

    def _tool_call(self, call: dict[str, Any]) -> list[dict[str, Any]]:
        content = self.out.message.content
        function = call.get("function") or {}
        call_id = call.get("id") or ""
        key = call.get("index")
        if key is None:  # servers that omit the index: by id, else the latest call
            key = f"id:{call_id}" if call_id else next(reversed(self._tools), 0)
        position = self._tools.get(key)
        if position is not None and call_id and content[position].id != call_id:
            if position in self._made_ids:
                content[position].id = call_id
                self._made_ids.discard(position)
            else:
                position = None  # a new call reusing an index
        events: list[dict[str, Any]] = []
        if position is None:
            events += self._close()
            events.append(
                self.out.toolcall_start(call_id or _made_id(), function.get("name") or "")
            )
            position = len(content) - 1
            if not call_id:
                self._made_ids.add(position)
            self._tools[key], self._open = position, "tool"
        block = content[position]
        if function.get("name") and not block.name:
            block.name = function["name"]
        fragment = function.get("arguments")
        if isinstance(fragment, dict | list):
            fragment = json.dumps(fragment)
        if isinstance(fragment, str) and fragment:
            events.append(self.out.toolcall_delta(fragment, position))
        return events

    # -- end -----------------------------------------------------------------------

    def _complete(self) -> list[dict[str, Any]]:
        reason = self.finish_reason
        if reason == "content_filter":
            raise ProviderError(
                "the provider's content filter stopped the response", kind="content_filter"
            )
        if reason == "error":
            raise ProviderError("the provider ended the response with an error", retryable=True)
        events: list[dict[str, Any]] = []
        held, self._held = self._held, ""
        if self._tags == "think":
            events += self._thinking(held)
        elif held.strip():
            events += self._text(held)
        events += self._close()
        mapped = STOP_REASONS.get(reason or "stop", "stop")
        if mapped == "stop" and self.out.message.tool_calls:
            mapped = "toolUse"  # some servers say "stop" after calling tools
        self.done = True
        return [*events, self.out.done(mapped)]

    def _usage(self, data: dict[str, Any]) -> None:
        details = data.get("prompt_tokens_details") or {}
        prompt = int(data.get("prompt_tokens") or 0)
        cached = int(details.get("cached_tokens") or data.get("prompt_cache_hit_tokens") or 0)
        written = int(details.get("cache_write_tokens") or 0)
        usage = self.out.message.usage
        usage.input = max(prompt - cached - written, 0)
        usage.output = int(data.get("completion_tokens") or 0)
        usage.cache_read, usage.cache_write = cached, written
        usage.total_tokens = usage.input + usage.output + cached + written

    def _error(self, error: Any) -> ProviderError:
        """An error object inside a 200 stream."""
        if not isinstance(error, dict):
            return stream_error(str(error), None, self.secrets)
        message = str(error.get("message") or json.dumps(error)[:500])
        code = error.get("code")
        kind = error.get("type") or (str(code) if code is not None else None)
        exc = stream_error(message, kind, self.secrets)
        status = error.get("status_code") or (code if isinstance(code, int) else None)
        if isinstance(status, int):
            exc.status = status
            exc.retryable = exc.retryable or status in RETRYABLE_STATUS
        return exc


def _made_id() -> str:
    return f"call_{uuid.uuid4().hex[:24]}"
