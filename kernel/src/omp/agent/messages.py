"""Message and content models: the shapes that sessions, events and providers share.

Field names are snake_case in Python and camelCase on the wire (session files, JSON
events), matching omp's formats byte for byte. Always serialise with `to_wire`.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    """Base for every model that is written to a session file or an event stream."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="allow",
        defer_build=True,
    )


def now_ms() -> int:
    return int(time.time() * 1000)


def to_wire(model: BaseModel) -> dict[str, Any]:
    """The JSON-ready dict of a model, camelCase, without unset optional fields."""
    return model.model_dump(mode="json", exclude_none=True)


# -- content blocks ---------------------------------------------------------------


class Citation(WireModel):
    """A source a model cites for a span of its text (Anthropic's text ``citations``):
    ``type`` is the provider's kind (``web_search_result_location``, ...), ``cited_text``
    the quoted passage; other fields the provider sends are kept as they came."""

    type: str = ""
    url: str | None = None
    title: str | None = None
    cited_text: str | None = None


class TextContent(WireModel):
    """Text in a message; ``citations``: the sources the model cites for it (never sent
    back to a provider: only the text is)."""

    type: Literal["text"] = "text"
    text: str
    text_signature: str | None = None
    citations: list[Citation] | None = None


class ImageContent(WireModel):
    """An image in a message: base64 ``data`` and its ``mime_type``."""

    type: Literal["image"] = "image"
    data: str
    mime_type: str


class ThinkingContent(WireModel):
    """The model's reasoning text (with the provider's signature when it signs it)."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    thinking_signature: str | None = None


class RedactedThinkingContent(WireModel):
    """Reasoning the provider returned encrypted; sent back as it came."""

    type: Literal["redactedThinking"] = "redactedThinking"
    data: str


class ToolCall(WireModel):
    """A tool call in an assistant message: ``name`` and parsed ``arguments``."""

    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    thought_signature: str | None = None
    """Gemini's signature for the thinking behind this call, sent back with it."""
    arguments_error: str | None = None
    """Why the call must not run: its arguments were cut off by the stream or are not a
    JSON object. The loop gives this text as the call's error result."""
    arguments_repair: str | None = None
    """The documented repair (``omp.base.partial_json``) that made the arguments usable."""


class ServerToolContent(WireModel):
    """A tool the provider ran itself during the response (Anthropic's server tools such
    as ``web_search``): its ``name``, ``input`` and ``result`` (the provider's own JSON,
    without encrypted content). Kept for the record and for the caller to read; never
    sent back to a provider."""

    type: Literal["serverTool"] = "serverTool"
    id: str
    name: str
    input: dict[str, Any] = Field(default_factory=dict)
    result: Any = None


UserContent = Annotated[TextContent | ImageContent, Field(discriminator="type")]
AssistantContent = Annotated[
    TextContent
    | ThinkingContent
    | RedactedThinkingContent
    | ToolCall
    | ImageContent
    | ServerToolContent,
    Field(discriminator="type"),
]


class Cost(WireModel):
    """Dollars of one response, by kind of token."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0


class Usage(WireModel):
    """Tokens of one response (and their ``cost``; ``unpriced`` when the model has no price)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost: Cost = Field(default_factory=Cost)
    unpriced: bool | None = None
    """Set when the model has no price entry: the cost is unknown, not zero."""


StopReason = Literal["stop", "length", "toolUse", "error", "aborted"]

# -- messages ---------------------------------------------------------------------


class UserMessage(WireModel):
    """What the user (or a plugin on their behalf) said."""

    role: Literal["user"] = "user"
    content: str | list[UserContent]
    timestamp: int = Field(default_factory=now_ms)


class DeveloperMessage(WireModel):
    """An instruction from the harness or a plugin rather than the user; providers send
    it as a developer/system message where the API has one, else as user text."""

    role: Literal["developer"] = "developer"
    content: str | list[UserContent]
    timestamp: int = Field(default_factory=now_ms)


class AssistantMessage(WireModel):
    """A model response: content blocks, usage and why it stopped."""

    role: Literal["assistant"] = "assistant"
    content: list[AssistantContent] = Field(default_factory=list)
    api: str = ""
    provider: str = ""
    model: str = ""
    usage: Usage = Field(default_factory=Usage)
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    error_kind: str | None = None
    """Why it failed, when known: context_overflow, overloaded_error, timeout, ..."""
    error_status: int | None = None
    timestamp: int = Field(default_factory=now_ms)

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [block for block in self.content if isinstance(block, ToolCall)]

    @property
    def text(self) -> str:
        return "".join(block.text for block in self.content if isinstance(block, TextContent))


class ToolResultMessage(WireModel):
    """The answer to one tool call."""

    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[UserContent] = Field(default_factory=list)
    details: Any = None
    is_error: bool = False
    timestamp: int = Field(default_factory=now_ms)


class CustomMessage(WireModel):
    """A plugin's message. Sent to the model as user text unless `exclude_from_context`
    is set, which makes it UI-only: kept in the session, shown, never sent."""

    role: Literal["custom"] = "custom"
    custom_type: str
    content: str | list[UserContent]
    display: bool = True
    details: Any = None
    exclude_from_context: bool | None = None
    timestamp: int = Field(default_factory=now_ms)


class BashExecutionMessage(WireModel):
    """A ``!command`` the user ran, with its output."""

    role: Literal["bashExecution"] = "bashExecution"
    command: str
    output: str = ""
    exit_code: int | None = None
    cancelled: bool = False
    truncated: bool = False
    exclude_from_context: bool | None = None
    timestamp: int = Field(default_factory=now_ms)


