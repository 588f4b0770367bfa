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
    "Tool": "omp.tools",
    "ToolResult": "omp.tools",
    "tool_cwd": "omp.tools",
    "resolve_path": "omp.tools",
    "ToolRendering": "omp.tool_render",
    "ToolRenderOptions": "omp.tool_render",
    "CallRenderer": "omp.tool_render",
    "ResultRenderer": "omp.tool_render",
    "Rendered": "omp.tool_render",
    "rendered_text": "omp.tool_render:plain_text",
    "Scope": "omp.session_scope",
    "Command": "omp.contrib",
    "Subcommand": "omp.contrib",
    "Flag": "omp.contrib",
    "RunMode": "omp.contrib",
    "Shortcut": "omp.contrib",
    "Renderer": "omp.contrib",
    "Provider": "omp.providers",
    "Model": "omp.providers",
    "ModelRegistry": "omp.providers",
    "AssistantStream": "omp.providers",
    "LlmContext": "omp.providers",
    "StreamOptions": "omp.providers",
    "ProviderConfigSource": "omp.contrib",
    "apply_cost": "omp.cost",
    "is_context_overflow": "omp.provider_errors",
    "redact_keys": "omp.provider_errors:redact",
    # Messages
    "WireModel": "omp.messages",
    "TextContent": "omp.messages",
    "ImageContent": "omp.messages",
    "ThinkingContent": "omp.messages",
    "RedactedThinkingContent": "omp.messages",
    "ToolCall": "omp.messages",
    "Cost": "omp.messages",
    "Usage": "omp.messages",
    "UserMessage": "omp.messages",
    "DeveloperMessage": "omp.messages",
    "AssistantMessage": "omp.messages",
    "ToolResultMessage": "omp.messages",
    "CustomMessage": "omp.messages",
    "BashExecutionMessage": "omp.messages",
    "PythonExecutionMessage": "omp.messages",
    "BranchSummaryMessage": "omp.messages",
    "CompactionSummaryMessage": "omp.messages",
    "AgentMessage": "omp.messages",
    "LlmMessage": "omp.messages",
    "parse_message": "omp.messages",
    "content_text": "omp.messages",
    "convert_to_llm": "omp.messages",
    "to_wire": "omp.messages",
    # Embedding: sessions and one-shot completions
    "create_session": "omp.sdk",
    "SessionOpener": "omp.sdk",
    "SessionChoice": "omp.sdk",
    "AgentSession": "omp.sdk_session",
    "SessionChange": "omp.sdk_session",
    "UsageTotals": "omp.sdk_session",
    "Listener": "omp.sdk_session",
    "complete": "omp.completion",
    "stream_completion": "omp.completion",
    "serialize_conversation": "omp.completion",
    # Events handlers receive, and the results they return
    "Event": "omp.events",
    "AgentStartEvent": "omp.events",
    "AgentEndEvent": "omp.events",
    "TurnStartEvent": "omp.events",
    "TurnEndEvent": "omp.events",
    "MessageStartEvent": "omp.events",
    "MessageUpdateEvent": "omp.events",
    "MessageEndEvent": "omp.events",
    "ToolExecutionStartEvent": "omp.events",
    "ToolExecutionUpdateEvent": "omp.events",
    "ToolExecutionEndEvent": "omp.events",
    "ToolApprovalRequestedEvent": "omp.events",
    "ToolApprovalResolvedEvent": "omp.events",
    "ToolCallEvent": "omp.events",
    "ToolResultEvent": "omp.events",
    "ContextEvent": "omp.events",
    "InputEvent": "omp.events",
    "BeforeAgentStartEvent": "omp.events",
    "ExtensionErrorEvent": "omp.events",
    "NoticeEvent": "omp.events",
    "QueueUpdateEvent": "omp.events",
    "ModelChangedEvent": "omp.events",
    "ThinkingLevelChangedEvent": "omp.events",
    "ModelSelectEvent": "omp.events",
    "ThinkingLevelSelectEvent": "omp.events",
    "BeforeProviderRequestEvent": "omp.events",
    "AfterProviderResponseEvent": "omp.events",
    "CredentialDisabledEvent": "omp.events",
    "McpNotificationEvent": "omp.events",
    "AutoRetryStartEvent": "omp.events",
    "AutoRetryEndEvent": "omp.events",
    "RetryFallbackAppliedEvent": "omp.events",
    "RetryFallbackSucceededEvent": "omp.events",
    "AutoCompactionStartEvent": "omp.events",
    "AutoCompactionEndEvent": "omp.events",
    "SessionStartEvent": "omp.events",
    "SessionBeforeSwitchEvent": "omp.events",
    "SessionSwitchEvent": "omp.events",
    "SessionBeforeBranchEvent": "omp.events",
    "SessionBranchEvent": "omp.events",
    "SessionBeforeForkEvent": "omp.events",
    "SessionForkEvent": "omp.events",
    "SessionBeforeCompactEvent": "omp.events",
    "SessionCompactingEvent": "omp.events",
    "SessionCompactEvent": "omp.events",
    "TreePreparation": "omp.events",
    "SessionBeforeTreeEvent": "omp.events",
    "SessionTreeEvent": "omp.events",
    "SessionStopEvent": "omp.events",
    "SessionShutdownEvent": "omp.events",
    "UserBashEvent": "omp.events",
    "UserPythonEvent": "omp.events",
    "SearchEvent": "omp.events",
    "ResourcesDiscoverEvent": "omp.events",
    "ToolCallDecision": "omp.events",
    "ToolResultPatch": "omp.events",
    "ContextPatch": "omp.events",
    "InputPatch": "omp.events",
    "BeforeAgentStartPatch": "omp.events",
    "CompactingPatch": "omp.events",
    "SessionBeforeDecision": "omp.events",
    "SessionStopDecision": "omp.events",
    "ResourcesPatch": "omp.events",
    "ExecutionOverride": "omp.events",
    # Errors
    "OmpError": "omp.errors",
    "UsageError": "omp.errors",
    "RuntimeNotReadyError": "omp.errors",
    "CompactionError": "omp.compactor",
    "CompactionCancelled": "omp.compactor",
    "RunStopped": "omp.signals:Stopped",
    "STOP_SIGNALS": "omp.signals:HANDLED",
    "UnknownHookError": "omp.dispatch",
    "UnknownResultKeys": "omp.hookrules",
    # What a handler is given
    "HandlerContext": "omp.context",
    "CommandContext": "omp.context",
    "OmpAPI": "omp.api",
    "ExecResult": "omp.api",
    "EventBus": "omp.api",
    "UI": "omp.ui",
    "NullUI": "omp.ui",
    "StderrUI": "omp.ui",
    "EventUI": "omp.ui",
    "AbortSignal": "omp.abort",
    "FileAccess": "omp.files",
    "ArtifactStore": "omp.artifacts",
    "FileLedger": "omp.artifacts",
    "ARTIFACT_SCHEME": "omp.artifacts:SCHEME",
    "SessionView": "omp.session",
    "SessionFile": "omp.session",
    "ThinkingLevel": "omp.thinking",
    "THINKING_LEVELS": "omp.thinking",
    "thinking_levels": "omp.thinking",
    "next_thinking_level": "omp.thinking",
    "describe_compaction": "omp.compactor:describe",
    "run_user_shell": "omp.user_shell:execute",
    "set_session_name": "omp.session_actions",
    # Files, processes and secrets
    "write_file": "omp.atomic_write",
    "replacing": "omp.atomic_write",
    "NotRestored": "omp.atomic_write",
    "track_process_group": "omp.processes:track_group",
    "untrack_process_group": "omp.processes:untrack_group",
    "python_module_command": "omp.python_child",
    "Secrets": "omp.secrets",
    "known_secrets": "omp.secrets",
    "CREDENTIAL_NAME": "omp.secrets",
    "ENV_SECRET_NAME": "omp.secrets",
    "count_tokens": "omp.tokens:count",
    "CopyOnRead": "omp.copying",
    # Settings and project trust
    "Settings": "omp.settings",
    "agent_dir": "omp.settings",
    "user_settings_path": "omp.settings",
    "project_settings_path": "omp.settings",
    "load_settings": "omp.settings",
    "read_settings_file": "omp.settings",
    "save_setting": "omp.settings",
    "unset_setting": "omp.settings",
    "environment_layers": "omp.settings",
    "deep_merge": "omp.settings",
    "json_type_name": "omp.settings",
    "SettingSpec": "omp.settings_schema",
    "Schema": "omp.settings_schema",
    "SettingType": "omp.settings_schema",
    "KERNEL_SETTINGS": "omp.settings_schema:KERNEL",
    "SETTINGS_SCHEMA": "omp.settings_schema:SCHEMA",
    "find_setting": "omp.settings_schema:find",
    "resolve_setting": "omp.settings_schema:resolve",
    "parse_setting_value": "omp.settings_schema:parse_value",
    "setting_group_members": "omp.settings_schema:group_members",
    "check_settings_layer": "omp.settings_check:checked_layer",
    "shown_settings_path": "omp.settings_check:shown_path",
    "shown_setting_value": "omp.settings_check:shown_value",
    "TRUSTED_DIRECTORIES_KEY": "omp.trust:TRUSTED_DIRECTORIES",
    "SAFE_PROJECT_KEYS": "omp.trust",
    # Sessions on disk
    "sessions_dir": "omp.session_store",
    "find_session": "omp.session_store",
    "most_recent_session": "omp.session_store:most_recent",
    "SessionInfo": "omp.session_listing",
    "list_sessions": "omp.session_listing",
    "list_all_sessions": "omp.session_listing",
    # Running sessions (the runtime a run mode or embedder builds)
    "Runtime": "omp.bootstrap",
    "SessionOptions": "omp.bootstrap",
    "RUNTIME_KINDS": "omp.bootstrap",
    "load_runtime": "omp.bootstrap",
    "open_session": "omp.bootstrap",
    "is_session_path": "omp.bootstrap",
    "provider_configs": "omp.bootstrap",
    "provider_config_problems": "omp.bootstrap",
    "run_prompts": "omp.modes",
    "parse_cli_args": "omp.cli.args:parse",
    "check_extension_path": "omp.cli.paths",
    # Plugins and their distributions
    "ENTRY_POINT_GROUP": "omp.plugin_manager",
    "project_extension_files": "omp.plugin_manager",
    "collect_registrations": "omp.registry",
    "combine": "omp.hookspecs",
    "HookRule": "omp.hookrules",
    "ChainOutcome": "omp.hookrules",
    "ToolChoice": "omp.tool_overrides",
    "Refusal": "omp.tool_overrides",
    "choose_tools": "omp.tool_overrides",
    "requirement_on": "omp.versions",
    "search_backend_line": "omp.cli.plugins_cmd",
}
"""Public name -> ``module`` (same attribute name) or ``module:attribute``."""

