"""The hook specifications: the whole contract between the kernel and its plugins.

Two families:

* registration hooks (``omp_register_*``) are called once, while the runtime is
  built. They are plain ``def`` functions that return a list of things to add (or
  ``None``). The kernel collects every plugin's list, rejects two plugins that claim
  the same name (naming both), and sorts for a deterministic order.
* event hooks are named after omp's events with the ``omp_`` prefix and may be ``def``
  or ``async def``. Each receives ``event`` (a model from ``omp.agent.events``), ``ctx``
  (``omp.runtime.context.HandlerContext``) and ``api`` (``omp.runtime.api.OmpAPI``); like every
  pluggy hook, an implementation declares only the arguments it uses.

How results of several implementations combine, by the rule each event hook declares
with ``@combine(...)`` next to its spec:

* ``first_block`` - the first result with ``block`` set wins and later handlers are
  not called; a handler that raises blocks the tool (fail-closed).
* ``chain`` - a middleware chain: each handler sees the event as the previous ones
  changed it; a partial patch keeps the fields it omits.
* ``first_cancel`` - the first result that cancels (or supplies a custom
  compaction / summary) wins; later handlers are not called.
* ``first_result`` - the first non-None result replaces the default behaviour.
* ``observer`` - every handler runs; return values are ignored.

``@combine`` also names the result model a handler returns (``omp.agent.events``: the model
itself, or a dict of its snake_case or camelCase keys) and, for a chain, the patch that
applies it (``omp.plugin.rules``). A key the model lacks is an error reported against the
plugin; the kernel calls hooks through the typed facade ``omp.plugin.hooks.Hooks``, and a
hook name no spec declares raises ``omp.plugin.dispatch.UnknownHookError``.

Call order is pluggy's: ``tryfirst`` implementations first, ``trylast`` last, and
otherwise the most recently registered first. Outside ``first_block``, a handler that
raises is reported as an ``extension_error`` event naming the plugin and the hook, and
the run goes on as if that handler had returned nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import pluggy

from omp.plugin import rules as hookrules

F = TypeVar("F", bound=Callable[..., Any])

if TYPE_CHECKING:
    from omp.agent.events import (
        AfterProviderResponseEvent,
        AgentEndEvent,
        AgentStartEvent,
        AutoCompactionEndEvent,
        AutoCompactionStartEvent,
        AutoRetryEndEvent,
        AutoRetryStartEvent,
        BeforeAgentStartEvent,
        BeforeProviderRequestEvent,
        BeforeRequestEvent,
        CompactionServiceEvent,
        ContextEvent,
        ContextOverflowEvent,
        CredentialDisabledEvent,
        InputEvent,
        McpNotificationEvent,
        MessageEndEvent,
        MessageStartEvent,
        MessageUpdateEvent,
        ModelSelectEvent,
        ResourcesDiscoverEvent,
        RetryFallbackAppliedEvent,
        RetryFallbackSucceededEvent,
        SearchEvent,
        SessionBeforeBranchEvent,
        SessionBeforeCompactEvent,
        SessionBeforeForkEvent,
        SessionBeforeSwitchEvent,
        SessionBeforeTreeEvent,
        SessionBranchEvent,
        SessionCompactEvent,
        SessionCompactingEvent,
        SessionForkEvent,
        SessionInitEvent,
        SessionShutdownEvent,
        SessionStartEvent,
        SessionStopEvent,
        SessionSwitchEvent,
        SessionTreeEvent,
        SubagentSpawnEvent,
        ThinkingLevelSelectEvent,
        ToolApprovalRequestedEvent,
        ToolApprovalResolvedEvent,
        ToolCallEvent,
        ToolExecutionEndEvent,
        ToolExecutionStartEvent,
        ToolExecutionUpdateEvent,
        ToolResultEvent,
        TurnEndEvent,
        TurnStartEvent,
        UserBashEvent,
        UserPythonEvent,
    )
    from omp.config.schema import SettingSpec
    from omp.runtime.api import OmpAPI
    from omp.runtime.context import HandlerContext

hookspec = pluggy.HookspecMarker("omp")

RULES = hookrules.KINDS


def combine(
    kind: hookrules.Kind,
    *,
    result: str | None = None,
    patch: hookrules.Patch | None = None,
    start: Callable[[Any], Any] | None = None,
    finish: Callable[[Any], None] | None = None,
    timed: bool = True,
) -> Callable[[F], F]:
    """Declare how the results of an event hook's implementations combine: the kind
    (one of ``RULES``, described in this module's docstring), the result model handlers
    return (its name in ``omp.agent.events``) and, for a chain, the patch that applies one
    result (``omp.plugin.rules``); ``timed=False`` lifts the handlers' time limit.
    ``omp.plugin.dispatch`` reads it; a third party's spec may declare its own."""
    if kind not in RULES:
        raise ValueError(f"unknown combination rule {kind!r}")
    if kind == "chain" and patch is None:
        raise ValueError("a chain rule needs a patch")
    rule = hookrules.HookRule(kind, result, patch, start, finish, timed)

    def mark(spec: F) -> F:
        spec.omp_rule = rule  # type: ignore[attr-defined]
        return spec

    return mark


def declared_rule(spec: Callable[..., Any]) -> hookrules.HookRule:
    """The rule a hook spec declares (an observer's when it declares none)."""
    return getattr(spec, "omp_rule", hookrules.OBSERVER)


def rule_of(spec: Callable[..., Any]) -> str:
    """The kind of combination rule a hook spec declares (observer when it declares none)."""
    return declared_rule(spec).kind


# -- registration hooks -------------------------------------------------------------


@hookspec
def omp_register_tools(api: OmpAPI) -> list[Any] | None:
    """Contribute tools the model may call.

    When: once, while the runtime is built (before any session event).
    Args: ``api`` - the runtime actions object; actions raise until loading is done.
    Returns: a list of ``omp.agent.tools.Tool`` objects, or None.
    Combination: all lists are concatenated. A tool declaring ``overrides=<its name>``
    replaces the other plugin's tool of that name whatever the load order (the replaced
    one stays reachable with ``api.get_tool(name, overridden=True)``); two tools with
    one name and no such declaration is a clash, reported naming both plugins, and the
    plugin loaded first keeps the name (``omp.plugin.tool_overrides``). Order: sorted by name.
    Raising: the plugin is reported as failed and its tools are missing.
    """


@hookspec
def omp_register_providers(api: OmpAPI) -> list[Any] | None:
    """Contribute model providers, each with its catalogue of models.

    When: once, while the runtime is built.
    Args: ``api`` - the runtime actions object.
    Returns: a list of ``omp.agent.providers.Provider`` objects, or None.
    Combination: concatenated; a duplicate provider name is an error naming both.
    Raising: the plugin is reported as failed and its providers are missing.
    """


@hookspec
def omp_register_commands(api: OmpAPI) -> list[Any] | None:
    """Contribute slash commands (``/name args`` typed as input).

    When: once, while the runtime is built.
    Args: ``api`` - the runtime actions object.
    Returns: a list of ``omp.plugin.contrib.Command`` objects, or None.
    Combination: concatenated; a duplicate command name is an error naming both.
    Raising: the plugin is reported as failed and its commands are missing.
    """


@hookspec
def omp_register_flags(api: OmpAPI) -> list[Any] | None:
    """Contribute command-line flags; ``omp --help`` lists them.

    When: once, before the command line is parsed (also for ``omp --help``), so an
    implementation must be cheap: no heavy imports.
    Args: ``api`` - the runtime actions object.
    Returns: a list of ``omp.plugin.contrib.Flag`` objects, or None. Values are read back with
    ``api.get_flag(name)``.
    Combination: concatenated; a duplicate flag is an error naming both; a plugin flag
    shadows a built-in flag of the same name.
    Raising: the plugin is reported as failed and its flags are missing.
    """


@hookspec
def omp_register_modes(api: OmpAPI) -> list[Any] | None:
    """Contribute run modes (print, json, interactive, rpc, acp...).

    When: once, while the runtime is built.
    Args: ``api`` - the runtime actions object.
    Returns: a list of ``omp.plugin.contrib.RunMode`` objects, or None.
    Combination: concatenated; a duplicate mode name is an error naming both.
    Raising: the plugin is reported as failed and its modes are missing.
    """


@hookspec
def omp_register_subcommands(api: OmpAPI) -> list[Any] | None:
    """Contribute command-line command families (``omp plugin ...``, ``omp mcp ...``).

    When: once, before the command line is parsed, so an implementation must be cheap
    (import what the command needs inside its ``run``).
    Args: ``api`` - the runtime actions object.
    Returns: a list of ``omp.plugin.contrib.Subcommand`` objects, or None.
    Combination: concatenated; a duplicate name is an error naming both. A name the
    kernel reserves for a family (``omp.cli.args.FAMILIES``) that no plugin provides is
    refused with "not installed" instead of being sent to the model as a prompt.
    Raising: the plugin is reported as degraded and its commands are missing.
    """


@hookspec
def omp_register_shortcuts(api: OmpAPI) -> list[Any] | None:
    """Contribute keyboard shortcuts for interactive modes.

    When: once, while the runtime is built.
    Args: ``api`` - the runtime actions object.
    Returns: a list of ``omp.plugin.contrib.Shortcut`` objects, or None.
    Combination: concatenated; a duplicate key is an error naming both.
    Raising: the plugin is reported as failed and its shortcuts are missing.
    """


@hookspec
def omp_register_renderers(api: OmpAPI) -> list[Any] | None:
    """Contribute renderers for custom messages and tool calls/results.

    When: once, while the runtime is built.
    Args: ``api`` - the runtime actions object.
    Returns: a list of ``omp.plugin.contrib.Renderer`` objects, or None.
    Combination: concatenated; a duplicate (kind, name) is an error naming both.
    Raising: the plugin is reported as failed and its renderers are missing.
    """


@hookspec
def omp_register_settings(api: OmpAPI) -> list[SettingSpec] | None:
    """Declare the settings a plugin reads, so ``omp config`` accepts, checks and shows
    them and a value of the wrong type in a settings file is reported at start.

    When: once, while the runtime is built (every command, ``omp --help`` included),
    right after the plugins load, before the command line is parsed, so an
    implementation must be cheap.
    Args: ``api`` - the runtime actions object; actions raise until loading is done.
    Returns: a list of ``omp.config.schema.SettingSpec`` (key, type, default,
    description; ``secret=True`` hides the value wherever omp shows settings), or None.
    The plugin reads its values as any setting (``ctx.settings.get(key)``), the declared
    default applying when no layer sets one.
    Combination: concatenated; a key two plugins declare is an error naming both
    (the first called is kept); a key the kernel owns, or a declaration whose default
    does not fit its type, is refused naming the plugin. A disabled or blocked plugin
    declares nothing.
    Raising: the plugin is reported as degraded and its settings are unknown.
    """


@hookspec
def omp_register_provider_configs(api: OmpAPI) -> list[Any] | None:
    """Contribute readers of the user's provider configuration (models.json, auth.json),
    so the kernel can report its problems, list the custom providers no plugin serves,
    and hide the credentials it holds, without knowing its format.

    When: on first need, after the runtime is built: ``omp models``, start-up problem
    reports, opening a session (model registry and secrets), ``omp sessions export``.
    Args: ``api`` - the runtime actions object.
    Returns: a list of ``omp.plugin.contrib.ProviderConfigSource`` objects, or None.
    Combination: concatenated; a duplicate source name is an error naming both. Every
    source is asked; problems, providers, key names and secrets are all kept.
    Raising: the plugin is reported as failed and its sources are missing; a source
    whose ``problems`` raises is reported as a problem, one whose secrets raise adds none.
    """


@hookspec
def omp_register_tool_checks(api: OmpAPI) -> list[Any] | None:
    """Contribute checks of whether the plugin's tools are offered in a directory (a
    language server for its languages, a debug adapter, an engine), and why not.

    When: on demand, outside any session: ``omp plugins``, ``omp plugin list|info|doctor``
    (``omp.SubcommandContext.tool_checks``).
    Args: ``api`` - the runtime actions object (``api.cwd`` is the directory).
    Returns: a list of ``omp.ToolCheck`` objects, or None.
    Combination: concatenated; each check's ``unavailable(settings, cwd)`` is asked and
    its answer shown under its plugin, in load order.
    Raising: the plugin's checks are missing; a check that raises is shown with its error
    as the reason.
    """


# -- session events -----------------------------------------------------------------


@hookspec
@combine("observer")
def omp_session_init(event: SessionInitEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """A child session was made (``ctx.create_child_session``, a subagent) and its
    ``session_init`` entry written.

    When: once per child, on the child (``ctx`` and ``api`` are the child's;
    ``ctx.session_depth`` >= 1), before its session_start.
    Args: ``event`` (SessionInitEvent: session_id, parent_session_id, depth, entry -
    the entry's fields: systemPrompt, tools, resolvedModel, thinkingLevel and those
    the spawning plugin added, such as task and agent).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the child goes on.
    """


@hookspec
@combine("first_block", result="SubagentSpawnDecision")
def omp_subagent_spawn(event: SubagentSpawnEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """A plugin (the task tool) is about to start a child session.

    When: once per child, on the parent (``ctx.subagent_spawn``), before the child is
    made.
    Args: ``event`` (SubagentSpawnEvent: agent, task, model, tools, isolated, depth -
    the child's -, parent_session_id, index).
    Returns: ``{"block": True, "reason": "..."}`` to stop that child (the others of
    the call still run), ``{"task"?, "model"?, "tools"?}`` to rewrite what it gets, or
    None.
    Combination: the first block wins and later handlers are skipped; each handler
    sees the event as rewritten so far.
    Raising: fail-closed - the child is blocked with the error as the reason.
    """


@hookspec
@combine("observer")
def omp_session_start(event: SessionStartEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """A session is ready: loaded or created, before the first prompt.

    When: once per session, after plugins load and the session file is open (reason
    ``startup``); again each time a new, resumed or forked session replaces it (reason
    ``new``, ``resume``, ``fork``), after the old one's session_shutdown. ``ctx.state``
    is then the new session's (empty) and the tools and commands registered for the old
    session alone are gone: rebuild plugin state and re-register them here
    (``api.process_state`` and ``scope="process"`` registrations are kept).
    Args: ``event`` (SessionStartEvent: reason, previous_session_file), ``ctx``,
    ``api`` (actions now work).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("first_cancel", result="SessionBeforeDecision")
def omp_session_before_switch(
    event: SessionBeforeSwitchEvent, ctx: HandlerContext, api: OmpAPI
) -> Any:
    """A switch to another session (new, resume, fork) is about to happen.

    When: before the current session is left: ``ctx.new_session()`` (reason ``new``),
    ``ctx.switch_session(path)`` (``resume``); on a fork (``fork``, as omp asks it) only
    for plugins that do not implement session_before_fork (pi's event for a fork), so a
    guard is asked once per action, whichever event it was written for.
    Args: ``event`` (SessionBeforeSwitchEvent: reason, target_session_file - the file
    to resume, else None).
    Returns: ``{"cancel": True}`` to stop the switch, or None.
    Combination: the first cancel wins, later handlers are skipped.
    Raising: reported as ``extension_error``; treated as no result.
    """


@hookspec
@combine("observer")
def omp_session_switch(event: SessionSwitchEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """The session was switched.

    When: after a new, resumed or forked session became current (after its
    session_start and any model_select / thinking_level_select it restored).
    Args: ``event`` (SessionSwitchEvent: reason, previous_session_file - None when the
    previous session was in memory).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("first_cancel", result="SessionBeforeDecision")
def omp_session_before_branch(
    event: SessionBeforeBranchEvent, ctx: HandlerContext, api: OmpAPI
) -> Any:
    """The session is about to branch from an earlier entry.

    When: before the leaf moves.
    Args: ``event`` (SessionBeforeBranchEvent: entry_id).
    Returns: ``{"cancel": True}`` or ``{"skip_conversation_restore": True}``, or None.
    Combination: the first cancel wins.
    Raising: reported as ``extension_error``; treated as no result.
    """


@hookspec
@combine("observer")
def omp_session_branch(event: SessionBranchEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """The session branched; the conversation was rebuilt from the new leaf.

    When: after the leaf moved. Args: ``event`` (SessionBranchEvent).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("first_cancel", result="SessionBeforeDecision")
def omp_session_before_fork(event: SessionBeforeForkEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """The session is about to be forked into a new session file.

    When: on ``ctx.fork(entry_id, position)`` (omp's ``/fork``), before anything is
    written. Plugins without this hook are asked session_before_switch (reason
    ``fork``) instead; a plugin implementing both is asked only this one.
    Args: ``event`` (SessionBeforeForkEvent: entry_id, position - ``before``: the new
    session ends before the entry; ``at``: it ends with it).
    Returns: ``{"cancel": True}`` to stop the fork, or None.
    Combination: the first cancel wins, later handlers are skipped.
    Raising: reported as ``extension_error``; treated as no result.
    """


@hookspec
@combine("observer")
def omp_session_fork(event: SessionForkEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """The session was forked: the new file (its header's ``parentSession`` names the
    old one) is now current.

    When: after the fork's session_switch.
    Args: ``event`` (SessionForkEvent: previous_session_file, entry_id, position).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("first_cancel", result="SessionBeforeDecision")
def omp_session_before_compact(
    event: SessionBeforeCompactEvent, ctx: HandlerContext, api: OmpAPI
) -> Any:
    """Compaction is about to summarise older context.

    When: before a manual or automatic compaction.
    Args: ``event`` (SessionBeforeCompactEvent: branch_entries, custom_instructions).
    Returns: ``{"cancel": True}``, or ``{"compaction": {...}}`` to supply the summary.
    Combination: the first cancel or custom compaction wins.
    Raising: reported as ``extension_error``; treated as no result.
    """


@hookspec
@combine("chain", result="CompactingPatch", patch=hookrules.patch_compacting)
def omp_session_compacting(event: SessionCompactingEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """Compaction is running with the messages it will summarise.

    When: after session_before_compact allowed it, before the summary request.
    Args: ``event`` (SessionCompactingEvent: session_id, messages, context, prompt).
    Returns: ``{"context": [lines]}`` to add lines to the request, ``{"prompt": text}``
    to replace the summary instructions, ``{"preserve_data": ...}`` to store data on
    the entry; or None.
    Combination: a chain: context lines accumulate, the last prompt wins.
    Raising: reported as ``extension_error``; the handler's patch is skipped.
    """


@hookspec
@combine("observer")
def omp_session_compact(event: SessionCompactEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """A compaction entry was written.

    When: after compaction. Args: ``event`` (SessionCompactEvent).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("first_cancel", result="SessionBeforeDecision")
def omp_session_before_tree(event: SessionBeforeTreeEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """Navigation to another point of the session tree is about to happen.

    When: on ``ctx.navigate_tree(target_id, summarize=...)`` (omp's ``/tree``), before
    the leaf moves.
    Args: ``event`` (SessionBeforeTreeEvent: preparation - target_id, old_leaf_id,
    common_ancestor_id, entries_to_summarize (the abandoned branch, oldest first) and
    user_wants_summary - and signal).
    Returns: ``{"cancel": True}``, or ``{"summary": {"summary": "...", "details": ...}}``
    to record a summary of the abandoned branch (a ``branch_summary`` entry the model then sees),
    or None (when the user asked for a summary, the summary model writes it).
    Combination: the first cancel or summary wins.
    Raising: reported as ``extension_error``; treated as no result.
    """


@hookspec
@combine("observer")
def omp_session_tree(event: SessionTreeEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """The session navigated its tree; the conversation was rebuilt from the new leaf.

    When: after the leaf moved. Args: ``event`` (SessionTreeEvent: new_leaf_id,
    old_leaf_id, summary_entry - the branch_summary entry written, if any - and
    from_extension).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("chain", result="SessionStopDecision", patch=hookrules.patch_session_stop)
def omp_session_stop(event: SessionStopEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """The agent is about to stop: the model answered without calling a tool and no
    steering or follow-up message waits.

    When: once each time a run would end normally (not after an error or an abort).
    Args: ``event`` (SessionStopEvent: messages, turn_id, last_assistant_message,
    session_id, session_file, stop_hook_active - True while the run goes on because
    of an earlier continuation - and signal).
    Returns: ``{"continue": True, "additional_context": "..."}`` or ``{"decision":
    "block", "reason": "..."}`` (``{"block": True, ...}`` also works) to make the agent
    go on, with that text as a message to the model; None lets it stop. At most 8
    consecutive continuations per prompt; then the agent stops anyway with a notice.
    Combination: the first result that continues or blocks wins and later
    handlers are not called.
    Raising: reported as ``extension_error``; treated as no result.
    """


@hookspec
@combine("observer")
def omp_session_shutdown(event: SessionShutdownEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """The session is closing (end of a print run, exit of the interactive mode), or
    being replaced by a new, resumed or forked one.

    When: once, last (reason ``quit``); and before a session_start that replaces the
    session (reason ``new``, ``resume`` or ``fork``). Args: ``event``
    (SessionShutdownEvent: reason, target_session_file).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; shutdown goes on.
    """


# -- prompt and agent events -----------------------------------------------------------


@hookspec
@combine("chain", result="InputPatch", patch=hookrules.patch_input)
def omp_input(event: InputEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """User input arrived, before commands are matched or the agent runs.

    When: for every prompt typed, piped, sent over RPC or by a plugin.
    Args: ``event`` (InputEvent: text, images, source).
    Returns: ``{"text": ...}`` to rewrite the input, ``{"handled": True}`` to consume it
    (nothing runs), or None.
    Combination: each handler sees the text as rewritten so far; the first
    ``handled`` stops the chain.
    Raising: reported as ``extension_error``; the input goes on unchanged.
    """


@hookspec
@combine("chain", result="BeforeAgentStartPatch", patch=hookrules.patch_before_agent_start)
def omp_before_agent_start(event: BeforeAgentStartEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """A prompt is about to start the agent.

    When: after input handling, before agent_start.
    Args: ``event`` (BeforeAgentStartEvent: prompt, images, system_prompt as a list of
    sections).
    Returns: ``{"system_prompt": [...]}`` to replace the sections for this prompt,
    ``{"message": {custom message}}`` to add a message before the prompt, or None.
    Combination: each handler sees the sections as changed so far; messages
    from all handlers are added in order.
    Raising: reported as ``extension_error``; the prompt goes on.
    """


@hookspec
@combine("observer")
def omp_agent_start(event: AgentStartEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """The agent started working on a prompt.

    When: once per prompt, before the first turn. Args: ``event`` (AgentStartEvent).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("observer")
def omp_agent_end(event: AgentEndEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """The agent finished a prompt (the model stopped, errored or was aborted).

    When: once per prompt, last. Args: ``event`` (AgentEndEvent: messages).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("observer")
def omp_turn_start(event: TurnStartEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """A turn (one model call and its tool calls) starts.

    When: before each model request of a prompt; there may be many per prompt.
    Args: ``event`` (TurnStartEvent: turn_index, timestamp).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("observer")
def omp_turn_end(event: TurnEndEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """A turn ended.

    When: after the assistant message and all its tool results.
    Args: ``event`` (TurnEndEvent: turn_index, message, tool_results).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine(
    "chain",
    result="ContextPatch",
    patch=hookrules.patch_context,
    start=hookrules.start_context,
    finish=hookrules.finish_context,
)
def omp_context(event: ContextEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """The messages of one provider request, before they are sent.

    When: before every model request. Changes apply to that request only and are not
    written to the session.
    Args: ``event`` (ContextEvent: messages).
    Returns: ``{"messages": [...]}`` to replace the list, or None.
    Combination: each handler sees the list as changed so far.
    Raising: reported as ``extension_error``; the request goes on.
    """


@hookspec
@combine("observer")
def omp_message_start(event: MessageStartEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """A message (user, assistant, tool result, custom) starts.

    When: as the message enters the conversation; assistant messages then stream.
    Args: ``event`` (MessageStartEvent: message).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("observer")
def omp_message_update(event: MessageUpdateEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """An assistant message streamed a piece (text, thinking or tool-call delta).

    When: for every normalized provider event between start and done.
    Args: ``event`` (MessageUpdateEvent: message, assistant_message_event).
    Returns: ignored. Combination: every handler runs. Keep it fast: it runs per delta.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("observer")
def omp_message_end(event: MessageEndEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """A message is complete and has been written to the session.

    When: once per message. Args: ``event`` (MessageEndEvent: message).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("first_block", result="ToolCallDecision")
def omp_tool_call(event: ToolCallEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """The model called a tool; the call is about to run.

    When: after the arguments validated, before execute().
    Args: ``event`` (ToolCallEvent: tool_call_id, tool_name, input).
    Returns: ``{"block": True, "reason": "..."}`` to stop the call (the model gets the
    reason as the tool's error result), ``{"input": {...}}`` to revise the arguments
    (revalidated), ``{"ask": True, "reason": "..."}`` to have the user approve the
    call first (see omp_tool_approval_requested), or None.
    Combination: the first block wins and later handlers are skipped; an
    ask is kept (with the first asker's reason) while later handlers still run.
    Raising: fail-closed - the tool is blocked with the error as the reason.
    """


@hookspec
@combine("observer")
def omp_tool_approval_requested(
    event: ToolApprovalRequestedEvent, ctx: HandlerContext, api: OmpAPI
) -> None:
    """A tool call needs the user's approval before it runs.

    When: after tool_call handlers let the call through, when a handler asked
    (``{"ask": True}``), the tool has ``requires_approval`` and ``tools.approvalMode``
    is ``write`` (the default), the mode is ``always-ask``, or ``tools.approval`` says
    ``prompt`` for the tool. The user then answers through ``ctx.ui.confirm``; with
    no UI the call is denied, and in ``yolo`` mode it is approved without asking.
    Args: ``event`` (ToolApprovalRequestedEvent: session_id, tool_call_id, tool_name,
    reason - the asking handler's, else None - and approval_mode).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the approval goes on.
    """


@hookspec
@combine("observer")
def omp_tool_approval_resolved(
    event: ToolApprovalResolvedEvent, ctx: HandlerContext, api: OmpAPI
) -> None:
    """A tool call's approval was decided; a denied call gets an error result saying
    why and does not run.

    When: right after the decision, before the call runs.
    Args: ``event`` (ToolApprovalResolvedEvent: session_id, tool_call_id, tool_name,
    approved, reason - how it was decided).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the decision stands.
    """


@hookspec
@combine("chain", result="ToolResultPatch", patch=hookrules.patch_tool_result)
def omp_tool_result(event: ToolResultEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """A tool produced its result (also for errors and blocks).

    When: after execute() returned and its result was coerced, before it is recorded.
    Args: ``event`` (ToolResultEvent: tool_call_id, tool_name, input, content,
    details, is_error).
    Returns: a partial patch ``{"content"?, "details"?, "is_error"?}``, or None.
    Combination: each handler sees the result as patched so far; omitted
    fields keep their value.
    Raising: reported as ``extension_error``; the result goes on unchanged.
    """


@hookspec
@combine("observer")
def omp_tool_execution_start(
    event: ToolExecutionStartEvent, ctx: HandlerContext, api: OmpAPI
) -> None:
    """A tool call started executing.

    When: before tool_call handlers run for it.
    Args: ``event`` (ToolExecutionStartEvent: tool_call_id, tool_name, args).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("observer")
def omp_tool_execution_update(
    event: ToolExecutionUpdateEvent, ctx: HandlerContext, api: OmpAPI
) -> None:
    """A running tool reported partial output through on_update.

    When: as often as the tool reports.
    Args: ``event`` (ToolExecutionUpdateEvent: partial_result).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("observer")
def omp_tool_execution_end(event: ToolExecutionEndEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """A tool call finished (success, error, block, skip or abort).

    When: once per tool call, after tool_result handlers.
    Args: ``event`` (ToolExecutionEndEvent: result, is_error).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


# -- model events -------------------------------------------------------------------


@hookspec
@combine("observer")
def omp_model_select(event: ModelSelectEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """The session's model changed.

    When: after ``api.set_model`` (or a mode's model picker) switched the model
    (source ``set``; ``cycle`` from a key that cycles models), and when a resumed or
    switched-to session restores the model it was using (source ``restore``).
    Args: ``event`` (ModelSelectEvent: model and previous_model as
    ``omp.agent.providers.Model``, previous_model None on restore; source).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("observer")
def omp_thinking_level_select(
    event: ThinkingLevelSelectEvent, ctx: HandlerContext, api: OmpAPI
) -> None:
    """The session's thinking level changed.

    When: after ``api.set_thinking_level`` (source ``set``), and when a resumed or
    switched-to session restores its recorded level (source ``restore``).
    Args: ``event`` (ThinkingLevelSelectEvent: level, previous_level, source).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


# -- provider events ----------------------------------------------------------------


@hookspec
@combine("chain", patch=hookrules.patch_payload)
def omp_before_provider_request(
    event: BeforeProviderRequestEvent, ctx: HandlerContext, api: OmpAPI
) -> Any:
    """An HTTP provider is about to send its request body.

    When: for every request attempt of every HTTP provider (retries included), after
    the provider built the JSON body and before it is sent. Providers without an HTTP
    request (the scripted one) do not fire it.
    Args: ``event`` (BeforeProviderRequestEvent: payload - the JSON body as a dict -
    and model).
    Returns: ``{"patch": {...}}`` to set top-level keys (a None value removes the key),
    ``{"payload": ...}`` or any other value to replace the body, or None to keep it.
    Changes reach this request only; ``ctx.get_system_prompt()`` does not see them.
    Combination: each handler sees the payload as changed so far.
    Raising: reported as ``extension_error``; the payload stays as it was.
    """


@hookspec
@combine("observer")
def omp_after_provider_response(
    event: AfterProviderResponseEvent, ctx: HandlerContext, api: OmpAPI
) -> None:
    """An HTTP provider's response arrived (before its body is read).

    When: once per request attempt, for success and error statuses alike.
    Args: ``event`` (AfterProviderResponseEvent: status, headers with lower-case names
    and credentials redacted, model).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the response is read as usual.
    """


@hookspec
@combine("observer")
def omp_credential_disabled(
    event: CredentialDisabledEvent, ctx: HandlerContext, api: OmpAPI
) -> None:
    """A provider rejected its API key (HTTP 401, or an authentication error).

    When: once, at the first rejection; the key is not sent again in this process -
    later requests to that provider fail at once saying why, and the provider's models
    count as unavailable (a fallback chain moves on).
    Args: ``event`` (CredentialDisabledEvent: provider, disabled_cause - the
    provider's explanation, secrets redacted).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("observer")
def omp_mcp_notification(event: McpNotificationEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """A connected MCP server sent a notification.

    When: with the MCP plugin (omp-mcp) installed, each time a server sends one:
    ``notifications/tools/list_changed`` (the server's tools were listed again and the
    registry updated before this fires), ``notifications/resources/updated``,
    ``notifications/resources/list_changed``, ``notifications/prompts/list_changed``,
    ``notifications/message`` (a log line) and any other. Also sent to subscribers
    (the json mode writes it).
    Args: ``event`` (McpNotificationEvent: server - its configured name, method - the
    MCP method, params - the notification's parameters as JSON).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the connection goes on.
    """


@hookspec
@combine("first_result", result="ExecutionOverride", timed=False)
def omp_user_bash(event: UserBashEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """The user typed a shell command as a prompt: ``!cmd`` (its output joins the
    conversation as a bashExecution message) or ``!!cmd`` (shown, kept out of the
    model's context); RPC's ``bash`` command too. The kernel only dispatches it: the
    user shell plugin (omp-user-shell) runs the command (``trylast``) and shapes the
    winning result (a wrapper); without that plugin nothing runs and the user is told.

    When: in every mode, after the input hooks; handlers run the command, so they have
    no time limit (the user waits for it and can abort it).
    Args: ``event`` (UserBashEvent: command, exclude_from_context - True for ``!!`` -
    cwd, and signal - an ``AbortSignal`` when the run can be aborted, else None).
    Returns: ``{"result": {...}}`` to run it yourself (a remote shell, say): an
    ``api.exec`` result or a dict with ``stdout``, ``stderr``, ``code``, ``killed``
    (or ``output``, ``exit_code``, ``cancelled``); or None to let it run locally.
    Combination: the first result wins; a wrapper may reshape it (omp-user-shell's
    makes it a ``UserShellRun``, which the kernel records).
    Raising: reported as ``extension_error``; treated as no result.
    """


@hookspec
@combine("first_result", result="ExecutionOverride", timed=False)
def omp_user_python(event: UserPythonEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """The user typed Python as a prompt: ``$code`` (a pythonExecution message joins the
    conversation) or ``$$code`` (shown, kept out of the model's context). Dispatched
    as omp_user_bash is.

    When: in every mode, after the input hooks; handlers have no time limit. The eval
    tool's plugin (omp-tool-eval) runs the code in the session's eval kernel, so it
    shares state with the ``eval`` tool; without it, omp-user-shell runs ``python3 -c``.
    Args: ``event`` (UserPythonEvent: code, exclude_from_context - True for ``$$`` -
    cwd, and signal - an ``AbortSignal`` or None).
    Returns: ``{"result": {...}}`` to run it yourself (a kernel, say), in the shapes
    omp_user_bash accepts; or None to let it run with python3.
    Combination: the first result wins; a wrapper may reshape it, as for omp_user_bash.
    Raising: reported as ``extension_error``; treated as no result.
    """


# -- service hooks ------------------------------------------------------------------


@hookspec
@combine("first_result", result="ExecutionOverride")
def omp_search(event: SearchEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """A tool needs a grep, find or tree search (``ctx.search``).

    When: each time grep, find or ls (or another tool) searches files.
    Args: ``event`` (SearchEvent: kind "grep" | "find" | "tree", params as the tool
    received them, cwd, on_partial - a callback for a grep's first results, from any
    thread, so they reach the user before the walk ends).
    Returns: ``{"result": ...}`` - the backend's answer in the shape the calling tool
    documents - or None to leave the search to the next backend.
    Combination: the first backend that answers wins, so a faster one
    (the natives plugin) takes over by registering ``tryfirst`` and the pure-Python
    backend sits ``trylast``.
    Raising: reported as ``extension_error``; treated as no result.
    """


# -- compaction: the loop's questions, answered by a compaction plugin ---------------


@hookspec
@combine("first_result", result="RequestDecision", timed=False)
def omp_before_request(event: BeforeRequestEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """The loop is about to send a model request (omp-compaction prunes and compacts here).

    When: before each model request of a run, once its conversation is final.
    Args: ``event`` (BeforeRequestEvent: messages - the conversation, read-only -,
    model, session).
    Returns: a RequestDecision - ``{"messages": [...]}`` to build the request from those
    instead (the loop keeps them), ``{"stop": True}`` to end the run without sending (say
    why first) - or None to send the conversation as it is.
    Combination: the first handler that returns a decision wins; later ones are not
    called. Handlers have no time limit (a compaction asks a model).
    Raising: reported as ``extension_error``; the request is sent as it is.
    """


@hookspec
@combine("first_result", result="OverflowDecision", timed=False)
def omp_context_overflow(event: ContextOverflowEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """A model request failed because the context overflowed.

    When: after a failed response the provider marked (or worded) as a context overflow,
    at most once per request. Without a handler the failure is the run's error.
    Args: ``event`` (ContextOverflowEvent: message - the failed response, already last
    in messages -, messages, model, session).
    Returns: an OverflowDecision - ``{"messages": [...], "retry": True}`` to go on with
    the compacted conversation and send the request again - or None to leave the error.
    Combination: the first handler that returns a decision wins. Handlers have no time
    limit.
    Raising: reported as ``extension_error``; the error stands.
    """


@hookspec
@combine("first_result", result="CompactionServiceResult")
def omp_compaction_service(event: CompactionServiceEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """The session asks for its compaction service (``omp.CompactionService``).

    When: each time the session compacts on demand (``/compact``, ``ctx.compact()``,
    RPC ``compact``), summarises an abandoned ``/tree`` branch, or checks a prompt's size
    before sending it. Args: ``event`` (CompactionServiceEvent: session).
    Returns: ``{"service": obj}``, an object with the methods of
    ``omp.CompactionService`` (keep one per session, in ``ctx.state``); None to offer
    none. Without one, compacting on demand and branch summaries are a one-line "no
    compaction plugin is installed" error and prompts are sent as they are.
    Combination: the first service returned wins; later handlers are not called.
    Raising: reported as ``extension_error``; treated as no result.
    """


# -- compaction and retry events ---------------------------------------------------


@hookspec
@combine("observer")
def omp_auto_compaction_start(
    event: AutoCompactionStartEvent, ctx: HandlerContext, api: OmpAPI
) -> None:
    """Automatic compaction started.

    When: the context crossed its threshold or overflowed.
    Args: ``event`` (AutoCompactionStartEvent: reason).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("observer")
def omp_auto_compaction_end(
    event: AutoCompactionEndEvent, ctx: HandlerContext, api: OmpAPI
) -> None:
    """Automatic compaction ended.

    When: after it succeeded, failed or was aborted. Args: ``event``
    (AutoCompactionEndEvent). Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("observer")
def omp_auto_retry_start(event: AutoRetryStartEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """A failed provider request is about to be retried.

    When: before the backoff delay. Args: ``event`` (AutoRetryStartEvent: attempt,
    max_attempts, delay_ms, error_message). Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the retry goes on.
    """


@hookspec
@combine("observer")
def omp_auto_retry_end(event: AutoRetryEndEvent, ctx: HandlerContext, api: OmpAPI) -> None:
    """Retrying ended, successfully or not.

    When: after the last attempt. Args: ``event`` (AutoRetryEndEvent: success,
    attempt, final_error). Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("observer")
def omp_retry_fallback_applied(
    event: RetryFallbackAppliedEvent, ctx: HandlerContext, api: OmpAPI
) -> None:
    """A request failed for good (after its retries) and a fallback model takes over.

    When: after a model request ends in an error other than a context overflow or an
    abort, when ``retry.modelFallback`` is on (the default) and
    ``retry.fallbackChains`` lists a usable model after the failed one - under the
    failed model's ``provider/id``, else under ``default``. The request is sent again
    to that model; the rest of the prompt stays with it and the next prompt tries the
    primary model again. Also sent to subscribers, with a warning notice.
    Args: ``event`` (RetryFallbackAppliedEvent: ``from_`` - ``from`` on the wire -
    to, role).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the fallback goes on.
    """


@hookspec
@combine("observer")
def omp_retry_fallback_succeeded(
    event: RetryFallbackSucceededEvent, ctx: HandlerContext, api: OmpAPI
) -> None:
    """A fallback model answered where the primary failed.

    When: after the first successful response of a fallback model in a prompt.
    Args: ``event`` (RetryFallbackSucceededEvent: model, role).
    Returns: ignored. Combination: every handler runs.
    Raising: reported as ``extension_error``; the run goes on.
    """


@hookspec
@combine("chain", result="ResourcesPatch", patch=hookrules.patch_resources)
def omp_resources_discover(event: ResourcesDiscoverEvent, ctx: HandlerContext, api: OmpAPI) -> Any:
    """Resources (rules, skills, prompt templates, themes) are being discovered.

    When: when a session starts, after session_start (and again when a new, resumed or
    forked session replaces it), reason ``startup``.
    Args: ``event`` (ResourcesDiscoverEvent: cwd, reason, and the skill_paths,
    prompt_paths, rule_paths and theme_paths found so far; with omp-context-sources the
    built-in folders that exist, such as ``.omp/skills`` or ``.cursor/rules``, come
    first).
    Returns: ``{"skill_paths": [...], "prompt_paths": [...], "rule_paths": [...],
    "theme_paths": [...]}`` (any of them; paths absolute or relative to the cwd), or
    None. The session keeps the result (``session.resources``; theme paths are for
    interactive modes). omp-context-sources reads the rest last (``trylast``): prompt
    templates (``.md`` files) become slash commands named after the file; skills
    (folders with a ``SKILL.md``) become ``/skill:<name>`` commands and are listed in
    the system prompt; rules (``.md``/``.mdc`` files, or folders of them) go into the
    system prompt or arrive with a matching file. The first of a name wins, so
    built-in folders win over a plugin's paths.
    Combination: each handler sees the paths found so far and adds its own.
    Raising: reported as ``extension_error``; discovery goes on.
    """