class PythonExecutionMessage(WireModel):
    """Python the user ran (``$code``), with its output; like bashExecution."""

    role: Literal["pythonExecution"] = "pythonExecution"
    code: str
    output: str = ""
    exit_code: int | None = None
    cancelled: bool = False
    truncated: bool = False
    exclude_from_context: bool | None = None
    timestamp: int = Field(default_factory=now_ms)


class BranchSummaryMessage(WireModel):
    """A summary of a branch the conversation left."""

    role: Literal["branchSummary"] = "branchSummary"
    summary: str
    from_id: str
    timestamp: int = Field(default_factory=now_ms)


class CompactionSummaryMessage(WireModel):
    """A summary that stands for the older, compacted conversation."""

    role: Literal["compactionSummary"] = "compactionSummary"
    summary: str
    tokens_before: int = 0
    timestamp: int = Field(default_factory=now_ms)


AgentMessage = Annotated[
    UserMessage
    | DeveloperMessage
    | AssistantMessage
    | ToolResultMessage
    | CustomMessage
    | BashExecutionMessage
    | PythonExecutionMessage
    | BranchSummaryMessage
    | CompactionSummaryMessage,
    Field(discriminator="role"),
]
LlmMessage = UserMessage | DeveloperMessage | AssistantMessage | ToolResultMessage

_AGENT_MESSAGE_ADAPTER: Any = None


def parse_message(data: Any) -> Any:
    """Validate a wire dict into the matching message model."""
    global _AGENT_MESSAGE_ADAPTER
    if _AGENT_MESSAGE_ADAPTER is None:
        from pydantic import TypeAdapter

        _AGENT_MESSAGE_ADAPTER = TypeAdapter(AgentMessage)
    return _AGENT_MESSAGE_ADAPTER.validate_python(data)


def content_text(content: str | list[Any]) -> str:
    """The text of a content field, images omitted."""
    if isinstance(content, str):
        return content
    return "".join(block.text for block in content if isinstance(block, TextContent))


_LLM_CLASSES = (UserMessage, DeveloperMessage, AssistantMessage, ToolResultMessage)
_LLM_TYPES = frozenset(_LLM_CLASSES)


def convert_to_llm(messages: list[Any]) -> list[LlmMessage]:
    """The one boundary where the agent's messages become what a provider may see.

    user/developer/assistant/toolResult pass through; custom, bash and summary messages become
    user text; UI-only messages (`exclude_from_context`) and unknown roles are dropped.
    """
    out: list[LlmMessage] = []
    for message in messages:
        # runs over the whole history before every request: the common case is one
        # set look-up (an isinstance against a union costs ten times as much)
        if type(message) in _LLM_TYPES or isinstance(message, _LLM_CLASSES):
            out.append(message)
        elif isinstance(message, CustomMessage):
            if not message.exclude_from_context:
                out.append(UserMessage(content=message.content, timestamp=message.timestamp))
        elif isinstance(message, BashExecutionMessage | PythonExecutionMessage):
            if not message.exclude_from_context:
                text = _execution_text(message)
                out.append(UserMessage(content=text, timestamp=message.timestamp))
        elif isinstance(message, BranchSummaryMessage):
            text = (
                "The following is a summary of a branch that this conversation came back "
                f"from:\n\n<summary>\n{message.summary}\n</summary>"
            )
            out.append(UserMessage(content=text, timestamp=message.timestamp))
        elif isinstance(message, CompactionSummaryMessage):
            text = (
                "The conversation history before this point was compacted into the "
                f"following summary:\n\n<summary>\n{message.summary}\n</summary>"
            )
            out.append(UserMessage(content=text, timestamp=message.timestamp))
    return out


UNANSWERED_TEXT = (
    "No result was recorded for this tool call: omp was interrupted while it ran, so it "
    "may have run partly or not at all."
)


def unanswered_result(call: ToolCall) -> ToolResultMessage:
    """The error result a provider is sent for a call whose result was never recorded."""
    return ToolResultMessage(
        tool_call_id=call.id,
        tool_name=call.name,
        content=[TextContent(text=UNANSWERED_TEXT)],
        is_error=True,
    )


def answer_open_calls(message: LlmMessage, open_calls: dict[str, ToolCall]) -> list[LlmMessage]:
    """What is sent for ``message``: itself, after an error result for each call of
    ``open_calls`` (updated in place) left without one when anything but a tool result
    follows. Providers reject a tool call without its result (HTTP 400), and a session
    whose process was killed during a tool holds one."""
    if isinstance(message, ToolResultMessage):
        open_calls.pop(message.tool_call_id, None)
        return [message]
    out: list[LlmMessage] = [unanswered_result(call) for call in open_calls.values()]
    open_calls.clear()
    out.append(message)
    if isinstance(message, AssistantMessage):
        open_calls.update((call.id, call) for call in message.tool_calls)
    return out


def _execution_text(message: Any) -> str:
    """What the model reads of a command or Python code the user ran."""
    if isinstance(message, BashExecutionMessage):
        text = f"Ran `{message.command}`\n```\n{message.output}\n```"
        label = "Command"
    else:
        text = f"Ran Python:\n```python\n{message.code}\n```\nOutput:\n```\n{message.output}\n```"
        label = "Python"
    if message.cancelled:
        text += f"\n\n{label} was cancelled"
    elif message.exit_code not in (0, None):
        text += f"\n\n{label} exited with code {message.exit_code}"
    if message.truncated:
        text += "\n\n(output truncated: only its end is shown)"
    return text
