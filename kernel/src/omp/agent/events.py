"""Events (what hooks and subscribers receive) and hook results (what handlers return).

Every event is a WireModel whose `type` is omp's event name, so the json run mode can
write it as it is. Hook handlers may return either the result model or a plain dict
with the same (snake_case or camelCase) keys.

No ``from __future__ import annotations`` here: every run creates these classes, and
annotations that are objects already spare pydantic compiling and evaluating each one
(about 1.5 ms of every start).
"""

from typing import Any, Literal

from pydantic import Field

from omp.agent.messages import (
    AssistantMessage,
    BashExecutionMessage,
    PythonExecutionMessage,
    ToolResultMessage,
    WireModel,
    now_ms,
)


class Event(WireModel):
    """Base of every event: ``type`` is omp's event name, so an event serialises as omp writes
    it."""

    type: str


# -- agent loop -------------------------------------------------------------------


class AgentStartEvent(Event):
    """The agent starts working on a prompt (before its first model request)."""

    type: Literal["agent_start"] = "agent_start"


class AgentEndEvent(Event):
    """The agent stopped: ``messages`` are the ones this run added."""

    type: Literal["agent_end"] = "agent_end"
    messages: list[Any] = Field(default_factory=list)


class TurnStartEvent(Event):
    """A turn begins: one model response and the tool calls it asks for."""

    type: Literal["turn_start"] = "turn_start"
    turn_index: int = 0
    timestamp: int = Field(default_factory=now_ms)


class TurnEndEvent(Event):
    """A turn ended: the assistant ``message`` and the ``tool_results`` of its calls."""

    type: Literal["turn_end"] = "turn_end"
    turn_index: int = 0
    message: Any = None
    tool_results: list[ToolResultMessage] = Field(default_factory=list)


class MessageStartEvent(Event):
    """A message enters the conversation (user, assistant, tool result, custom)."""

    type: Literal["message_start"] = "message_start"
    message: Any


class MessageUpdateEvent(Event):
    """A streamed assistant message changed; ``assistant_message_event`` says how (text,
    thinking or tool-call delta)."""

    type: Literal["message_update"] = "message_update"
    message: Any
    assistant_message_event: dict[str, Any]


class MessageEndEvent(Event):
    """A message is complete and stored."""

    type: Literal["message_end"] = "message_end"
    message: Any


class ToolExecutionStartEvent(Event):
    """A tool starts running with ``args`` (after tool_call let it through)."""

    type: Literal["tool_execution_start"] = "tool_execution_start"
    tool_call_id: str
    tool_name: str
    args: dict[str, Any] = Field(default_factory=dict)


class ToolExecutionUpdateEvent(Event):
    """A running tool reported a ``partial_result`` (live output)."""

    type: Literal["tool_execution_update"] = "tool_execution_update"
    tool_call_id: str
    tool_name: str
    args: dict[str, Any] = Field(default_factory=dict)
    partial_result: Any = None


class ToolExecutionEndEvent(Event):
    """A tool finished: its ``result`` and whether it is an error."""

    type: Literal["tool_execution_end"] = "tool_execution_end"
    tool_call_id: str
    tool_name: str
    result: Any = None
    is_error: bool = False


class ToolApprovalRequestedEvent(Event):
    """A tool call waits for approval; ``reason`` is why it needs one (a tool_call
    handler's reason, or None when the tool or the approval mode requires it)."""

    type: Literal["tool_approval_requested"] = "tool_approval_requested"
    session_id: str
    tool_call_id: str
    tool_name: str
    reason: str | None = None
    approval_mode: str


class ToolApprovalResolvedEvent(Event):
    """The user (or a policy) answered a tool approval request."""

    type: Literal["tool_approval_resolved"] = "tool_approval_resolved"
    session_id: str
    tool_call_id: str
    tool_name: str
    approved: bool
    reason: str | None = None


class ToolCallEvent(Event):
    """The model asked for a tool: a handler may block it (``ToolCallDecision``) before it
    runs."""

    type: Literal["tool_call"] = "tool_call"
    tool_call_id: str
    tool_name: str
    input: dict[str, Any]


