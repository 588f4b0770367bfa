"""Session-level actions of a running AgentSession: announcing what a session restored
(model, thinking level), and - for the terminal UI, RPC and command handlers - new,
switch, fork and tree navigation, each with omp's before/after events."""

from __future__ import annotations

from typing import Any

from omp.events import ModelSelectEvent, ThinkingLevelSelectEvent


async def announce_restored(session: Any, model_key: str | None, level: str | None) -> None:
    """model_select / thinking_level_select with source ``restore`` for what the session
    file recorded and the session now uses."""
    model = session.agent.model
    if model is not None and model_key == model.key:
        await session.call_hook("omp_model_select", ModelSelectEvent(model=model, source="restore"))
    if level is not None and level == session.agent.thinking_level:
        await session.call_hook(
            "omp_thinking_level_select", ThinkingLevelSelectEvent(level=level, source="restore")
        )
