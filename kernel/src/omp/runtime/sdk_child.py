"""Child sessions (subagents): a session a tool or hook of a running session makes in
the same process, with the same plugins (``ctx.create_child_session``).

A child reuses its parent's runtime - no plugin loading, so spawning one costs a few
milliseconds - and has no UI. Its file lies beside its parent's, in the folder named
after it (``<parent stem>/<name>.jsonl``, where the parent's artifacts go too); its
header links the parent, and its first entry, ``session_init``, records what it was
given.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omp.base.errors import OmpError
from omp.base.thinking import THINKING_LEVELS

if TYPE_CHECKING:
    from omp.agent.providers import Model
    from omp.agent.tools import Tool
    from omp.runtime.session import AgentSession

_ENTRY_KEYS = ("type", "id", "parentId", "timestamp")


async def create_child_session(
    parent: AgentSession,
    *,
    name: str,
    system_prompt: str | None = None,
    append_system_prompt: str | None = None,
    tools: Sequence[str] | None = None,
    extra_tools: Sequence[Tool] = (),
    model: str | None = None,
    thinking_level: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
    session_init: Mapping[str, Any] | None = None,
) -> AgentSession:
    """A started child of ``parent`` (see ``HandlerContext.create_child_session``)."""
    from omp.agent.events import SessionInitEvent

    runtime = parent.runtime
    if runtime is None:
        raise OmpError("this session cannot make child sessions: it was not opened by omp")
    wanted = _wanted_tools(parent, tools, extra_tools)
    chosen, suffix_level = _child_model(parent, model)
    level = thinking_level or suffix_level or parent.agent.thinking_level
    if level not in THINKING_LEVELS:
        raise OmpError(f"unknown thinking level {level!r}; use one of {', '.join(THINKING_LEVELS)}")
    folder = Path(os.path.abspath(cwd)) if cwd is not None else Path(parent.cwd)
    if not folder.is_dir():
        raise OmpError(f"a child session's cwd must be a directory: {folder}")
    if folder != runtime.cwd:
        runtime = dataclasses.replace(runtime, cwd=folder)
    registry = _tool_registry(runtime, wanted, extra_tools)
    sections = _system_prompt(runtime, parent, registry, system_prompt, append_system_prompt)
    child = type(parent)(  # the runtime's AgentSession, without importing it (a circle)
        pm=runtime.host.pm,
        settings=parent.settings,
        session_file=_child_file(parent, name, str(folder)),
        models=parent.models,
        tools=registry,
        model=chosen,
        commands={c.name: c for c in runtime.contributions.of("commands")},
        flags=parent.flags,
        cwd=str(folder),
        system_prompt_sections=sections,
        api=runtime.api,
        mode_name=parent.mode_name,
        thinking_level=level,
        renderers=parent.renderers,
        shortcuts=parent.shortcuts,
        child=True,
    )
    child.runtime = runtime
    # No UI of its own: a call that needs approval is asked where the user is, by the
    # parent's approval (its UI, or its client's, under its gates).
    child.approval = parent.approval
    for tool in extra_tools:
        child.session_scoped.track("tools", tool.name, "session")
    fields = _init_fields(session_init, sections, [*wanted, *(t.name for t in extra_tools)])
    fields.update(resolvedModel=chosen.key if chosen is not None else None, thinkingLevel=level)
    child.session_file.append_session_init(fields)
    if level != "off":  # a reopened child file keeps its level, as open_session does
        child.session_file.append_thinking_level_change(level)
    try:
        await child.hooks.session_init(
            SessionInitEvent(
                session_id=child.session_id,
                parent_session_id=parent.session_id,
                depth=child.session_depth,
                entry=dict(fields),
            )
        )
        await child.start()
        _restrict(child, parent, wanted, extra_tools)
    except BaseException:
        await child.shutdown()
        raise
    return child


def _init_fields(
    given: Mapping[str, Any] | None, sections: list[str], tools: list[str]
) -> dict[str, Any]:
    """The ``session_init`` entry's fields: the caller's, then the kernel's."""
    from omp.agent.tools import json_safe
    from omp.runtime.system_prompt import join_system_prompt

    fields = {key: value for key, value in (given or {}).items() if key not in _ENTRY_KEYS}
    fields.update(systemPrompt=join_system_prompt(sections), tools=tools)
    return dict(json_safe(fields))