class ToolResultEvent(Event):
    """A tool's result before the model sees it: handlers may patch it (``ToolResultPatch``)."""

    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    tool_name: str
    input: dict[str, Any]
    content: list[Any]
    details: Any = None
    is_error: bool = False


class ContextEvent(Event):
    """The messages about to be sent to the model, a copy handlers may replace
    (``ContextPatch``)."""

    type: Literal["context"] = "context"
    messages: list[Any]


class InputEvent(Event):
    """What the user typed (or a plugin sent), before anything acts on it: handlers may rewrite
    or handle it (``InputPatch``)."""

    type: Literal["input"] = "input"
    text: str
    images: list[Any] | None = None
    source: Literal["interactive", "rpc", "extension"] = "interactive"


class BeforeAgentStartEvent(Event):
    """A prompt is about to start the agent: handlers may add a message or change the system
    prompt (``BeforeAgentStartPatch``)."""

    type: Literal["before_agent_start"] = "before_agent_start"
    prompt: str
    images: list[Any] | None = None
    system_prompt: list[str]


# -- runtime ----------------------------------------------------------------------


class ExtensionErrorEvent(Event):
    """A plugin's handler failed. ``extension_path`` is the plugin's source file (as in
    omp); ``extension_name`` its name as ``omp plugins`` lists it (``ext:<stem>`` for an
    extension file), not on the wire."""

    type: Literal["extension_error"] = "extension_error"
    extension_path: str
    event: str
    error: str
    extension_name: str = Field(default="", exclude=True)
    occurrence: int = Field(default=1, exclude=True)
    """How many times this plugin's handler of this hook has failed in the session, this
    time included (not on the wire): modes show the first to the user, and the session
    counts the rest when it ends."""


class NoticeEvent(Event):
    """A message for the user from the harness or a plugin (``level``: info, warning, error)."""

    type: Literal["notice"] = "notice"
    level: Literal["info", "warning", "error"] = "info"
    message: str
    source: str | None = None


class QueueUpdateEvent(Event):
    """The queued steering and follow-up messages changed."""

    type: Literal["queue_update"] = "queue_update"
    steering: list[str] = Field(default_factory=list)
    follow_up: list[str] = Field(default_factory=list)


class ModelChangedEvent(Event):
    """The session's model changed."""

    type: Literal["model_changed"] = "model_changed"
    model: str


class ThinkingLevelChangedEvent(Event):
    """The session's thinking level changed."""

    type: Literal["thinking_level_changed"] = "thinking_level_changed"
    thinking_level: str


class ModelSelectEvent(Event):
    """The model changed: ``model`` and ``previous_model`` are ``omp.agent.providers.Model``
    objects (``previous_model`` None when a resumed session restores its model)."""

    type: Literal["model_select"] = "model_select"
    model: Any
    previous_model: Any = None
    source: Literal["set", "cycle", "restore"] = "set"


class ThinkingLevelSelectEvent(Event):
    """Someone chose a thinking level (``source``: user, command, plugin, cycle)."""

    type: Literal["thinking_level_select"] = "thinking_level_select"
    level: str
    previous_level: str | None = None
    source: Literal["set", "cycle", "restore"] = "set"


class BeforeProviderRequestEvent(Event):
    """The JSON body an HTTP provider is about to send for ``model`` (an
    ``omp.agent.providers.Model``), after the provider built it from the context."""

    type: Literal["before_provider_request"] = "before_provider_request"
    payload: Any
    model: Any = None


class AfterProviderResponseEvent(Event):
    """A provider answered; ``headers`` have lower-case names, and credentials (cookies,
    authorization, keys) read ``[redacted]``."""

    type: Literal["after_provider_response"] = "after_provider_response"
    status: int
    headers: dict[str, str] = Field(default_factory=dict)
    model: Any = None


class CredentialDisabledEvent(Event):
    """A provider rejected its credential; it is not sent again in this process."""

    type: Literal["credential_disabled"] = "credential_disabled"
    provider: str
    disabled_cause: str


class McpNotificationEvent(Event):
    """A connected MCP server sent a notification (the MCP plugin fires it)."""

    type: Literal["mcp_notification"] = "mcp_notification"
    server: str
    method: str
    params: dict[str, Any] = Field(default_factory=dict)


