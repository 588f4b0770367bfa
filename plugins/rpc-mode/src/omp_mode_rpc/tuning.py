"""The commands that tune the session (§2.3): model and thinking level, queue and
interrupt modes, compaction (now, or automatic) and retry, fast mode. Each takes the
server and the command frame and returns the response's ``data``, as in commands.py."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Literal

from omp import THINKING_LEVELS, OmpError

from omp_mode_rpc import state
from omp_mode_rpc.state import NO_DATA

if TYPE_CHECKING:
    from omp import AgentSession, Model

    from omp_mode_rpc.server import RpcServer

QUEUE_MODES = ("all", "one-at-a-time")
INTERRUPT_MODES = ("immediate", "wait")


def _choice(frame: dict[str, Any], key: str, allowed: tuple[str, ...]) -> Any:
    """The frame's ``key``, one of ``allowed`` (typed by the caller's setter)."""
    value = frame.get(key)
    if value not in allowed:
        raise OmpError(f"`{key}` must be one of: {', '.join(allowed)}")
    return value


def _flag(frame: dict[str, Any]) -> bool:
    if not isinstance(frame.get("enabled"), bool):
        raise OmpError("`enabled` must be true or false")
    return frame["enabled"]


# -- model and thinking ---------------------------------------------------------------


async def _announced() -> None:
    """The session announces a model or thinking change from a task it starts; one
    step of the loop sends its frame, so it precedes the response, as omp's does."""
    await asyncio.sleep(0)


async def _switched(
    session: AgentSession, model: Model, source: Literal["set", "cycle"] = "set"
) -> bool:
    """Whether the session went to ``model`` (it may not be usable now)."""
    try:
        await session.set_model(model, source=source)
    except OmpError:
        return False
    return True


async def set_model(server: RpcServer, frame: dict[str, Any]) -> Any:
    provider, model_id = frame.get("provider"), frame.get("modelId")
    session = server.session
    key = f"{provider}/{model_id}"
    model = next((m for m in session.usable_models() if m.key == key), None)
    if model is None or not await _switched(session, model):
        raise OmpError(f"Model not found: {provider}/{model_id}")
    await _announced()
    return state.model_dict(model)


async def cycle_model(server: RpcServer, frame: dict[str, Any]) -> Any:
    """The next of the session's scoped models (``--models``), else of every usable
    model; None when there is no other to go to."""
    session = server.session
    scoped = session.scoped_models
    cycle = scoped or session.usable_models()
    current = session.model
    keys = [m.key for m in cycle]
    index = keys.index(current.key) if current is not None and current.key in keys else -1
    for step in range(1, len(cycle) + 1):
        model = cycle[(index + step) % len(cycle)]
        if current is not None and model.key == current.key:
            return None
        if await _switched(session, model, "cycle"):
            await _announced()
            return {
                "model": state.model_dict(model),
                "thinkingLevel": session.thinking_level,
                "isScoped": bool(scoped),
            }
    return None


async def get_available_models(server: RpcServer, frame: dict[str, Any]) -> Any:
    return {"models": [state.model_dict(m) for m in server.session.usable_models()]}


async def set_thinking_level(server: RpcServer, frame: dict[str, Any]) -> Any:
    await server.session.set_thinking_level(_choice(frame, "level", THINKING_LEVELS))
    await _announced()
    return NO_DATA


async def cycle_thinking_level(server: RpcServer, frame: dict[str, Any]) -> Any:
    """The model's next thinking level (``omp.next_thinking_level``); None when it does
    not think (or no model is chosen)."""
    session = server.session
    level = session.cycle_thinking_level() if session.model is not None else None
    if level is None:
        return None
    await _announced()
    return {"level": level}


async def set_steering_mode(server: RpcServer, frame: dict[str, Any]) -> Any:
    server.session.steering_mode = _choice(frame, "mode", QUEUE_MODES)
    return NO_DATA


async def set_follow_up_mode(server: RpcServer, frame: dict[str, Any]) -> Any:
    server.session.follow_up_mode = _choice(frame, "mode", QUEUE_MODES)
    return NO_DATA


async def set_interrupt_mode(server: RpcServer, frame: dict[str, Any]) -> Any:
    server.session.interrupt_mode = _choice(frame, "mode", INTERRUPT_MODES)
    return NO_DATA


# -- compaction and retry -------------------------------------------------------------


async def compact(server: RpcServer, frame: dict[str, Any]) -> Any:
    await server.abort_and_wait()
    server.compacting = True
    try:
        result = await server.session.context.compact(frame.get("customInstructions"))
    finally:
        server.compacting = False
    names = {
        "first_kept_entry_id": "firstKeptEntryId",
        "tokens_before": "tokensBefore",
        "tokens_after": "tokensAfter",
        "short_summary": "shortSummary",
        "preserve_data": "preserveData",
    }
    return {names.get(k, k): v for k, v in (result or {}).items() if v is not None}


async def set_auto_compaction(server: RpcServer, frame: dict[str, Any]) -> Any:
    server.session.auto_compaction_enabled = _flag(frame)
    return NO_DATA


async def set_auto_retry(server: RpcServer, frame: dict[str, Any]) -> Any:
    server.session.auto_retry_enabled = _flag(frame)
    return NO_DATA


async def abort_retry(server: RpcServer, frame: dict[str, Any]) -> Any:
    """A retry waiting out its delay is given up: the run ends (as aborted)."""
    if server.retrying:
        server.session.abort()
    return NO_DATA


async def set_fast_mode(server: RpcServer, frame: dict[str, Any]) -> Any:
    """No model here has a fast tier: turning it on fails as omp's does for such a
    model, turning it off succeeds (it is off)."""
    if _flag(frame):
        raise OmpError("Fast mode is unavailable for the current model.")
    return {"enabled": False, "active": False}


TUNING = {
    name: globals()[name]
    for name in [
        "set_model",
        "cycle_model",
        "get_available_models",
        "set_thinking_level",
        "cycle_thinking_level",
        "set_steering_mode",
        "set_follow_up_mode",
        "set_interrupt_mode",
        "compact",
        "set_auto_compaction",
        "set_auto_retry",
        "abort_retry",
        "set_fast_mode",
    ]
}