def _wanted_tools(
    parent: AgentSession, tools: Sequence[str] | None, extra_tools: Sequence[Tool]
) -> list[str]:
    """The parent's active tools the child gets: those named (each must be active in the
    parent), else all of them."""
    active = parent.tools.active_names()
    if tools is None:
        wanted = active
    else:
        if isinstance(tools, str):
            raise OmpError("tools must be a list of tool names, not a string")
        missing = [name for name in tools if name not in active]
        if missing:
            raise OmpError(
                f"a child session can only get tools its parent has: {', '.join(missing)} "
                f"{'is' if len(missing) == 1 else 'are'} not active here"
            )
        wanted = list(dict.fromkeys(tools))
    extra = {tool.name for tool in extra_tools}
    return [name for name in wanted if name not in extra]


def _child_model(parent: AgentSession, pattern: str | None) -> tuple[Model | None, str | None]:
    """The model ``pattern`` names (with a thinking level from a ``:level`` suffix), else
    the parent's current one."""
    if not pattern:
        return parent.agent.model, None
    from omp.runtime.scoped_models import split_thinking

    pattern, level = split_thinking(pattern)
    model = parent.models.resolve(pattern)
    reason = parent.models.provider_of(model).unavailable_reason(parent.settings.data)
    if reason:
        raise OmpError(f"model {model.key} cannot be used: {reason}")
    return model, level


def _tool_registry(runtime: Any, wanted: list[str], extra_tools: Sequence[Tool]) -> Any:
    """The runtime's tools (as a new session gets them) and the extra ones; those of
    them the child gets are active. The parent's session tools come after the child's
    session_start (``_restrict``): the child's plugins register their own first."""
    registry = runtime.contributions.tool_registry()
    for tool in extra_tools:
        registry.register(tool)
    names = [*wanted, *(t.name for t in extra_tools)]
    registry.set_active([name for name in names if name in registry])
    return registry


def _restrict(
    child: AgentSession, parent: AgentSession, wanted: list[str], extra_tools: Sequence[Tool]
) -> None:
    """After the child's session_start: a wanted tool that no plugin registered for the
    child comes from the parent, and only the wanted and extra tools (hidden ones too:
    they were asked for) are active."""
    for name in wanted:
        if name not in child.tools:
            tool = parent.tools.get(name)
            if tool is not None:
                child.tools.register(tool)
    names = [*wanted, *(t.name for t in extra_tools)]
    child.tools.set_active([name for name in names if name in child.tools])


def _system_prompt(
    runtime: Any,
    parent: AgentSession,
    registry: Any,
    replace: str | None,
    append: str | None,
) -> list[str]:
    from omp.runtime.system_prompt import build_system_prompt

    return build_system_prompt(
        cwd=runtime.cwd,
        agent_dir=runtime.agent_dir,
        tools=[(t.name, t.description) for t in registry.active()],
        replace=replace,
        append=append,
        context_files=not parent.flags.get("no-context-files")
        and parent.settings.get("contextFiles.enabled", True) is not False,
    )


def _child_file(parent: AgentSession, name: str, cwd: str) -> Any:
    """``<parent stem>/<name>.jsonl`` when the parent has a file, else in memory."""
    from omp.session.file import SessionFile

    if not name or "/" in name or os.sep in name or name.startswith(".") or "\0" in name:
        raise OmpError(f"a child session's name must be a plain file name, not {name!r}")
    path = None
    if parent.session_file.path is not None:
        path = parent.session_file.path.with_suffix("") / f"{name}.jsonl"
        if path.exists():
            raise OmpError(f"a child session named {name!r} exists already: {path}")
    return SessionFile.create(
        cwd,
        path,
        str(parent.session_file.path) if parent.session_file.path else None,
        parent_session_id=parent.session_id,
        task_depth=parent.session_depth + 1,
    )