class AutoRetryStartEvent(Event):
    """A failed model request will be sent again after ``delay_ms``."""

    type: Literal["auto_retry_start"] = "auto_retry_start"
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str


class AutoRetryEndEvent(Event):
    """Automatic retries ended, with success or with the ``final_error``."""

    type: Literal["auto_retry_end"] = "auto_retry_end"
    success: bool
    attempt: int
    final_error: str | None = None


class RetryFallbackAppliedEvent(Event):
    """A request to ``from`` (``from_`` in Python) failed for good; ``to`` answers
    instead. Model keys are ``provider/id``; ``role`` is the model role (``default``)."""

    type: Literal["retry_fallback_applied"] = "retry_fallback_applied"
    from_: str = Field(alias="from")
    to: str
    role: str = "default"


class RetryFallbackSucceededEvent(Event):
    """A request sent to a fallback model succeeded."""

    type: Literal["retry_fallback_succeeded"] = "retry_fallback_succeeded"
    model: str
    role: str = "default"


class AutoCompactionStartEvent(Event):
    """``reason``: ``threshold`` (the context passed the window less the reserve) or
    ``overflow`` (the provider refused the context; the request is sent again)."""

    type: Literal["auto_compaction_start"] = "auto_compaction_start"
    reason: str
    action: str = "context-full"


class AutoCompactionEndEvent(Event):
    """``result``: the compaction (summary, first_kept_entry_id, tokens_before,
    tokens_after) when it succeeded."""

    type: Literal["auto_compaction_end"] = "auto_compaction_end"
    action: str = "context-full"
    result: Any = None
    aborted: bool = False
    will_retry: bool = False
    error_message: str | None = None


# -- sessions ---------------------------------------------------------------------


class SessionStartEvent(Event):
    """``reason`` is ``startup`` for the session omp started with, else how the
    session became current (``new``, ``resume``, ``fork``), coming from
    ``previous_session_file``."""

    type: Literal["session_start"] = "session_start"
    reason: Literal["startup", "reload", "new", "resume", "fork"] = "startup"
    previous_session_file: str | None = None


class SessionBeforeSwitchEvent(Event):
    """Another session is about to become current (new, resume, or - for plugins without a
    session_before_fork handler - fork): a handler may cancel."""

    type: Literal["session_before_switch"] = "session_before_switch"
    reason: Literal["new", "resume", "fork"]
    """``fork`` only for plugins that do not implement session_before_fork (omp's way)."""
    target_session_file: str | None = None


class SessionSwitchEvent(Event):
    """Another session became current."""

    type: Literal["session_switch"] = "session_switch"
    reason: str
    previous_session_file: str | None = None


class SessionBeforeBranchEvent(Event):
    """The conversation is about to continue from an earlier entry: a handler may cancel."""

    type: Literal["session_before_branch"] = "session_before_branch"
    entry_id: str


class SessionBranchEvent(Event):
    """The conversation now continues from an earlier entry."""

    type: Literal["session_branch"] = "session_branch"
    previous_session_file: str | None = None


class SessionBeforeForkEvent(Event):
    """``position`` ``before``: the fork ends before ``entry_id`` (a user message's text
    goes back to the editor); ``at``: the fork holds the path through it."""

    type: Literal["session_before_fork"] = "session_before_fork"
    entry_id: str
    position: Literal["before", "at"] = "before"


class SessionForkEvent(Event):
    """A new session file was made from part of this one."""

    type: Literal["session_fork"] = "session_fork"
    previous_session_file: str | None = None
    entry_id: str
    position: Literal["before", "at"] = "before"


class SessionBeforeCompactEvent(Event):
    """``preparation``: first_kept_entry_id, messages_to_summarize, previous_summary,
    tokens_before, file_ops; ``reason``: manual, threshold or overflow; ``signal``
    aborts with the compaction (pass it to your own model call)."""

    type: Literal["session_before_compact"] = "session_before_compact"
    preparation: dict[str, Any] = Field(default_factory=dict)
    branch_entries: list[Any] = Field(default_factory=list)
    custom_instructions: str | None = None
    reason: str = "manual"
    signal: Any = None


