"""Session-level actions of a running AgentSession - new session, switch, fork and
tree navigation, for command handlers, the terminal UI and RPC - each with omp's
before-event (the first cancel wins) and after-events, and the model and thinking
level a session restores.

Each action asks one before-event of each plugin: new and resume
``session_before_switch``, tree navigation ``session_before_tree``, fork
``session_before_fork`` (pi's event) - or, for a plugin written for omp that implements
only ``session_before_switch``, that hook with reason ``fork``. A guard is asked once.

Replacing the session (new, switch, fork) keeps the AgentSession, its plugins and
its api: the old session gets ``session_shutdown`` (reason new/resume/fork) and its
file is released, the tools and commands plugins registered for it alone are
dropped (omp.runtime.scope), the new one becomes current with a fresh ``ctx.state``
and gets ``session_start`` (same reason, ``previous_session_file``), then
``session_switch``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omp.agent.events import (
    ModelSelectEvent,
    SessionBeforeForkEvent,
    SessionBeforeSwitchEvent,
    SessionBeforeTreeEvent,
    SessionForkEvent,
    SessionShutdownEvent,
    SessionStartEvent,
    SessionSwitchEvent,
    SessionTreeEvent,
    ThinkingLevelSelectEvent,
    TreePreparation,
)
from omp.base.errors import OmpError
from omp.runtime.resources import discover_resources

CANCELLED = {"cancelled": True}


async def announce_restored(session: Any, model_key: str | None, level: str | None) -> None:
    """model_select / thinking_level_select with source ``restore`` for what the session
    file recorded and the session now uses."""
    model = session.agent.model
    if model is not None and model_key == model.key:
        await session.hooks.model_select(ModelSelectEvent(model=model, source="restore"))
    if level is not None and level == session.agent.thinking_level:
        await session.hooks.thinking_level_select(
            ThinkingLevelSelectEvent(level=level, source="restore")
        )


def _path(session_file: Any) -> str | None:
    return str(session_file.path) if session_file.path else None


def _require_idle(session: Any, action: str) -> None:
    if session.agent.is_streaming:
        raise OmpError(
            f"cannot {action} while the agent is running; wait for it first "
            "(await ctx.wait_for_idle())"
        )


def _new_path(session: Any, session_id: str) -> Path | None:
    """Where a new session of this cwd is written; None when this one is in memory."""
    if session.session_file.path is None:
        return None
    from omp.session.store import new_session_path, sessions_dir

    agent_dir = session.api.agent_dir
    if agent_dir is None:
        directory = session.session_file.path.parent
    else:
        directory = sessions_dir(agent_dir, session.cwd, session.settings.get("sessionDir"))
    return new_session_path(directory, session_id)


def _entry(session: Any, entry_id: str) -> dict[str, Any]:
    entry = session.session_file.get_entry(entry_id)
    if entry is None:
        raise OmpError(f"no entry {entry_id} in session {session.session_file.session_id}")
    return entry


async def _before_fork(session: Any, entry_id: str, position: str) -> bool:
    """Whether a guard cancelled the fork. pi asks ``session_before_fork``, omp
    ``session_before_switch`` with reason ``fork``: the second is asked only of the plugins
    that do not implement the first, so each guard is asked once, whichever event it was
    written for."""
    decision = await session.hooks.session_before_fork(
        SessionBeforeForkEvent(entry_id=entry_id, position=position),  # type: ignore[arg-type]
    )
    if decision is not None and decision.cancel:
        return True
    decision = await session.dispatcher.call(
        "omp_session_before_switch",
        SessionBeforeSwitchEvent(reason="fork"),
        session.context,
        session.api,
        skip=session.dispatcher.implementers("omp_session_before_fork"),
    )
    return bool(decision is not None and decision.cancel)


async def _before_switch(session: Any, reason: str, target: str | None = None) -> bool:
    """Whether a session_before_switch handler cancelled."""
    decision = await session.hooks.session_before_switch(
        SessionBeforeSwitchEvent(reason=reason, target_session_file=target),  # type: ignore[arg-type]
    )
    return bool(decision is not None and decision.cancel)


async def new_session(session: Any, parent_session: str | None = None) -> dict[str, bool]:
    """Start an empty session (``/new``); ``parent_session`` goes into its header."""
    from omp.session.file import SessionFile

    _require_idle(session, "start a new session")
    if await _before_switch(session, "new"):
        return CANCELLED
    import uuid

    session_id = str(uuid.uuid4())
    created = SessionFile.create(
        session.cwd, _new_path(session, session_id), parent_session, session_id=session_id
    )
    await _replace(session, created, "new")
    return {"cancelled": False}


async def switch_session(session: Any, path: str) -> dict[str, bool]:
    """Make the session file at ``path`` current (``/resume``)."""
    from omp.session.file import SessionFile

    _require_idle(session, "switch sessions")
    target = Path(path).expanduser()
    if not target.is_absolute():
        target = Path(session.cwd) / target
    if not target.is_file():
        raise OmpError(f"cannot switch to session {target}: no such file")
    current = session.session_file.path
    if current is not None and current.exists() and target.samefile(current):
        raise OmpError(f"cannot switch to session {target}: it is the current session")
    if await _before_switch(session, "resume", str(target)):
        return CANCELLED
    await _replace(session, SessionFile.open(target), "resume")
    return {"cancelled": False}


async def fork(session: Any, entry_id: str, position: str = "before") -> dict[str, Any]:
    """A new session file holding the path to ``entry_id`` (``/fork``), its header's
    ``parentSession`` naming this one. ``position`` ``before`` ends the path before the
    entry (a user message's text is returned as ``editor_text`` and put in the
    editor), ``at`` ends it with the entry."""
    from omp.session.file import SessionFile

    if position not in ("before", "at"):
        raise OmpError(f"unknown fork position {position!r}; use before or at")
    _require_idle(session, "fork the session")
    entry = _entry(session, entry_id)
    if await _before_fork(session, entry_id, position):
        return CANCELLED
    current = session.session_file
    leaf = entry.get("parentId") if position == "before" else entry_id
    import uuid

    session_id = str(uuid.uuid4())
    forked = SessionFile.create(
        session.cwd, _new_path(session, session_id), _path(current), session_id=session_id
    )
    for copied in current.branch_entries(leaf) if leaf else []:
        forked._add(copied)
    if forked.path is not None:
        forked.ensure_on_disk()
    editor_text = _draft(entry) if position == "before" else None
    previous = await _replace(session, forked, "fork")
    await session.hooks.session_fork(
        SessionForkEvent(
            previous_session_file=previous,
            entry_id=entry_id,
            position=position,  # type: ignore[arg-type]
        ),
    )
    return _done(session, editor_text)


async def navigate_tree(
    session: Any,
    target_id: str,
    summarize: bool = False,
    label: str | None = None,
    instructions: str | None = None,
) -> dict[str, Any]:
    """Move to another point of this session's tree (``/tree``). Selecting a user (or
    custom) message moves the leaf to its parent and returns its text as
    ``editor_text``; any other entry becomes the leaf. With ``summarize`` the abandoned
    branch is summarised - by a session_before_tree handler, else by the summary model
    (``omp.runtime.branch_summary``, with the user's ``instructions``) - and written as a
    ``branch_summary`` at the new position. A failed or aborted summary moves nothing
    (OmpError). ``label`` labels the target entry."""
    from omp.base.abort import AbortSignal

    _require_idle(session, "navigate the session tree")
    session.agent.signal = AbortSignal()  # not the last run's, which may have been aborted
    file = session.session_file
    entry = _entry(session, target_id)
    old_leaf = file.leaf_id
    draft = _draft(entry)
    new_leaf = entry.get("parentId") if draft is not None else target_id
    old_path = file.branch_entries(old_leaf) if old_leaf else []
    target_ids = {e["id"] for e in file.branch_entries(new_leaf)} if new_leaf else set()
    shared = [e for e in old_path if e["id"] in target_ids]
    ancestor = shared[-1]["id"] if shared else None
    abandoned = old_path[len(shared) :]
    preparation = TreePreparation(
        target_id=target_id,
        old_leaf_id=old_leaf,
        common_ancestor_id=ancestor,
        entries_to_summarize=[dict(e) for e in abandoned],
        user_wants_summary=summarize,
    )
    decision = await session.hooks.session_before_tree(
        SessionBeforeTreeEvent(preparation=preparation, signal=session.agent.signal),
    )
    if decision is not None and decision.cancel:
        return CANCELLED
    summary = decision.summary if decision is not None else None
    from_extension = bool(summary)
    if isinstance(summary, dict):
        summary = {"summary": str(summary.get("summary") or ""), "details": summary.get("details")}
    elif summary:
        summary = {"summary": str(summary), "details": None}
    elif summarize and abandoned:
        summary = await _summarise_branch(session, abandoned, instructions)
    if new_leaf is None:
        file.reset_leaf()
    else:
        file.branch(new_leaf)
    summary_entry = None
    if summary:
        summary_entry = file.append_branch_summary(
            new_leaf or "root",
            summary["summary"],
            details=summary["details"],
            fromExtension=from_extension or None,
        )
    if label is not None:
        file.append_label(target_id, label)
    session.agent.messages = list(file.build_context().messages)
    await session.hooks.session_tree(
        SessionTreeEvent(
            new_leaf_id=file.leaf_id,
            old_leaf_id=old_leaf,
            summary_entry=dict(summary_entry) if summary_entry else None,
            from_extension=summary_entry is not None and from_extension,
        ),
    )
    return _done(session, draft)


async def _summarise_branch(
    session: Any, abandoned: list[dict[str, Any]], instructions: str | None
) -> dict[str, Any] | None:
    from omp.base.abort import AbortSignal
    from omp.runtime.compaction import require_service

    service = await require_service(session)
    signal = AbortSignal(parent=session.agent.signal)
    return await service.summarize_branch(abandoned, instructions, signal)


def set_session_name(session: Any, name: str) -> str:
    """Name the session (``/name``, ``api.set_session_name``): a ``session_info`` entry,
    what listings and ``/resume`` show. Whitespace runs become one space; the name as
    stored is returned."""
    name = " ".join(str(name).split())
    if not name:
        raise OmpError("a session name cannot be empty")
    session.session_file.append_session_info(name)
    return name


def _draft(entry: dict[str, Any]) -> str | None:
    """The text a user or ordinary custom message offers back to the editor."""
    from omp.agent.messages import content_text

    if entry.get("type") == "custom_message":
        content = entry.get("content")
    elif entry.get("type") == "message" and (entry.get("message") or {}).get("role") == "user":
        content = entry["message"].get("content")
    else:
        return None
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return content_text(content) if isinstance(content, str) else None


def _done(session: Any, editor_text: str | None) -> dict[str, Any]:
    if editor_text is None:
        return {"cancelled": False}
    if session.has_ui:
        session.ui.set_editor_text(editor_text)
    return {"cancelled": False, "editor_text": editor_text}


async def _replace(session: Any, new_file: Any, reason: str) -> str | None:
    """Make ``new_file`` the session's file; the previous file's path."""
    from omp.session.artifacts import ArtifactStore, FileLedger
    from omp.session.file import SessionView

    old_file = session.session_file
    previous = _path(old_file)
    await session.hooks.session_shutdown(
        SessionShutdownEvent(reason=reason, target_session_file=_path(new_file)),  # type: ignore[arg-type]
    )
    session.session_scoped.drop(session)
    session.artifacts.cleanup()
    old_file.close()  # other processes may write it now
    session.session_file = new_file
    session.session_view = SessionView(new_file)
    folder = new_file.path.with_suffix("") / "artifacts" if new_file.path else None
    session.artifacts = ArtifactStore(folder)
    session.file_reads = FileLedger()
    session.plugin_state = {}
    session.next_turn = []
    session.effective_system_prompt = None
    restored = new_file.build_context()
    session.agent.messages = list(restored.messages)
    for warning in new_file.load_warnings:
        await session.notice(warning, "warning")
    await session.hooks.session_start(
        SessionStartEvent(reason=reason, previous_session_file=previous),  # type: ignore[arg-type]
    )
    await _restore(session, restored)
    await discover_resources(session)
    await session.hooks.session_switch(
        SessionSwitchEvent(reason=reason, previous_session_file=previous),
    )
    return previous


async def _restore(session: Any, restored: Any) -> None:
    """Take up the model and thinking level the new session file recorded."""
    agent = session.agent
    model = session.models.find(restored.model) if restored.model else None
    usable = model is not None and not session.models.provider_of(model).unavailable_reason(
        session.settings.data
    )
    if usable:
        previous, agent.model = agent.model, model
        await session.hooks.model_select(
            ModelSelectEvent(model=model, previous_model=previous, source="restore"),
        )
    elif restored.model and not usable:
        await session.notice(
            f"this session's model {restored.model} cannot be used; staying with "
            f"{agent.model.key if agent.model else 'no model'}",
            "warning",
        )
    level = restored.thinking_level
    if level:
        previous_level, agent.thinking_level = agent.thinking_level, level
        await session.hooks.thinking_level_select(
            ThinkingLevelSelectEvent(level=level, previous_level=previous_level, source="restore"),
        )
