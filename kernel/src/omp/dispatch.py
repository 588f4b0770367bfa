"""The async hook dispatcher: pluggy's call order, omp's combination rules.

pluggy has no async support, so event hooks are not called through ``pm.hook``.
Instead the dispatcher walks the implementations in pluggy's call order, passes each
only the arguments it declares, awaits what is awaitable and combines results by the
hook's rule (see ``omp.hookspecs``). Registration hooks are collected synchronously.
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pluggy

from omp.events import (
    BeforeAgentStartPatch,
    ContextPatch,
    ExecutionOverride,
    InputPatch,
    SessionBeforeDecision,
    SessionStopDecision,
    ToolCallDecision,
    ToolResultPatch,
    patched_payload,
)
from omp.plugin_manager import call_order

RULES: dict[str, str] = {
    "omp_tool_call": "first_block",
    "omp_tool_result": "chain",
    "omp_context": "chain",
    "omp_input": "chain",
    "omp_before_agent_start": "chain",
    "omp_session_before_switch": "first_cancel",
    "omp_session_before_branch": "first_cancel",
    "omp_session_before_compact": "first_cancel",
    "omp_session_before_tree": "first_cancel",
    "omp_user_bash": "first_result",
    "omp_user_python": "first_result",
    "omp_search": "first_result",
    "omp_session_stop": "chain",
    "omp_before_provider_request": "chain",
}
"""Hooks that combine results; every other event hook is an observer."""

ErrorReporter = Callable[[str, str, str], Awaitable[None] | None]


@dataclass
class ChainOutcome:
    """What a chain hook produced: the event as patched, plus side results."""

    event: Any
    added_messages: list[dict[str, Any]] = field(default_factory=list)
    handled: bool = False


def rule_of(hook_name: str) -> str:
    return RULES.get(hook_name, "observer")


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _coerce(result: Any, model: type) -> Any:
    if result is None or isinstance(result, model):
        return result
    if isinstance(result, dict):
        return model.model_validate(result)
    raise TypeError(f"expected a dict or {model.__name__}, got {type(result).__name__}")


class HookDispatcher:
    """Calls event hooks with their combination rule; reports failing handlers."""

    def __init__(self, pm: pluggy.PluginManager, report_error: ErrorReporter) -> None:
        self.pm = pm
        self._report_error = report_error
        self._trace = os.environ.get("OMP_TRACE_PLUGINS") == "1"
        self._orders: dict[str, list[pluggy.HookImpl]] = {}
        self._generation = -1

    def _order(self, hook_name: str) -> list[pluggy.HookImpl]:
        """call_order, cached until a plugin is registered or unregistered."""
        generation = getattr(self.pm, "generation", None)
        if generation is None:
            return call_order(self.pm, hook_name)
        if generation != self._generation:
            self._orders.clear()
            self._generation = generation
        order = self._orders.get(hook_name)
        if order is None:
            order = self._orders[hook_name] = call_order(self.pm, hook_name)
        return order

    async def _invoke(self, impl: pluggy.HookImpl, kwargs: dict[str, Any]) -> Any:
        result = impl.function(**{name: kwargs[name] for name in impl.argnames})
        if inspect.isawaitable(result):
            result = await result
        if self._trace:
            print(
                f"[omp trace] {impl.plugin_name}.{impl.function.__name__} -> {result!r}",
                file=sys.stderr,
            )
        return result

    async def _report(self, impl: pluggy.HookImpl, hook_name: str, exc: BaseException) -> None:
        outcome = self._report_error(
            impl.plugin_name, hook_name.removeprefix("omp_"), _describe(exc)
        )
        if inspect.isawaitable(outcome):
            await outcome

    async def call(self, hook_name: str, event: Any, ctx: Any = None, api: Any = None) -> Any:
        """Run every implementation of ``hook_name`` and combine by its rule.

        Returns: observer -> None; first_block -> a ToolCallDecision (possibly with a
        revised input) or None; chain -> a ChainOutcome (the event as patched, messages
        added by before_agent_start, whether input was handled); first_cancel ->
        the winning SessionBeforeDecision or None; first_result -> the winning
        ExecutionOverride or None.
        """
        impls = self._order(hook_name)
        if not impls:
            return ChainOutcome(event) if rule_of(hook_name) == "chain" else None
        kwargs = {"event": event, "ctx": ctx, "api": api}
        rule = rule_of(hook_name)
        if rule == "observer":
            for impl in impls:
                try:
                    await self._invoke(impl, kwargs)
                except Exception as exc:
                    await self._report(impl, hook_name, exc)
            return None
        if rule == "first_block":
            return await self._first_block(impls, kwargs)
        if rule == "chain":
            return await self._chain(hook_name, impls, kwargs)
        model = SessionBeforeDecision if rule == "first_cancel" else ExecutionOverride
        for impl in impls:
            try:
                result = _coerce(await self._invoke(impl, kwargs), model)
            except Exception as exc:
                await self._report(impl, hook_name, exc)
                continue
            if result is None:
                continue
            if rule == "first_result" or result.cancel or result.compaction or result.summary:
                return result
        return None

    async def _first_block(self, impls: list[pluggy.HookImpl], kwargs: dict[str, Any]) -> Any:
        event = kwargs["event"]
        revised: dict[str, Any] | None = None
        for impl in impls:
            try:
                decision = _coerce(await self._invoke(impl, kwargs), ToolCallDecision)
            except Exception as exc:
                await self._report(impl, "omp_tool_call", exc)
                reason = (
                    f"Blocked: the {impl.plugin_name} plugin failed while checking "
                    f"this call ({_describe(exc)})"
                )
                return ToolCallDecision(block=True, reason=reason)
            if decision is None:
                continue
            if decision.block:
                return decision
            if decision.input is not None:
                revised = decision.input
                event = event.model_copy(update={"input": revised})
                kwargs = {**kwargs, "event": event}
        return ToolCallDecision(input=revised) if revised is not None else None

    async def _chain(
        self, hook_name: str, impls: list[pluggy.HookImpl], kwargs: dict[str, Any]
    ) -> Any:
        outcome = ChainOutcome(kwargs["event"].model_copy())
        for impl in impls:
            try:
                result = await self._invoke(impl, {**kwargs, "event": outcome.event})
                if result is not None:
                    _apply_patch(hook_name, outcome, result)
            except Exception as exc:
                await self._report(impl, hook_name, exc)
                continue
            if outcome.handled:
                break
        return outcome


def _apply_patch(hook_name: str, outcome: ChainOutcome, result: Any) -> None:
    """Apply one handler's partial patch to the chained event."""
    event = outcome.event
    if hook_name == "omp_tool_result":
        patch = _coerce(result, ToolResultPatch)
        for name in patch.model_fields_set & {"content", "details", "is_error"}:
            setattr(event, name, getattr(patch, name))
        return
    if hook_name == "omp_context":
        patch = _coerce(result, ContextPatch)
        if patch.messages is not None:
            event.messages = list(patch.messages)
        return
    if hook_name == "omp_input":
        patch = _coerce(result, InputPatch)
        if patch.text is not None:
            event.text = patch.text
        if patch.images is not None:
            event.images = patch.images
        outcome.handled = patch.handled
        return
    if hook_name == "omp_before_agent_start":
        patch = _coerce(result, BeforeAgentStartPatch)
        if patch.system_prompt is not None:
            event.system_prompt = list(patch.system_prompt)
        if patch.message is not None:
            outcome.added_messages.append(patch.message)
        return
    if hook_name == "omp_before_provider_request":
        event.payload = patched_payload(event.payload, result)
        return
    if hook_name == "omp_session_stop":
        text = _coerce(result, SessionStopDecision).continuation()
        if text is not None:
            outcome.added_messages.append({"custom_type": "session_stop", "content": text})
        return
    raise KeyError(f"no chain rule for {hook_name}")
