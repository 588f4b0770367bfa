"""Gemini stream chunks (one JSON object per SSE event) as omp's normalized events.

Independent of HTTP: ``StreamParser.feed`` takes one decoded SSE event, ``finish``
gives the final ``done`` or raises ProviderError when the stream ended incomplete.
Google Search grounding (``groundingMetadata``) is added to the message at the end
(see omp_provider_google.grounding).
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

from omp import AssistantStream
from omp_llm.errors import ProviderError, stream_error
from omp_llm.sse import json_loads

from omp_provider_google.grounding import Grounding

RETRYABLE = {"RESOURCE_EXHAUSTED", "UNAVAILABLE", "INTERNAL", "DEADLINE_EXCEEDED"}
_counter = itertools.count(1)


def new_call_id(name: str) -> str:
    """Gemini gives function calls no id: one unique within the session."""
    return f"{name}_{int(time.time() * 1000)}_{next(_counter)}"


class StreamParser:
    def __init__(self, out: AssistantStream, secrets: list[str | None] | None = None) -> None:
        self.out = out
        self.secrets = secrets or []
        self.open: str | None = None  # "text" | "thinking" while a block is open
        self.signature: str | None = None  # of the open thinking block
        self.finish_reason: str | None = None
        self.final_usage = False
        """usageMetadata arrived with or after the finish reason."""
        self.grounding = Grounding()

    @property
    def complete(self) -> bool:
        """Finished, with the final usage: the connection need not be read further."""
        return self.finish_reason is not None and self.final_usage

    def feed(self, event: Any) -> list[dict[str, Any]]:
        data = getattr(event, "data", event)
        if isinstance(data, str):
            if not data.strip():
                return []
            try:
                data = json_loads(data)
            except ValueError:
                raise ProviderError(
                    "the stream ended before the response was complete "
                    f"(an unreadable chunk: {data[:80]!r})",
                    retryable=True,
                    kind="incomplete",
                ) from None
        if isinstance(data, list):
            return [ev for item in data for ev in self.feed(item)]
        if not isinstance(data, dict):
            return []
        if "error" in data:
            raise self._error(data["error"])
        self._usage(data.get("usageMetadata"))
        blocked = (data.get("promptFeedback") or {}).get("blockReason")
        if blocked:
            raise ProviderError(f"the prompt was blocked ({blocked})", kind="blocked")
        events: list[dict[str, Any]] = []
        candidates = data.get("candidates") or []
        candidate = candidates[0] if candidates else {}
        for part in (candidate.get("content") or {}).get("parts") or []:
            events.extend(self._part(part))
        if "groundingMetadata" in candidate:
            self.grounding.add(candidate["groundingMetadata"])
        if candidate.get("finishReason"):
            self.finish_reason = candidate["finishReason"]
        if self.finish_reason and isinstance(data.get("usageMetadata"), dict):
            self.final_usage = True
        return events

    def _error(self, error: Any) -> ProviderError:
        if not isinstance(error, dict):
            return stream_error(str(error), None, self.secrets)
        status = error.get("status") or None
        exc = stream_error(str(error.get("message") or error), status, self.secrets)
        code = error.get("code")
        if status in RETRYABLE or code in (429, 500, 502, 503, 504):
            exc.retryable = True
        if isinstance(code, int):
            exc.status = code
        return exc

    def _part(self, part: dict[str, Any]) -> list[dict[str, Any]]:
        signature = part.get("thoughtSignature") or None
        if "functionCall" in part:
            return self._call(part["functionCall"] or {}, signature)
        text = part.get("text")
        if not isinstance(text, str):
            return []
        kind = "thinking" if part.get("thought") is True else "text"
        events: list[dict[str, Any]] = []
        if not text:
            if signature and self.open == kind:
                self._sign(signature)
            return events
        if self.open != kind:
            events.extend(self._close())
            events.append(
                self.out.thinking_start() if kind == "thinking" else self.out.text_start()
            )
            self.open = kind
        if kind == "thinking":
            events.append(self.out.thinking_delta(text))
        else:
            events.append(self.out.text_delta(text))
        if signature:
            self._sign(signature)
        return events

    def _sign(self, signature: str) -> None:
        if self.open == "thinking":
            self.signature = signature
        else:
            self.out.message.content[-1].text_signature = signature

    def _close(self) -> list[dict[str, Any]]:
        kind, self.open = self.open, None
        if kind == "thinking":
            signature, self.signature = self.signature, None
            return [self.out.thinking_end(signature)]
        if kind == "text":
            return [self.out.text_end()]
        return []

    def _call(self, call: dict[str, Any], signature: str | None) -> list[dict[str, Any]]:
        events = self._close()
        name = str(call.get("name") or "")
        call_id = call.get("id") or new_call_id(name or "call")
        events.append(self.out.toolcall_start(str(call_id), name))
        if signature:
            self.out.message.content[-1].thought_signature = signature
        args = call.get("args")
        fragment = args if isinstance(args, str) else json.dumps(args or {})
        events.append(self.out.toolcall_delta(fragment))
        events.append(self.out.toolcall_end())
        return events

    def _usage(self, meta: Any) -> None:
        if not isinstance(meta, dict):
            return
        usage = self.out.message.usage
        prompt = int(meta.get("promptTokenCount") or 0)
        cached = int(meta.get("cachedContentTokenCount") or 0)
        usage.input = max(prompt - cached, 0)
        usage.cache_read = cached
        usage.output = int(meta.get("candidatesTokenCount") or 0) + int(
            meta.get("thoughtsTokenCount") or 0
        )
        usage.total_tokens = int(meta.get("totalTokenCount") or 0) or (
            usage.input + usage.output + usage.cache_read
        )

    def finish(self) -> list[dict[str, Any]]:
        reason = self.finish_reason
        if reason is None:
            raise ProviderError(
                "the stream ended before the response was complete",
                retryable=True,
                kind="incomplete",
            )
        events = self._close()
        self.grounding.apply(self.out.message)
        if reason == "STOP":
            return [*events, self.out.done()]
        if reason == "MAX_TOKENS":
            return [*events, self.out.done("length")]
        raise ProviderError(f"the model stopped with finish reason {reason}", kind=reason.lower())