class SessionCompactingEvent(Event):
    """``context``: lines added to the summary request; ``prompt``: the instructions
    that replace the default ones (both set by returning a patch)."""

    type: Literal["session_compacting"] = "session_compacting"
    session_id: str
    messages: list[Any] = Field(default_factory=list)
    context: list[str] = Field(default_factory=list)
    prompt: str | None = None
    preserve_data: Any = None


class SessionCompactEvent(Event):
    """The older conversation was replaced by a summary (``compaction_entry``)."""

    type: Literal["session_compact"] = "session_compact"
    compaction_entry: Any = None
    from_extension: bool = False


class TreePreparation(WireModel):
    """A tree navigation: where to, from where, and the abandoned branch (the entries
    from the common ancestor down to the old leaf, oldest first)."""

    target_id: str
    old_leaf_id: str | None = None
    common_ancestor_id: str | None = None
    entries_to_summarize: list[dict[str, Any]] = Field(default_factory=list)
    user_wants_summary: bool = False


class SessionBeforeTreeEvent(Event):
    """The user is about to move in the session tree: a handler may cancel or supply the branch
    summary."""

    type: Literal["session_before_tree"] = "session_before_tree"
    preparation: TreePreparation
    signal: Any = Field(default=None, exclude=True)


class SessionTreeEvent(Event):
    """``summary_entry`` is the ``branch_summary`` entry written for the abandoned
    branch, if any; ``from_extension`` says a plugin supplied it."""

    type: Literal["session_tree"] = "session_tree"
    new_leaf_id: str | None = None
    old_leaf_id: str | None = None
    summary_entry: dict[str, Any] | None = None
    from_extension: bool = False


class SessionStopEvent(Event):
    """The agent is about to stop: the model answered without tool calls and nothing
    is queued. ``messages`` is the whole conversation (do not mutate it),
    ``stop_hook_active`` is True while the run is already going on because of an
    earlier session_stop continuation, ``signal`` the run's abort signal."""

    type: Literal["session_stop"] = "session_stop"
    messages: list[Any] = Field(default_factory=list)
    turn_id: int = 0
    last_assistant_message: Any = None
    session_id: str
    session_file: str | None = None
    stop_hook_active: bool = False
    signal: Any = Field(default=None, exclude=True)


class SessionShutdownEvent(Event):
    """``reason`` is ``quit`` when omp ends, else the action that replaces the session
    (``new``, ``resume``, ``fork``) with ``target_session_file``."""

    type: Literal["session_shutdown"] = "session_shutdown"
    reason: Literal["quit", "reload", "new", "resume", "fork"] = "quit"
    target_session_file: str | None = None


# -- child sessions (subagents) ------------------------------------------------------


class SessionInitEvent(Event):
    """A child session (``ctx.create_child_session``) was made: ``entry`` holds the
    fields of its ``session_init`` entry (systemPrompt, tools, resolvedModel,
    thinkingLevel and what the spawning plugin added: task, agent, ...)."""

    type: Literal["session_init"] = "session_init"
    session_id: str
    parent_session_id: str | None = None
    depth: int = 0
    entry: dict[str, Any] = Field(default_factory=dict)


class SubagentSpawnEvent(Event):
    """A plugin is about to start a child session for ``task`` (``ctx.subagent_spawn``);
    ``depth`` is the child's (1 for a child of a top-level session), ``index`` its place
    in the spawning call."""

    type: Literal["subagent_spawn"] = "subagent_spawn"
    agent: str
    task: str
    model: str | None = None
    tools: list[str] | None = None
    isolated: bool = False
    depth: int = 1
    parent_session_id: str
    index: int = 0


class SubagentProgressEvent(Event):
    """A running child's progress (``ctx.announce``), for the parent's subscribers only;
    ``payload`` is omp's SubagentProgressPayload (camelCase keys)."""

    type: Literal["subagent_progress"] = "subagent_progress"
    payload: dict[str, Any] = Field(default_factory=dict)


class SubagentLifecycleEvent(Event):
    """A child started or ended (``ctx.announce``), for the parent's subscribers only;
    ``payload``: id, agent, agentSource, status, sessionFile?, parentToolCallId?, index."""

    type: Literal["subagent_lifecycle"] = "subagent_lifecycle"
    payload: dict[str, Any] = Field(default_factory=dict)