if TYPE_CHECKING:
    import pluggy

    hookimpl: pluggy.HookimplMarker
    # Contributions a plugin registers
    from omp.tools import (
        Tool as Tool,
        ToolResult as ToolResult,
        tool_cwd as tool_cwd,
        resolve_path as resolve_path,
    )
    from omp.tool_render import (
        ToolRendering as ToolRendering,
        ToolRenderOptions as ToolRenderOptions,
        CallRenderer as CallRenderer,
        ResultRenderer as ResultRenderer,
        Rendered as Rendered,
        plain_text as rendered_text,
    )
    from omp.session_scope import Scope as Scope
    from omp.contrib import (
        Command as Command,
        Subcommand as Subcommand,
        Flag as Flag,
        RunMode as RunMode,
        Shortcut as Shortcut,
        Renderer as Renderer,
    )
    from omp.providers import (
        Provider as Provider,
        Model as Model,
        ModelRegistry as ModelRegistry,
        AssistantStream as AssistantStream,
        LlmContext as LlmContext,
        StreamOptions as StreamOptions,
    )
    from omp.contrib import ProviderConfigSource as ProviderConfigSource
    from omp.cost import apply_cost as apply_cost
    from omp.provider_errors import (
        is_context_overflow as is_context_overflow,
        redact as redact_keys,
    )

    # Messages
    from omp.messages import (
        WireModel as WireModel,
        TextContent as TextContent,
        ImageContent as ImageContent,
        ThinkingContent as ThinkingContent,
        RedactedThinkingContent as RedactedThinkingContent,
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
    from omp.sdk import (
        create_session as create_session,
        SessionOpener as SessionOpener,
        SessionChoice as SessionChoice,
    )
    from omp.sdk_session import (
        AgentSession as AgentSession,
        SessionChange as SessionChange,
        UsageTotals as UsageTotals,
        Listener as Listener,
    )
    from omp.completion import (
        complete as complete,
        stream_completion as stream_completion,
        serialize_conversation as serialize_conversation,
    )

    # Events handlers receive, and the results they return
    from omp.events import (
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
    )

    # Errors
    from omp.errors import (
        OmpError as OmpError,
        UsageError as UsageError,
        RuntimeNotReadyError as RuntimeNotReadyError,
    )
    from omp.compactor import (
        CompactionError as CompactionError,
        CompactionCancelled as CompactionCancelled,
    )
    from omp.signals import Stopped as RunStopped, HANDLED as STOP_SIGNALS
    from omp.dispatch import UnknownHookError as UnknownHookError
    from omp.hookrules import UnknownResultKeys as UnknownResultKeys

    # What a handler is given
    from omp.context import HandlerContext as HandlerContext, CommandContext as CommandContext
    from omp.api import OmpAPI as OmpAPI, ExecResult as ExecResult, EventBus as EventBus
    from omp.ui import UI as UI, NullUI as NullUI, StderrUI as StderrUI, EventUI as EventUI
    from omp.abort import AbortSignal as AbortSignal
    from omp.files import FileAccess as FileAccess
    from omp.artifacts import (
        ArtifactStore as ArtifactStore,
        FileLedger as FileLedger,
        SCHEME as ARTIFACT_SCHEME,
    )
    from omp.session import SessionView as SessionView, SessionFile as SessionFile
    from omp.thinking import (
        ThinkingLevel as ThinkingLevel,
        THINKING_LEVELS as THINKING_LEVELS,
        thinking_levels as thinking_levels,
        next_thinking_level as next_thinking_level,
    )
    from omp.compactor import describe as describe_compaction
    from omp.user_shell import execute as run_user_shell
    from omp.session_actions import set_session_name as set_session_name

    # Files, processes and secrets
    from omp.atomic_write import (
        write_file as write_file,
        replacing as replacing,
        NotRestored as NotRestored,
    )
    from omp.processes import (
        track_group as track_process_group,
        untrack_group as untrack_process_group,
    )
    from omp.python_child import python_module_command as python_module_command
    from omp.secrets import (
        Secrets as Secrets,
        known_secrets as known_secrets,
        CREDENTIAL_NAME as CREDENTIAL_NAME,
        ENV_SECRET_NAME as ENV_SECRET_NAME,
    )
    from omp.tokens import count as count_tokens
    from omp.copying import CopyOnRead as CopyOnRead

    # Settings and project trust
    from omp.settings import (
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
    from omp.settings_schema import (
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
    from omp.settings_check import (
        checked_layer as check_settings_layer,
        shown_path as shown_settings_path,
        shown_value as shown_setting_value,
    )
    from omp.trust import (
        TRUSTED_DIRECTORIES as TRUSTED_DIRECTORIES_KEY,
        SAFE_PROJECT_KEYS as SAFE_PROJECT_KEYS,
    )

    # Sessions on disk
    from omp.session_store import (
        sessions_dir as sessions_dir,
        find_session as find_session,
        most_recent as most_recent_session,
    )
    from omp.session_listing import (
        SessionInfo as SessionInfo,
        list_sessions as list_sessions,
        list_all_sessions as list_all_sessions,
    )

    # Running sessions (the runtime a run mode or embedder builds)
    from omp.bootstrap import (
        Runtime as Runtime,
        SessionOptions as SessionOptions,
        RUNTIME_KINDS as RUNTIME_KINDS,
        load_runtime as load_runtime,
        open_session as open_session,
        is_session_path as is_session_path,
        provider_configs as provider_configs,
        provider_config_problems as provider_config_problems,
    )
    from omp.modes import run_prompts as run_prompts
    from omp.cli.args import parse as parse_cli_args
    from omp.cli.paths import check_extension_path as check_extension_path

    # Plugins and their distributions
    from omp.plugin_manager import (
        ENTRY_POINT_GROUP as ENTRY_POINT_GROUP,
        project_extension_files as project_extension_files,
    )
    from omp.registry import collect_registrations as collect_registrations
    from omp.hookspecs import combine as combine
    from omp.hookrules import HookRule as HookRule, ChainOutcome as ChainOutcome
    from omp.tool_overrides import (
        ToolChoice as ToolChoice,
        Refusal as Refusal,
        choose_tools as choose_tools,
    )
    from omp.versions import requirement_on as requirement_on
    from omp.cli.plugins_cmd import search_backend_line as search_backend_line


def __getattr__(name: str) -> Any:
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
    "RUNTIME_KINDS",
    "SAFE_PROJECT_KEYS",
    "SETTINGS_SCHEMA",
    "STOP_SIGNALS",
    "THINKING_LEVELS",
    "TRUSTED_DIRECTORIES_KEY",
    "UI",
    "AbortSignal",
    "AfterProviderResponseEvent",
    "AgentEndEvent",
    "AgentMessage",
    "AgentSession",
    "AgentStartEvent",
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
    "BranchSummaryMessage",
    "CallRenderer",
    "ChainOutcome",
    "Command",
    "CommandContext",
    "CompactingPatch",
    "CompactionCancelled",
    "CompactionError",
    "CompactionSummaryMessage",
    "ContextEvent",
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
    "Provider",
    "ProviderConfigSource",
    "PythonExecutionMessage",
    "QueueUpdateEvent",
    "RedactedThinkingContent",
    "Refusal",
    "Rendered",
    "Renderer",
    "ResourcesDiscoverEvent",
    "ResourcesPatch",
    "ResultRenderer",
    "RetryFallbackAppliedEvent",
    "RetryFallbackSucceededEvent",
    "RunMode",
    "RunStopped",
    "Runtime",
    "RuntimeNotReadyError",
    "Schema",
    "Scope",
    "SearchEvent",
    "Secrets",
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
    "SessionOpener",
    "SessionOptions",
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
    "Subcommand",
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
    "ToolChoice",
    "ToolExecutionEndEvent",
    "ToolExecutionStartEvent",
    "ToolExecutionUpdateEvent",
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
    "WireModel",
    "__version__",
    "agent_dir",
    "apply_cost",
    "check_extension_path",
    "check_settings_layer",
    "choose_tools",
    "collect_registrations",
    "combine",
    "complete",
    "content_text",
    "convert_to_llm",
    "count_tokens",
    "create_session",
    "deep_merge",
    "describe_compaction",
    "environment_layers",
    "find_session",
    "find_setting",
    "hookimpl",
    "is_context_overflow",
    "is_session_path",
    "json_type_name",
    "known_secrets",
    "list_all_sessions",
    "list_sessions",
    "load_runtime",
    "load_settings",
    "most_recent_session",
    "next_thinking_level",
    "open_session",
    "parse_cli_args",
    "parse_message",
    "parse_setting_value",
    "project_extension_files",
    "project_settings_path",
    "provider_config_problems",
    "provider_configs",
    "python_module_command",
    "read_settings_file",
    "redact_keys",
    "rendered_text",
    "replacing",
    "requirement_on",
    "resolve_path",
    "resolve_setting",
    "run_prompts",
    "run_user_shell",
    "save_setting",
    "search_backend_line",
    "serialize_conversation",
    "sessions_dir",
    "set_session_name",
    "setting_group_members",
    "shown_setting_value",
    "shown_settings_path",
    "stream_completion",
    "thinking_levels",
    "to_wire",
    "tool_cwd",
    "track_process_group",
    "unset_setting",
    "untrack_process_group",
    "user_settings_path",
    "write_file",
]
