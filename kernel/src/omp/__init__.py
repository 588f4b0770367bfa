"""omp for Python: the public API.

Everything a plugin or an embedder uses is importable from here (and the test kit from
``omp.testing``); every other module is internal and may change in any release. The
distribution's version is the API's version: a name listed in ``__all__`` changes or goes
only in a major version, after warning for one minor version.

Importing ``omp`` is cheap: each name is imported from its module on first use, so
``omp --version`` and a plugin's entry module pay only for what they touch. The
reference page is docs/API.md (``python scripts/api_reference.py`` writes it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    # Contributions a plugin registers
    "Tool": "omp.agent.tools",
    "ToolResult": "omp.agent.tools",
    "tool_cwd": "omp.agent.tools",
    "resolve_path": "omp.agent.tools",
    "ToolRegistry": "omp.agent.tools",
    "ToolRendering": "omp.runtime.tool_render",
    "ToolRenderOptions": "omp.runtime.tool_render",
    "CallRenderer": "omp.runtime.tool_render",
    "ResultRenderer": "omp.runtime.tool_render",
    "Rendered": "omp.runtime.tool_render",
    "rendered_text": "omp.runtime.tool_render:plain_text",
    "Scope": "omp.runtime.scope",
    "Command": "omp.plugin.contrib",
    "CommandSource": "omp.plugin.contrib",
    "Subcommand": "omp.plugin.contrib",
    "SubcommandContext": "omp.cli.subcommand_context",
    "Registrations": "omp.cli.subcommand_context",
    "ParsedArgs": "omp.cli.args",
    "Flag": "omp.plugin.contrib",
    "RunMode": "omp.plugin.contrib",
    "Shortcut": "omp.plugin.contrib",
    "Renderer": "omp.plugin.contrib",
    "ToolCheck": "omp.plugin.contrib",
    "Provider": "omp.agent.providers",
    "Model": "omp.agent.providers",
    "ModelRegistry": "omp.agent.providers",
    "AssistantStream": "omp.agent.providers",
    "LlmContext": "omp.agent.providers",
    "StreamOptions": "omp.agent.providers",
    "ProviderConfigSource": "omp.plugin.contrib",
    "apply_cost": "omp.agent.cost",
    "is_context_overflow": "omp.agent.provider_errors",
    "redact_keys": "omp.agent.provider_errors:redact",
    # Messages
    "WireModel": "omp.agent.messages",
    "TextContent": "omp.agent.messages",
    "ImageContent": "omp.agent.messages",
    "ThinkingContent": "omp.agent.messages",
    "RedactedThinkingContent": "omp.agent.messages",
    "ServerToolContent": "omp.agent.messages",
    "Citation": "omp.agent.messages",
    "ToolCall": "omp.agent.messages",
    "Cost": "omp.agent.messages",
    "Usage": "omp.agent.messages",
    "UserMessage": "omp.agent.messages",
    "DeveloperMessage": "omp.agent.messages",
    "AssistantMessage": "omp.agent.messages",
    "ToolResultMessage": "omp.agent.messages",
    "CustomMessage": "omp.agent.messages",
    "BashExecutionMessage": "omp.agent.messages",
    "PythonExecutionMessage": "omp.agent.messages",
    "BranchSummaryMessage": "omp.agent.messages",
    "CompactionSummaryMessage": "omp.agent.messages",
    "AgentMessage": "omp.agent.messages",
    "LlmMessage": "omp.agent.messages",
    "parse_message": "omp.agent.messages",
    "content_text": "omp.agent.messages",
    "convert_to_llm": "omp.agent.messages",
    "to_wire": "omp.agent.messages",
    # Embedding: sessions and one-shot completions
    "create_session": "omp.runtime.sdk",
    "SessionOpener": "omp.runtime.sdk",
    "SessionChoice": "omp.runtime.sdk",
    "AgentSession": "omp.runtime.sdk_session",
    "SessionChange": "omp.runtime.sdk_session",
    "UsageTotals": "omp.runtime.sdk_session",
    "Listener": "omp.runtime.sdk_session",
    "ApprovalMode": "omp.runtime.sdk_session",
    "ApprovalGate": "omp.runtime.sdk_session",
    "QueueMode": "omp.runtime.sdk_controls",
    "InterruptMode": "omp.runtime.sdk_controls",
    "complete": "omp.runtime.completion",
    "stream_completion": "omp.runtime.completion",
    "serialize_conversation": "omp.runtime.completion",
    # Events handlers receive, and the results they return
    "Event": "omp.agent.events",
    "AgentStartEvent": "omp.agent.events",
    "AgentEndEvent": "omp.agent.events",
    "TurnStartEvent": "omp.agent.events",
    "TurnEndEvent": "omp.agent.events",
    "MessageStartEvent": "omp.agent.events",
    "MessageUpdateEvent": "omp.agent.events",
    "MessageEndEvent": "omp.agent.events",
    "ToolExecutionStartEvent": "omp.agent.events",
    "ToolExecutionUpdateEvent": "omp.agent.events",
    "ToolExecutionEndEvent": "omp.agent.events",
    "ToolApprovalRequestedEvent": "omp.agent.events",
    "ToolApprovalResolvedEvent": "omp.agent.events",
    "ToolCallEvent": "omp.agent.events",
    "ToolResultEvent": "omp.agent.events",
    "ContextEvent": "omp.agent.events",
    "InputEvent": "omp.agent.events",
    "BeforeAgentStartEvent": "omp.agent.events",
    "ExtensionErrorEvent": "omp.agent.events",
    "NoticeEvent": "omp.agent.events",
    "QueueUpdateEvent": "omp.agent.events",
    "ModelChangedEvent": "omp.agent.events",
    "ThinkingLevelChangedEvent": "omp.agent.events",
    "ModelSelectEvent": "omp.agent.events",
    "ThinkingLevelSelectEvent": "omp.agent.events",
    "BeforeProviderRequestEvent": "omp.agent.events",
    "AfterProviderResponseEvent": "omp.agent.events",
    "CredentialDisabledEvent": "omp.agent.events",
    "McpNotificationEvent": "omp.agent.events",
    "AutoRetryStartEvent": "omp.agent.events",
    "AutoRetryEndEvent": "omp.agent.events",
    "RetryFallbackAppliedEvent": "omp.agent.events",
    "RetryFallbackSucceededEvent": "omp.agent.events",
    "AutoCompactionStartEvent": "omp.agent.events",
    "AutoCompactionEndEvent": "omp.agent.events",
    "SessionStartEvent": "omp.agent.events",
    "SessionBeforeSwitchEvent": "omp.agent.events",
    "SessionSwitchEvent": "omp.agent.events",
    "SessionBeforeBranchEvent": "omp.agent.events",
    "SessionBranchEvent": "omp.agent.events",
    "SessionBeforeForkEvent": "omp.agent.events",
    "SessionForkEvent": "omp.agent.events",
    "SessionBeforeCompactEvent": "omp.agent.events",
    "SessionCompactingEvent": "omp.agent.events",
    "SessionCompactEvent": "omp.agent.events",
    "TreePreparation": "omp.agent.events",
    "SessionBeforeTreeEvent": "omp.agent.events",
    "SessionTreeEvent": "omp.agent.events",
    "SessionStopEvent": "omp.agent.events",
    "SessionShutdownEvent": "omp.agent.events",
    "SessionInitEvent": "omp.agent.events",
    "SubagentSpawnEvent": "omp.agent.events",
    "SubagentSpawnDecision": "omp.agent.events",
    "SubagentProgressEvent": "omp.agent.events",
    "SubagentLifecycleEvent": "omp.agent.events",
    "SUBAGENT_USAGE_KEY": "omp.agent.usage",
    "UserBashEvent": "omp.agent.events",
    "UserPythonEvent": "omp.agent.events",
    "SearchEvent": "omp.agent.events",
    "ResourcesDiscoverEvent": "omp.agent.events",
    "ToolCallDecision": "omp.agent.events",
    "ToolResultPatch": "omp.agent.events",
    "ContextPatch": "omp.agent.events",
    "InputPatch": "omp.agent.events",
    "BeforeAgentStartPatch": "omp.agent.events",
    "CompactingPatch": "omp.agent.events",
    "SessionBeforeDecision": "omp.agent.events",
    "SessionStopDecision": "omp.agent.events",
    "ResourcesPatch": "omp.agent.events",
    "ExecutionOverride": "omp.agent.events",
    "UserShellRun": "omp.agent.events",
    # Errors
    "OmpError": "omp.base.errors",
    "UsageError": "omp.base.errors",
    "RuntimeNotReadyError": "omp.base.errors",
    "CompactionError": "omp.runtime.compaction",
    "CompactionCancelled": "omp.runtime.compaction",
    "CompactionService": "omp.runtime.compaction",
    "CompactionSession": "omp.runtime.compaction",
    "CompactionOutcome": "omp.agent.host",
    "BeforeRequestEvent": "omp.agent.events",
    "ContextOverflowEvent": "omp.agent.events",
    "CompactionServiceEvent": "omp.agent.events",
    "RequestDecision": "omp.agent.events",
    "OverflowDecision": "omp.agent.events",
    "CompactionServiceResult": "omp.agent.events",
    "context_message": "omp.session.file",
    "RunStopped": "omp.runtime.signals:Stopped",
    "STOP_SIGNALS": "omp.runtime.signals:HANDLED",
    "UnknownHookError": "omp.plugin.dispatch",
    "UnknownResultKeys": "omp.plugin.rules",
    # What a handler is given
    "HandlerContext": "omp.runtime.context",
    "CommandContext": "omp.runtime.context",
    "OmpAPI": "omp.runtime.api",
    "ExecResult": "omp.runtime.api",
    "EventBus": "omp.runtime.api",
    "UI": "omp.runtime.ui",
    "NullUI": "omp.runtime.ui",
    "StderrUI": "omp.runtime.ui",
    "EventUI": "omp.runtime.ui",
    "AbortSignal": "omp.base.abort",
    "run_abortable": "omp.base.abort",
    "FileAccess": "omp.base.files",
    "ArtifactStore": "omp.session.artifacts",
    "FileLedger": "omp.session.artifacts",
    "ARTIFACT_SCHEME": "omp.session.artifacts:SCHEME",
    "SessionView": "omp.session.file",
    "SessionFile": "omp.session.file",
    "ThinkingLevel": "omp.base.thinking",
    "THINKING_LEVELS": "omp.base.thinking",
    "thinking_levels": "omp.base.thinking",
    "next_thinking_level": "omp.base.thinking",
    "describe_compaction": "omp.runtime.compaction:describe",
    "set_session_name": "omp.runtime.actions",
    # Files, processes and secrets
    "split_front_matter": "omp.base.frontmatter",
    "front_matter_list": "omp.base.frontmatter",
    "front_matter_flag": "omp.base.frontmatter",
    "write_file": "omp.config.atomic_write",
    "replacing": "omp.config.atomic_write",
    "NotRestored": "omp.config.atomic_write",
    "track_process_group": "omp.base.processes:track_group",
    "untrack_process_group": "omp.base.processes:untrack_group",
    "running_process_groups": "omp.base.processes:running_groups",
    "python_module_command": "omp.base.python_child",
    "Secrets": "omp.config.secrets",
    "known_secrets": "omp.config.secrets",
    "CREDENTIAL_NAME": "omp.config.secrets",
    "ENV_SECRET_NAME": "omp.config.secrets",
    "count_tokens": "omp.runtime.compaction:estimate_tokens",
    "CopyOnRead": "omp.base.copying",
    # Settings and project trust
    "Settings": "omp.config.settings",
    "agent_dir": "omp.config.settings",
    "project_dirs": "omp.runtime.system_prompt",
    "with_prompt_sections": "omp.runtime.system_prompt",
    "user_settings_path": "omp.config.settings",
    "project_settings_path": "omp.config.settings",
    "load_settings": "omp.config.settings",
    "read_settings_file": "omp.config.settings",
    "save_setting": "omp.config.settings",
    "unset_setting": "omp.config.settings",
    "environment_layers": "omp.config.settings",
    "deep_merge": "omp.config.settings",
    "json_type_name": "omp.config.settings",
    "SettingSpec": "omp.config.schema",
    "Schema": "omp.config.schema",
    "SettingType": "omp.config.schema",
    "KERNEL_SETTINGS": "omp.config.schema:KERNEL",
    "SETTINGS_SCHEMA": "omp.config.schema:SCHEMA",
    "find_setting": "omp.config.schema:find",
    "resolve_setting": "omp.config.schema:resolve",
    "parse_setting_value": "omp.config.schema:parse_value",
    "setting_group_members": "omp.config.schema:group_members",
    "check_settings_layer": "omp.config.check:checked_layer",
    "shown_settings_path": "omp.config.check:shown_path",
    "shown_setting_value": "omp.config.check:shown_value",
    "TRUSTED_DIRECTORIES_KEY": "omp.config.trust:TRUSTED_DIRECTORIES",
    "SAFE_PROJECT_KEYS": "omp.config.trust",
    # Sessions on disk
    "sessions_dir": "omp.session.store",
    "find_session": "omp.session.store",
    "most_recent_session": "omp.session.store:most_recent",
    "SessionInfo": "omp.session.listing",
    "list_sessions": "omp.session.listing",
    "list_all_sessions": "omp.session.listing",
    # Plugins and their distributions
    "ENTRY_POINT_GROUP": "omp.plugin.manager",
    "PluginRecord": "omp.plugin.manager",
    "combine": "omp.plugin.specs",
    "HookRule": "omp.plugin.rules",
    "ChainOutcome": "omp.plugin.rules",
    "ToolChoice": "omp.plugin.tool_overrides",
    "Refusal": "omp.plugin.tool_overrides",
    "choose_tools": "omp.plugin.tool_overrides",
}
"""Public name -> ``module`` (same attribute name) or ``module:attribute``."""

if TYPE_CHECKING:
    import pluggy

    hookimpl: pluggy.HookimplMarker
    # Contributions a plugin registers
    from omp.agent.tools import (
        Tool as Tool,
        ToolResult as ToolResult,
        tool_cwd as tool_cwd,
        resolve_path as resolve_path,
        ToolRegistry as ToolRegistry,
    )
    from omp.runtime.tool_render import (
        ToolRendering as ToolRendering,
        ToolRenderOptions as ToolRenderOptions,
        CallRenderer as CallRenderer,
        ResultRenderer as ResultRenderer,
        Rendered as Rendered,
        plain_text as rendered_text,
    )
    from omp.runtime.scope import Scope as Scope
    from omp.plugin.contrib import (
        Command as Command,
        CommandSource as CommandSource,
        Subcommand as Subcommand,
        Flag as Flag,
        RunMode as RunMode,
        Shortcut as Shortcut,
        Renderer as Renderer,
        ToolCheck as ToolCheck,
    )
    from omp.cli.subcommand_context import (
        SubcommandContext as SubcommandContext,
        Registrations as Registrations,
    )
    from omp.cli.args import ParsedArgs as ParsedArgs
    from omp.agent.providers import (
        Provider as Provider,
        Model as Model,
        ModelRegistry as ModelRegistry,
        AssistantStream as AssistantStream,
        LlmContext as LlmContext,
        StreamOptions as StreamOptions,
    )
    from omp.plugin.contrib import ProviderConfigSource as ProviderConfigSource
    from omp.agent.cost import apply_cost as apply_cost
    from omp.agent.usage import SUBAGENT_USAGE_KEY as SUBAGENT_USAGE_KEY
    from omp.agent.provider_errors import (
        is_context_overflow as is_context_overflow,
        redact as redact_keys,
    )

    # Messages
    from omp.agent.messages import (
        WireModel as WireModel,
        TextContent as TextContent,
        ImageContent as ImageContent,
        ThinkingContent as ThinkingContent,
        RedactedThinkingContent as RedactedThinkingContent,
        ServerToolContent as ServerToolContent,
        Citation as Citation,
        ToolCall as ToolCall,
        Cost as Cost,
        Usage as Usage,
        UserMessage as UserMessage,
        DeveloperMessage as DeveloperMessage,
        AssistantMessage as AssistantMessage,
        ToolResultMessage as ToolResultMessage,
        CustomMessage as CustomMessage,
        BashExecutionMessage as BashExecutionMessage,
        PythonExecutionMessage as PythonExecutionMessage,
        BranchSummaryMessage as BranchSummaryMessage,
        CompactionSummaryMessage as CompactionSummaryMessage,
        AgentMessage as AgentMessage,
        LlmMessage as LlmMessage,
        parse_message as parse_message,
        content_text as content_text,
        convert_to_llm as convert_to_llm,
        to_wire as to_wire,
    )

    # Embedding: sessions and one-shot completions
    from omp.runtime.sdk import (
        create_session as create_session,
        SessionOpener as SessionOpener,
        SessionChoice as SessionChoice,
    )
    from omp.runtime.sdk_session import (
        AgentSession as AgentSession,
        SessionChange as SessionChange,
        UsageTotals as UsageTotals,
        Listener as Listener,
        ApprovalMode as ApprovalMode,
        ApprovalGate as ApprovalGate,
    )
    from omp.runtime.sdk_controls import QueueMode as QueueMode, InterruptMode as InterruptMode
    from omp.runtime.completion import (
        complete as complete,
        stream_completion as stream_completion,
        serialize_conversation as serialize_conversation,
    )

    # Events handlers receive, and the results they return
    from omp.agent.events import (
        Event as Event,
        AgentStartEvent as AgentStartEvent,
        AgentEndEvent as AgentEndEvent,
        TurnStartEvent as TurnStartEvent,
        TurnEndEvent as TurnEndEvent,
        MessageStartEvent as MessageStartEvent,
        MessageUpdateEvent as MessageUpdateEvent,
        MessageEndEvent as MessageEndEvent,
        ToolExecutionStartEvent as ToolExecutionStartEvent,
        ToolExecutionUpdateEvent as ToolExecutionUpdateEvent,
        ToolExecutionEndEvent as ToolExecutionEndEvent,
        ToolApprovalRequestedEvent as ToolApprovalRequestedEvent,
        ToolApprovalResolvedEvent as ToolApprovalResolvedEvent,
        ToolCallEvent as ToolCallEvent,
        ToolResultEvent as ToolResultEvent,
        ContextEvent as ContextEvent,
        InputEvent as InputEvent,
        BeforeAgentStartEvent as BeforeAgentStartEvent,
        ExtensionErrorEvent as ExtensionErrorEvent,
        NoticeEvent as NoticeEvent,
        QueueUpdateEvent as QueueUpdateEvent,
        ModelChangedEvent as ModelChangedEvent,
        ThinkingLevelChangedEvent as ThinkingLevelChangedEvent,
        ModelSelectEvent as ModelSelectEvent,
        ThinkingLevelSelectEvent as ThinkingLevelSelectEvent,
        BeforeProviderRequestEvent as BeforeProviderRequestEvent,
        AfterProviderResponseEvent as AfterProviderResponseEvent,
        CredentialDisabledEvent as CredentialDisabledEvent,
        McpNotificationEvent as McpNotificationEvent,
        AutoRetryStartEvent as AutoRetryStartEvent,
        AutoRetryEndEvent as AutoRetryEndEvent,
        RetryFallbackAppliedEvent as RetryFallbackAppliedEvent,
        RetryFallbackSucceededEvent as RetryFallbackSucceededEvent,
        AutoCompactionStartEvent as AutoCompactionStartEvent,
        AutoCompactionEndEvent as AutoCompactionEndEvent,
        SessionStartEvent as SessionStartEvent,
        SessionBeforeSwitchEvent as SessionBeforeSwitchEvent,
        SessionSwitchEvent as SessionSwitchEvent,
        SessionBeforeBranchEvent as SessionBeforeBranchEvent,
        SessionBranchEvent as SessionBranchEvent,
        SessionBeforeForkEvent as SessionBeforeForkEvent,
        SessionForkEvent as SessionForkEvent,
        SessionBeforeCompactEvent as SessionBeforeCompactEvent,
        SessionCompactingEvent as SessionCompactingEvent,
        SessionCompactEvent as SessionCompactEvent,
        TreePreparation as TreePreparation,
        SessionBeforeTreeEvent as SessionBeforeTreeEvent,
        SessionTreeEvent as SessionTreeEvent,
        SessionStopEvent as SessionStopEvent,
        SessionShutdownEvent as SessionShutdownEvent,
        SessionInitEvent as SessionInitEvent,
        SubagentSpawnEvent as SubagentSpawnEvent,
        SubagentSpawnDecision as SubagentSpawnDecision,
        SubagentProgressEvent as SubagentProgressEvent,
        SubagentLifecycleEvent as SubagentLifecycleEvent,
        UserBashEvent as UserBashEvent,
        UserPythonEvent as UserPythonEvent,
        SearchEvent as SearchEvent,
        ResourcesDiscoverEvent as ResourcesDiscoverEvent,
        ToolCallDecision as ToolCallDecision,
        ToolResultPatch as ToolResultPatch,
        ContextPatch as ContextPatch,
        InputPatch as InputPatch,
        BeforeAgentStartPatch as BeforeAgentStartPatch,
        CompactingPatch as CompactingPatch,
        SessionBeforeDecision as SessionBeforeDecision,
        SessionStopDecision as SessionStopDecision,
        ResourcesPatch as ResourcesPatch,
        ExecutionOverride as ExecutionOverride,
        UserShellRun as UserShellRun,
    )

    # Errors
    from omp.base.errors import (
        OmpError as OmpError,
        UsageError as UsageError,
        RuntimeNotReadyError as RuntimeNotReadyError,
    )
    from omp.agent.events import (
        BeforeRequestEvent as BeforeRequestEvent,
        CompactionServiceEvent as CompactionServiceEvent,
        CompactionServiceResult as CompactionServiceResult,
        ContextOverflowEvent as ContextOverflowEvent,
        OverflowDecision as OverflowDecision,
        RequestDecision as RequestDecision,
    )
    from omp.agent.host import CompactionOutcome as CompactionOutcome
    from omp.session.file import context_message as context_message
    from omp.runtime.compaction import (
        CompactionService as CompactionService,
        CompactionSession as CompactionSession,
        CompactionError as CompactionError,
        CompactionCancelled as CompactionCancelled,
    )
    from omp.runtime.signals import Stopped as RunStopped, HANDLED as STOP_SIGNALS
    from omp.plugin.dispatch import UnknownHookError as UnknownHookError
    from omp.plugin.rules import UnknownResultKeys as UnknownResultKeys

    # What a handler is given
    from omp.runtime.context import (
        HandlerContext as HandlerContext,
        CommandContext as CommandContext,
    )
    from omp.runtime.api import OmpAPI as OmpAPI, ExecResult as ExecResult, EventBus as EventBus
    from omp.runtime.ui import UI as UI, NullUI as NullUI, StderrUI as StderrUI, EventUI as EventUI
    from omp.base.abort import AbortSignal as AbortSignal, run_abortable as run_abortable
    from omp.base.files import FileAccess as FileAccess
    from omp.session.artifacts import (
        ArtifactStore as ArtifactStore,
        FileLedger as FileLedger,
        SCHEME as ARTIFACT_SCHEME,
    )
    from omp.session.file import SessionView as SessionView, SessionFile as SessionFile
    from omp.base.thinking import (
        ThinkingLevel as ThinkingLevel,
        THINKING_LEVELS as THINKING_LEVELS,
        thinking_levels as thinking_levels,
        next_thinking_level as next_thinking_level,
    )
    from omp.runtime.compaction import describe as describe_compaction
    from omp.runtime.actions import set_session_name as set_session_name

    # Files, processes and secrets
    from omp.base.frontmatter import (
        split_front_matter as split_front_matter,
        front_matter_list as front_matter_list,
        front_matter_flag as front_matter_flag,
    )
    from omp.config.atomic_write import (
        write_file as write_file,
        replacing as replacing,
        NotRestored as NotRestored,
    )
    from omp.base.processes import (
        track_group as track_process_group,
        untrack_group as untrack_process_group,
        running_groups as running_process_groups,
    )
    from omp.base.python_child import python_module_command as python_module_command
    from omp.config.secrets import (
        Secrets as Secrets,
        known_secrets as known_secrets,
        CREDENTIAL_NAME as CREDENTIAL_NAME,
        ENV_SECRET_NAME as ENV_SECRET_NAME,
    )
    from omp.runtime.compaction import estimate_tokens as count_tokens
    from omp.base.copying import CopyOnRead as CopyOnRead

    # Settings and project trust
    from omp.runtime.system_prompt import (
        project_dirs as project_dirs,
        with_prompt_sections as with_prompt_sections,
    )
    from omp.config.settings import (
        Settings as Settings,
        agent_dir as agent_dir,
        user_settings_path as user_settings_path,
        project_settings_path as project_settings_path,
        load_settings as load_settings,
        read_settings_file as read_settings_file,
        save_setting as save_setting,
        unset_setting as unset_setting,
        environment_layers as environment_layers,
        deep_merge as deep_merge,
        json_type_name as json_type_name,
    )
    from omp.config.schema import (
        SettingSpec as SettingSpec,
        Schema as Schema,
        SettingType as SettingType,
        KERNEL as KERNEL_SETTINGS,
        SCHEMA as SETTINGS_SCHEMA,
        find as find_setting,
        resolve as resolve_setting,
        parse_value as parse_setting_value,
        group_members as setting_group_members,
    )
    from omp.config.check import (
        checked_layer as check_settings_layer,
        shown_path as shown_settings_path,
        shown_value as shown_setting_value,
    )
    from omp.config.trust import (
        TRUSTED_DIRECTORIES as TRUSTED_DIRECTORIES_KEY,
        SAFE_PROJECT_KEYS as SAFE_PROJECT_KEYS,
    )

    # Sessions on disk
    from omp.session.store import (
        sessions_dir as sessions_dir,
        find_session as find_session,
        most_recent as most_recent_session,
    )
    from omp.session.listing import (
        SessionInfo as SessionInfo,
        list_sessions as list_sessions,
        list_all_sessions as list_all_sessions,
    )

    # Plugins and their distributions
    from omp.plugin.manager import (
        ENTRY_POINT_GROUP as ENTRY_POINT_GROUP,
        PluginRecord as PluginRecord,
    )
    from omp.plugin.specs import combine as combine
    from omp.plugin.rules import HookRule as HookRule, ChainOutcome as ChainOutcome
    from omp.plugin.tool_overrides import (
        ToolChoice as ToolChoice,
        Refusal as Refusal,
        choose_tools as choose_tools,
    )


_DEPRECATED: dict[str, tuple[str, str]] = {}
"""A public name on its way out -> (the name that replaces it, the version that removes it).
For one minor version the old name still works and warns where it is used."""


def __getattr__(name: str) -> Any:
    if name in _DEPRECATED:
        replacement, removal = _DEPRECATED[name]
        import warnings

        warnings.warn(
            f"omp.{name} is deprecated and goes in {removal}: use omp.{replacement}",
            DeprecationWarning,
            stacklevel=2,
        )
        return __getattr__(replacement)
    if name == "hookimpl":
        import pluggy

        value: Any = pluggy.HookimplMarker("omp")
    else:
        target = _EXPORTS.get(name)
        if target is None:
            raise AttributeError(f"module 'omp' has no attribute {name!r}")
        from importlib import import_module

        module, _, attribute = target.partition(":")
        value = getattr(import_module(module), attribute or name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "ARTIFACT_SCHEME",
    "CREDENTIAL_NAME",
    "ENTRY_POINT_GROUP",
    "ENV_SECRET_NAME",
    "KERNEL_SETTINGS",
    "SAFE_PROJECT_KEYS",
    "SETTINGS_SCHEMA",
    "STOP_SIGNALS",
    "SUBAGENT_USAGE_KEY",
    "THINKING_LEVELS",
    "TRUSTED_DIRECTORIES_KEY",
    "UI",
    "AbortSignal",
    "AfterProviderResponseEvent",
    "AgentEndEvent",
    "AgentMessage",
    "AgentSession",
    "AgentStartEvent",
    "ApprovalGate",
    "ApprovalMode",
    "ArtifactStore",
    "AssistantMessage",
    "AssistantStream",
    "AutoCompactionEndEvent",
    "AutoCompactionStartEvent",
    "AutoRetryEndEvent",
    "AutoRetryStartEvent",
    "BashExecutionMessage",
    "BeforeAgentStartEvent",
    "BeforeAgentStartPatch",
    "BeforeProviderRequestEvent",
    "BeforeRequestEvent",
    "BranchSummaryMessage",
    "CallRenderer",
    "ChainOutcome",
    "Citation",
    "Command",
    "CommandContext",
    "CommandSource",
    "CompactingPatch",
    "CompactionCancelled",
    "CompactionError",
    "CompactionOutcome",
    "CompactionService",
    "CompactionServiceEvent",
    "CompactionServiceResult",
    "CompactionSession",
    "CompactionSummaryMessage",
    "ContextEvent",
    "ContextOverflowEvent",
    "ContextPatch",
    "CopyOnRead",
    "Cost",
    "CredentialDisabledEvent",
    "CustomMessage",
    "DeveloperMessage",
    "Event",
    "EventBus",
    "EventUI",
    "ExecResult",
    "ExecutionOverride",
    "ExtensionErrorEvent",
    "FileAccess",
    "FileLedger",
    "Flag",
    "HandlerContext",
    "HookRule",
    "ImageContent",
    "InputEvent",
    "InputPatch",
    "InterruptMode",
    "Listener",
    "LlmContext",
    "LlmMessage",
    "McpNotificationEvent",
    "MessageEndEvent",
    "MessageStartEvent",
    "MessageUpdateEvent",
    "Model",
    "ModelChangedEvent",
    "ModelRegistry",
    "ModelSelectEvent",
    "NotRestored",
    "NoticeEvent",
    "NullUI",
    "OmpAPI",
    "OmpError",
    "OverflowDecision",
    "ParsedArgs",
    "PluginRecord",
    "Provider",
    "ProviderConfigSource",
    "PythonExecutionMessage",
    "QueueMode",
    "QueueUpdateEvent",
    "RedactedThinkingContent",
    "Refusal",
    "Registrations",
    "Rendered",
    "Renderer",
    "RequestDecision",
    "ResourcesDiscoverEvent",
    "ResourcesPatch",
    "ResultRenderer",
    "RetryFallbackAppliedEvent",
    "RetryFallbackSucceededEvent",
    "RunMode",
    "RunStopped",
    "RuntimeNotReadyError",
    "Schema",
    "Scope",
    "SearchEvent",
    "Secrets",
    "ServerToolContent",
    "SessionBeforeBranchEvent",
    "SessionBeforeCompactEvent",
    "SessionBeforeDecision",
    "SessionBeforeForkEvent",
    "SessionBeforeSwitchEvent",
    "SessionBeforeTreeEvent",
    "SessionBranchEvent",
    "SessionChange",
    "SessionChoice",
    "SessionCompactEvent",
    "SessionCompactingEvent",
    "SessionFile",
    "SessionForkEvent",
    "SessionInfo",
    "SessionInitEvent",
    "SessionOpener",
    "SessionShutdownEvent",
    "SessionStartEvent",
    "SessionStopDecision",
    "SessionStopEvent",
    "SessionSwitchEvent",
    "SessionTreeEvent",
    "SessionView",
    "SettingSpec",
    "SettingType",
    "Settings",
    "Shortcut",
    "StderrUI",
    "StreamOptions",
    "SubagentLifecycleEvent",
    "SubagentProgressEvent",
    "SubagentSpawnDecision",
    "SubagentSpawnEvent",
    "Subcommand",
    "SubcommandContext",
    "TextContent",
    "ThinkingContent",
    "ThinkingLevel",
    "ThinkingLevelChangedEvent",
    "ThinkingLevelSelectEvent",
    "Tool",
    "ToolApprovalRequestedEvent",
    "ToolApprovalResolvedEvent",
    "ToolCall",
    "ToolCallDecision",
    "ToolCallEvent",
    "ToolCheck",
    "ToolChoice",
    "ToolExecutionEndEvent",
    "ToolExecutionStartEvent",
    "ToolExecutionUpdateEvent",
    "ToolRegistry",
    "ToolRenderOptions",
    "ToolRendering",
    "ToolResult",
    "ToolResultEvent",
    "ToolResultMessage",
    "ToolResultPatch",
    "TreePreparation",
    "TurnEndEvent",
    "TurnStartEvent",
    "UnknownHookError",
    "UnknownResultKeys",
    "Usage",
    "UsageError",
    "UsageTotals",
    "UserBashEvent",
    "UserMessage",
    "UserPythonEvent",
    "UserShellRun",
    "WireModel",
    "__version__",
    "agent_dir",
    "apply_cost",
    "check_settings_layer",
    "choose_tools",
    "combine",
    "complete",
    "content_text",
    "context_message",
    "convert_to_llm",
    "count_tokens",
    "create_session",
    "deep_merge",
    "describe_compaction",
    "environment_layers",
    "find_session",
    "find_setting",
    "front_matter_flag",
    "front_matter_list",
    "hookimpl",
    "is_context_overflow",
    "json_type_name",
    "known_secrets",
    "list_all_sessions",
    "list_sessions",
    "load_settings",
    "most_recent_session",
    "next_thinking_level",
    "parse_message",
    "parse_setting_value",
    "project_dirs",
    "project_settings_path",
    "python_module_command",
    "read_settings_file",
    "redact_keys",
    "rendered_text",
    "replacing",
    "resolve_path",
    "resolve_setting",
    "run_abortable",
    "running_process_groups",
    "save_setting",
    "serialize_conversation",
    "sessions_dir",
    "set_session_name",
    "setting_group_members",
    "shown_setting_value",
    "shown_settings_path",
    "split_front_matter",
    "stream_completion",
    "thinking_levels",
    "to_wire",
    "tool_cwd",
    "track_process_group",
    "unset_setting",
    "untrack_process_group",
    "user_settings_path",
    "with_prompt_sections",
    "write_file",
]