class UserBashEvent(Event):
    """The user ran ``!command`` (``!!`` keeps it out of the model's context): a handler may
    run it instead."""

    type: Literal["user_bash"] = "user_bash"
    command: str
    exclude_from_context: bool = False
    cwd: str
    signal: Any = Field(default=None, exclude=True)
    """An ``AbortSignal`` when the run can be aborted (RPC's ``abort_bash``), else None."""


class UserPythonEvent(Event):
    """The user ran ``$code`` (``$$`` keeps it out of the model's context): a handler may run
    it instead."""

    type: Literal["user_python"] = "user_python"
    code: str
    exclude_from_context: bool = False
    cwd: str
    signal: Any = Field(default=None, exclude=True)
    """An ``AbortSignal`` when the run can be aborted, else None."""


SEARCH_KINDS = ("grep", "find", "tree")


class SearchEvent(Event):
    """A grep, find or tree search a tool asks for; ``params`` are the tool's parameters.
    ``on_partial``, when set, takes a grep's results as they are found (a list of
    ``(path, matching-line count, [(line, text, match), ...])``, lines in content mode
    only), from any thread, before the answer; a backend may call it or not."""

    type: Literal["search"] = "search"
    kind: Literal["grep", "find", "tree"]
    params: dict[str, Any] = Field(default_factory=dict)
    cwd: str
    on_partial: Any = Field(default=None, exclude=True)


class BeforeRequestEvent(Event):
    """Before each model request of a run: the conversation the request is built from
    (``messages``, read-only), the ``model`` it goes to, and the ``session``
    (``omp.CompactionSession``) for a compaction plugin to measure and compact."""

    type: Literal["before_request"] = "before_request"
    messages: list[Any] = Field(default_factory=list, exclude=True)
    model: Any = Field(default=None, exclude=True)
    session: Any = Field(default=None, exclude=True)


class ContextOverflowEvent(Event):
    """A model request failed because the context overflowed (``message``, the failed
    response, is already the last of ``messages``); at most once per request.
    ``session`` is the ``omp.CompactionSession``."""

    type: Literal["context_overflow"] = "context_overflow"
    message: Any = Field(default=None, exclude=True)
    messages: list[Any] = Field(default_factory=list, exclude=True)
    model: Any = Field(default=None, exclude=True)
    session: Any = Field(default=None, exclude=True)


class CompactionServiceEvent(Event):
    """The session needs its compaction service (``/compact``, ``ctx.compact()``, a
    ``/tree`` summary, the prompt-size check). ``session`` is the
    ``omp.CompactionSession`` the service is for."""

    type: Literal["compaction_service"] = "compaction_service"
    session: Any = Field(default=None, exclude=True)


class ResourcesDiscoverEvent(Event):
    """``skill_paths``, ``prompt_paths``, ``rule_paths`` and ``theme_paths`` hold what
    was found so far (absolute paths): the built-in folders that exist, then what
    earlier handlers contributed."""

    type: Literal["resources_discover"] = "resources_discover"
    cwd: str
    reason: Literal["startup", "reload"] = "startup"
    skill_paths: list[str] = Field(default_factory=list)
    prompt_paths: list[str] = Field(default_factory=list)
    theme_paths: list[str] = Field(default_factory=list)
    rule_paths: list[str] = Field(default_factory=list)


# -- hook results -----------------------------------------------------------------


class ToolCallDecision(WireModel):
    """Returned from omp_tool_call: block the call, revise its input, or ask the user
    to approve it (``ask`` with the ``reason`` to show)."""

    block: bool = False
    reason: str | None = None
    input: dict[str, Any] | None = None
    ask: bool = False


class SubagentSpawnDecision(WireModel):
    """Returned from omp_subagent_spawn: ``block`` (with ``reason``) stops that child;
    ``task``, ``model`` or ``tools`` given replace the event's."""

    block: bool = False
    reason: str | None = None
    task: str | None = None
    model: str | None = None
    tools: list[str] | None = None


class ToolResultPatch(WireModel):
    """Returned from omp_tool_result: fields given replace the result's; others stay."""

    content: list[Any] | None = None
    details: Any = None
    is_error: bool | None = None


