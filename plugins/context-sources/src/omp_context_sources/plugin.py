"""Entry module of omp-context-sources: only the hooks, cheap to import (``omp --help``
loads it). What was found lives in ``ctx.state`` (one session's), so a new, resumed or
forked session discovers again; its commands are registered for the session only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import omp
from omp import Flag, SettingSpec

STATE_KEY = "omp-context-sources"


@omp.hookimpl
def omp_register_flags(api: Any) -> list[Flag]:
    return [
        Flag("no-rules", "Load no rules (.omp/rules, .cursor/rules, .clinerules, ...)"),
        Flag("no-skills", "Load no skills (SKILL.md folders)"),
        Flag("no-prompt-templates", "Load no prompt templates (.omp/commands, .claude/commands)"),
    ]


@omp.hookimpl
def omp_register_settings(api: Any) -> list[SettingSpec]:
    return [
        SettingSpec(
            "rules.enabled", "boolean", True, "load rules (.omp/rules, .cursor/rules, ...)"
        ),
        SettingSpec("skills.enabled", "boolean", True, "load skills (SKILL.md folders)"),
        SettingSpec(
            "promptTemplates.enabled", "boolean", True, "load prompt templates as slash commands"
        ),
    ]


def _enabled(ctx: Any, api: Any) -> set[str]:
    from omp_context_sources.discovery import enabled_sources

    return enabled_sources(api.get_flag, ctx.settings)


def _agent_dir(api: Any) -> Path:
    return Path(getattr(api, "agent_dir", None) or omp.agent_dir())


@omp.hookimpl(tryfirst=True, specname="omp_resources_discover")
def add_builtin_folders(event: Any, ctx: Any, api: Any) -> dict[str, list[str]]:
    """The built-in folders, first, so that every other handler sees them."""
    from omp_context_sources.discovery import builtin_paths

    projects = omp.project_dirs(Path(event.cwd))
    return builtin_paths(projects, _agent_dir(api), _enabled(ctx, api))


@omp.hookimpl(trylast=True, specname="omp_resources_discover")
def read_what_was_found(event: Any, ctx: Any, api: Any) -> None:
    """After every other handler: read the paths found and put them to use."""
    from omp_context_sources.discovery import load
    from omp_context_sources.rules import given_rule_names

    loaded = load(event, _enabled(ctx, api), omp.project_dirs(Path(event.cwd)))
    if loaded.attacher is not None:
        loaded.attacher.given |= given_rule_names(ctx.session.build_context().messages)
    ctx.state[STATE_KEY] = loaded
    for command in loaded.commands:
        try:
            api.register_command(command)
        except omp.OmpError:
            ctx.ui.notify(
                f"{command.description} is not available as /{command.name}: a plugin "
                "command has that name",
                "warning",
            )


@omp.hookimpl(tryfirst=True)
def omp_before_agent_start(event: Any, ctx: Any) -> dict[str, Any] | None:
    """Rules and skills join the system prompt after the context files (first, so that
    later handlers see them)."""
    loaded = ctx.state.get(STATE_KEY)
    if loaded is None or not loaded.sections:
        return None
    return {"system_prompt": omp.with_prompt_sections(event.system_prompt, loaded.sections)}


@omp.hookimpl(trylast=True)
def omp_tool_result(event: Any, ctx: Any) -> dict[str, Any] | None:
    """Glob rules arrive with the result of a tool that read or wrote a matching file."""
    loaded = ctx.state.get(STATE_KEY)
    if loaded is None or loaded.attacher is None or event.is_error:
        return None
    raw = event.input.get("path") or event.input.get("file_path")
    if not isinstance(raw, str) or not raw:
        return None
    text = loaded.attacher.text_for(raw)
    if text is None:
        return None
    return {"content": [*event.content, omp.TextContent(text=text)]}


@omp.hookimpl
def omp_session_compact(ctx: Any) -> None:
    loaded = ctx.state.get(STATE_KEY)
    if loaded is not None and loaded.attacher is not None:
        loaded.attacher.given.clear()  # the summary does not carry the rules' text
