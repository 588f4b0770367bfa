"""Known secrets hidden from a streamed assistant message (omp.config.secrets), delta by delta.

A credential the model repeats (a key the user typed, say) arrives split across deltas,
where no line-level redaction sees it whole. The loop passes every provider event of a
message through a ``StreamGuard`` when the session knows secrets: each content block
holds back the tail that could be the beginning of a known value, shows the rest
redacted, and lets the tail go when the block (or the message) ends — nothing is lost
or reordered. The events carry a redacted copy of the partial message, and the final
message (stored, written and sent back to the provider) is redacted the same way, so
the concatenated deltas of a block equal its final text.
"""

from __future__ import annotations

from typing import Any

from omp.agent.messages import AssistantMessage, TextContent, ThinkingContent, ToolCall
from omp.base.partial_json import PartialJson
from omp.config.secrets import Secrets

_GROWING = {"text_delta": "text", "thinking_delta": "thinking", "toolcall_delta": None}
_ENDING = {"text_end": "text_delta", "thinking_end": "thinking_delta", "toolcall_end": None}


class Holdback:
    """One block's stream: ``feed`` returns what may be shown, redacted; ``release``
    the held tail at the block's end."""

    def __init__(self, secrets: Secrets) -> None:
        self._secrets = secrets
        self._held = ""
        self.fed = 0
        """Characters received, to tell whether a final text is the one streamed."""

    def feed(self, piece: str) -> str:
        self.fed += len(piece)
        text = self._held + piece
        cut = self._secrets.safe_cut(text)
        self._held = text[cut:]
        return self._secrets.redact(text[:cut])

    def release(self) -> str:
        held, self._held = self._held, ""
        return self._secrets.redact(held)


class StreamGuard:
    """The provider events of one assistant message, as they may be shown."""

    def __init__(self, secrets: Secrets) -> None:
        self._secrets = secrets
        self._view: AssistantMessage | None = None
        self._holds: dict[int, Holdback] = {}
        self._arguments: dict[int, PartialJson] = {}
        self._indexes: dict[int, int] = {}
        """id() of a provider block -> its index, to find its shown copy at the end."""

    def view(self, partial: AssistantMessage) -> AssistantMessage:
        """The redacted copy of the provider's partial message, kept in step with it."""
        if self._view is None:
            self._view = partial.model_copy(update={"content": []})
        view = self._view
        fields = view.__dict__
        for name, value in partial.__dict__.items():
            if name != "content":
                fields[name] = value
        content = view.content
        while len(content) < len(partial.content):
            raw = partial.content[len(content)]
            self._indexes[id(raw)] = len(content)
            content.append(_empty(raw))
        return view

    def feed(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """The events to emit for one provider event (none while all of a delta is held)."""
        view = self.view(event["partial"])
        kind = event["type"]
        index = event.get("contentIndex")
        if index is None:
            return [{**event, "partial": view}]
        if kind in _GROWING:
            shown = self._hold(index).feed(event.get("delta") or "")
            return [self._grown(kind, index, shown, event)] if shown else []
        if kind in _ENDING:
            events = self._release(index, _ENDING[kind] or "toolcall_delta")
            raw = event["partial"].content[index]
            block = view.content[index]
            if isinstance(raw, ToolCall):
                view.content[index] = self._redacted_call(raw)
                return [*events, {**event, "toolCall": view.content[index], "partial": view}]
            _copy_signatures(raw, block)
            return [*events, {**event, "content": _text_of(block), "partial": view}]
        return [{**event, "partial": view}]

    def release(self) -> list[dict[str, Any]]:
        """The held tails of blocks still open when the message ends, as deltas."""
        if self._view is None:
            return []
        events: list[dict[str, Any]] = []
        for index in list(self._holds):
            block = self._view.content[index]
            kind = "toolcall_delta" if isinstance(block, ToolCall) else f"{block.type}_delta"
            events.extend(self._release(index, kind))
        return events

    def finish(self, final: AssistantMessage) -> AssistantMessage:
        """``final`` with the text shown for each streamed block and every other string
        redacted: what is stored, written and sent back to the provider."""
        self.release()
        shown = self._view.content if self._view is not None else []
        content: list[Any] = []
        for raw in final.content:
            index = self._indexes.get(id(raw))
            hold = self._holds.get(index) if index is not None else None
            if isinstance(raw, ToolCall):
                content.append(self._redacted_call(raw))
            elif isinstance(raw, TextContent | ThinkingContent):
                if index is not None and hold is not None and hold.fed == len(_text_of(raw)):
                    block = shown[index]
                    _copy_signatures(raw, block)
                    content.append(block)
                else:
                    content.append(self._copy(raw))
            else:
                content.append(raw)
        final.content = content
        if final.error_message:
            final.error_message = self._secrets.redact(final.error_message)
        return final

    # -- blocks ---------------------------------------------------------------------

    def _hold(self, index: int) -> Holdback:
        hold = self._holds.get(index)
        if hold is None:
            hold = self._holds[index] = Holdback(self._secrets)
        return hold

    def _release(self, index: int, kind: str) -> list[dict[str, Any]]:
        hold = self._holds.get(index)
        shown = hold.release() if hold is not None else ""
        if not shown:
            return []
        return [self._grown(kind, index, shown, {"type": kind, "contentIndex": index})]

    def _grown(self, kind: str, index: int, shown: str, event: dict[str, Any]) -> dict[str, Any]:
        """Append ``shown`` to the view's block and the event that says so."""
        assert self._view is not None
        block = self._view.content[index]
        field = _GROWING[kind]
        if field is None:
            arguments = self._arguments.setdefault(index, PartialJson())
            arguments.feed(shown)
            if isinstance(block, ToolCall):
                block.arguments = arguments.value()
        elif isinstance(block, TextContent | ThinkingContent):
            fields = block.__dict__
            text = fields.pop(field)
            text += shown
            fields[field] = text
        return {**event, "delta": shown, "partial": self._view}

    def _copy(self, raw: TextContent | ThinkingContent) -> TextContent | ThinkingContent:
        if isinstance(raw, TextContent):
            return raw.model_copy(update={"text": self._secrets.redact(raw.text)})
        return raw.model_copy(update={"thinking": self._secrets.redact(raw.thinking)})

    def _redacted_call(self, raw: ToolCall) -> ToolCall:
        redact = self._secrets.redact
        return raw.model_copy(
            update={
                "arguments": self._secrets.redact_value(raw.arguments),
                "arguments_error": redact(raw.arguments_error) if raw.arguments_error else None,
            }
        )


def _empty(raw: Any) -> Any:
    """A new block as the view starts it: what it holds arrives as deltas."""
    if isinstance(raw, TextContent):
        return raw.model_copy(update={"text": ""})
    if isinstance(raw, ThinkingContent):
        return raw.model_copy(update={"thinking": ""})
    if isinstance(raw, ToolCall):
        return raw.model_copy(update={"arguments": {}})
    return raw


def _text_of(block: Any) -> str:
    return block.thinking if isinstance(block, ThinkingContent) else block.text


def _copy_signatures(raw: Any, block: Any) -> None:
    if isinstance(raw, ThinkingContent) and isinstance(block, ThinkingContent):
        block.thinking_signature = raw.thinking_signature
    elif isinstance(raw, TextContent) and isinstance(block, TextContent):
        block.text_signature = raw.text_signature