class ContextPatch(WireModel):
    """What a ``context`` handler returns: the messages to send instead."""

    messages: list[Any] | None = None


class InputPatch(WireModel):
    """What an ``input`` handler returns: ``handled`` stops the input there;
    ``text``/``images`` replace it."""

    handled: bool = False
    text: str | None = None
    images: list[Any] | None = None


class BeforeAgentStartPatch(WireModel):
    """What a ``before_agent_start`` handler returns: a ``message`` to add and/or a new
    ``system_prompt``."""

    message: dict[str, Any] | None = None
    system_prompt: list[str] | None = None


class CompactingPatch(WireModel):
    """Returned from omp_session_compacting: ``context`` lines are added, ``prompt``
    replaces the instructions, ``preserve_data`` is stored on the entry."""

    context: list[str] | None = None
    prompt: str | None = None
    preserve_data: Any = None


class SessionBeforeDecision(WireModel):
    """Returned from session_before_* hooks: cancel, or supply a custom compaction or
    branch summary in place of the default."""

    cancel: bool = False
    skip_conversation_restore: bool | None = None
    compaction: Any = None
    summary: Any = None


class SessionStopDecision(WireModel):
    """Returned from omp_session_stop: ``{"continue": True, "additional_context": ...}``
    or ``{"decision": "block", "reason": ...}`` (also ``{"block": True, ...}``) make the
    agent go on with that text as a message instead of stopping."""

    continue_: bool = Field(default=False, alias="continue")
    additional_context: str | None = None
    decision: Literal["block"] | None = None
    block: bool = False
    reason: str | None = None

    def continuation(self) -> str | None:
        """The text to go on with, or None when this result lets the agent stop."""
        if self.decision == "block" or self.block:
            return self.reason or self.additional_context or "Continue."
        if self.continue_:
            return self.additional_context or self.reason or "Continue."
        return None


class ResourcesPatch(WireModel):
    """Returned from omp_resources_discover: paths (absolute, or relative to the cwd)."""

    skill_paths: list[str] | None = None
    prompt_paths: list[str] | None = None
    theme_paths: list[str] | None = None
    rule_paths: list[str] | None = None


class RequestDecision(WireModel):
    """Returned from omp_before_request: ``messages`` replace the conversation the
    request is built from (pruned, or compacted: the session file is the plugin's to
    write); ``stop`` ends the run instead of sending (the plugin has said why)."""

    messages: list[Any] | None = None
    stop: bool = False


class OverflowDecision(WireModel):
    """Returned from omp_context_overflow: ``messages`` replace the conversation (the
    compacted one); ``retry`` sends the failed request once more."""

    messages: list[Any] | None = None
    retry: bool = False


class CompactionServiceResult(WireModel):
    """Returned from omp_compaction_service: ``service``, an object with the methods of
    ``omp.CompactionService``."""

    service: Any = None


class ExecutionOverride(WireModel):
    """Returned from omp_user_bash / omp_user_python: this result replaces execution."""

    result: Any = None


class UserShellRun(WireModel):
    """A user command as the user shell plugin (omp-user-shell) finishes it: the message
    to record (output cut to its tail, secrets hidden) and the size of the full output.
    It is the ``result`` of omp_user_bash / omp_user_python once that plugin's wrapper
    has shaped whatever handler ran the command."""

    message: BashExecutionMessage | PythonExecutionMessage
    total_lines: int = 0
    total_bytes: int = 0


def patched_payload(payload: Any, result: Any) -> Any:
    """A before_provider_request handler's result applied to the payload:
    ``{"payload": new}`` replaces it, ``{"patch": {...}}`` sets the keys given (None
    removes a key), anything else is the replacement payload itself (as in omp)."""
    if isinstance(result, dict) and set(result) == {"patch"} and isinstance(payload, dict):
        merged = dict(payload)
        for key, value in (result["patch"] or {}).items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        return merged
    if isinstance(result, dict) and set(result) == {"payload"}:
        return result["payload"]
    return result


def assistant_event_dict(kind: str, message: AssistantMessage, **fields: Any) -> dict[str, Any]:
    """One normalized provider stream event, as carried in message_update events."""
    return {"type": kind, **fields, "partial": message}
