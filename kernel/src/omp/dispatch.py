"""The async hook dispatcher: pluggy's call order, omp's combination rules.

pluggy has no async support, so event hooks are not called through ``pm.hook``.
Instead the dispatcher walks the implementations in pluggy's call order, passes each
only the arguments it declares, awaits what is awaitable and combines results by the
hook's rule (declared with ``@combine`` next to each spec in ``omp.hookspecs``).
pluggy's wrappers (``wrapper=True`` and old-style ``hookwrapper=True``) run around the
whole call, and pluggy's hook-call monitoring
(``pm.add_hookcall_monitoring``) sees every call. Registration hooks are collected
synchronously.

No handler can end or freeze the agent: whatever a handler raises (SystemExit,
KeyboardInterrupt and CancelledError included) is reported and contained, and every
handler runs under a timeout (``omp.hooktime``). Only a real cancellation of the
calling task and a real interrupt from the user (``omp.hooktime.Interrupted``) pass.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import CoroutineType
from typing import Any

import pluggy

from omp.events import (
    BeforeAgentStartPatch,
    CompactingPatch,
    ContextPatch,
    ExecutionOverride,
    InputPatch,
    ResourcesPatch,
    SessionBeforeDecision,
    SessionStopDecision,
    ToolCallDecision,
    ToolResultPatch,
    patched_payload,
)
from omp.hooktime import HookTimeouts, passes_through, run_sync, settle, within

__all__ = ["RULES", "ChainOutcome", "HookDispatcher", "HookTimeouts", "rule_of"]


def _declared_rules() -> dict[str, str]:
    from omp import hookspecs

    return {
        name: hookspecs.rule_of(spec)
        for name, spec in vars(hookspecs).items()
        if name.startswith("omp_") and callable(spec)
    }


RULES: dict[str, str] = _declared_rules()
"""Each event hook's combination rule, as its spec declares it with ``@combine``."""

ErrorReporter = Callable[[str, str, str], Awaitable[None] | None]


@dataclass
class ChainOutcome:
    """What a chain hook produced: the event as patched, plus side results."""

    event: Any
    added_messages: list[dict[str, Any]] = field(default_factory=list)
    handled: bool = False


def rule_of(hook_name: str) -> str:
    """A hook's rule; a hook spec added by a third party without ``@combine`` is an
    observer."""
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


class _Failed(Exception):
    """A handler failed; carries the plugin's error for the combination rule."""

    def __init__(self, impl: pluggy.HookImpl, error: BaseException) -> None:
        self.impl, self.error = impl, error


class HookDispatcher:
    """Calls event hooks with their combination rule; reports failing handlers."""

    def __init__(
        self,
        pm: pluggy.PluginManager,
        report_error: ErrorReporter,
        timeouts: HookTimeouts | None = None,
    ) -> None:
        self.pm = pm
        self._report_error = report_error
        self.timeouts = timeouts or HookTimeouts()

    def _impls(self, hook_name: str) -> tuple[list[pluggy.HookImpl], list[pluggy.HookImpl]]:
        """(wrappers, plain implementations), each in pluggy's call order."""
        caller = getattr(self.pm.hook, hook_name, None)
        if caller is None:
            return [], []
        impls = caller.get_hookimpls()
        wrappers = [i for i in reversed(impls) if i.wrapper or i.hookwrapper]
        if not wrappers:
            return wrappers, impls[::-1]
        return wrappers, [i for i in reversed(impls) if not (i.wrapper or i.hookwrapper)]

    async def _invoke(self, impl: pluggy.HookImpl, hook_name: str, kwargs: dict[str, Any]) -> Any:
        """One handler's result; raises _Failed with whatever it raised (or its timeout)."""
        limit = self.timeouts.of(hook_name)
        try:
            arguments = {n: kwargs[n] for n in impl.argnames}
            if inspect.iscoroutinefunction(impl.function):  # making it cannot block: no timer
                return await settle(limit, impl.function(**arguments))
            result = run_sync(limit, impl.function, **arguments)
            if type(result) is CoroutineType:
                return await settle(limit, result)
            if inspect.isawaitable(result):
                return await within(limit, result)
            return result
        except BaseException as exc:
            if passes_through(exc):
                raise
            raise _Failed(impl, exc) from None

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
        ExecutionOverride or None. Wrappers see and may replace exactly this value.
        """
        wrappers, impls = self._impls(hook_name)
        rule = rule_of(hook_name)
        monitors = getattr(self.pm, "omp_monitors", ())
        if not impls and not wrappers and not monitors:
            return ChainOutcome(event) if rule == "chain" else None
        kwargs = {"event": event, "ctx": ctx, "api": api}
        for before, _ in monitors:
            before(hook_name, [*wrappers, *impls], kwargs)
        try:
            if wrappers:
                result = await self._wrapped(hook_name, rule, wrappers, impls, kwargs)
            else:
                result = await self._combine(hook_name, rule, impls, kwargs)
        except BaseException as exc:
            for _, after in monitors:
                after(pluggy.Result(None, exc), hook_name, [*wrappers, *impls], kwargs)
            raise
        for _, after in monitors:
            after(pluggy.Result(result, None), hook_name, [*wrappers, *impls], kwargs)
        return result

    async def _combine(
        self, hook_name: str, rule: str, impls: list[pluggy.HookImpl], kwargs: dict[str, Any]
    ) -> Any:
        if rule == "observer":
            for impl in impls:
                try:
                    await self._invoke(impl, hook_name, kwargs)
                except _Failed as failed:
                    await self._report(impl, hook_name, failed.error)
            return None
        if rule == "first_block":
            return await self._first_block(hook_name, impls, kwargs)
        if rule == "chain":
            return await self._chain(hook_name, impls, kwargs)
        model = SessionBeforeDecision if rule == "first_cancel" else ExecutionOverride
        for impl in impls:
            try:
                result = _coerce(await self._invoke(impl, hook_name, kwargs), model)
            except _Failed as failed:
                await self._report(impl, hook_name, failed.error)
                continue
            except Exception as exc:
                await self._report(impl, hook_name, exc)
                continue
            if result is None:
                continue
            if rule == "first_result" or result.cancel or result.compaction or result.summary:
                return result
        return None

    async def _first_block(
        self, hook_name: str, impls: list[pluggy.HookImpl], kwargs: dict[str, Any]
    ) -> Any:
        event = kwargs["event"]
        revised: dict[str, Any] | None = None
        asker: ToolCallDecision | None = None
        for impl in impls:
            try:
                decision = _coerce(await self._invoke(impl, hook_name, kwargs), ToolCallDecision)
            except _Failed as failed:
                return await self._fail_closed(impl, hook_name, failed.error)
            except Exception as exc:
                return await self._fail_closed(impl, hook_name, exc)
            if decision is None:
                continue
            if decision.block:
                return decision
            if decision.ask and asker is None:
                asker = decision
            if decision.input is not None:
                revised = decision.input
                event = event.model_copy(update={"input": revised})
                kwargs = {**kwargs, "event": event}
        if revised is None and asker is None:
            return None
        return ToolCallDecision(
            input=revised, ask=asker is not None, reason=asker.reason if asker else None
        )

    async def _fail_closed(
        self, impl: pluggy.HookImpl, hook_name: str, exc: BaseException
    ) -> ToolCallDecision:
        await self._report(impl, hook_name, exc)
        reason = (
            f"Blocked: the {impl.plugin_name} plugin failed while checking this call "
            f"({_describe(exc)})"
        )
        return ToolCallDecision(block=True, reason=reason)

    async def _chain(
        self, hook_name: str, impls: list[pluggy.HookImpl], kwargs: dict[str, Any]
    ) -> Any:
        event = kwargs["event"]
        if hook_name == "omp_context":
            from omp.copying import CopyOnRead

            start = event.model_copy(update={"messages": CopyOnRead(event.messages)})
        else:
            start = event.model_copy()
        outcome = ChainOutcome(start)
        for impl in impls:
            try:
                result = await self._invoke(impl, hook_name, {**kwargs, "event": outcome.event})
                if result is not None:
                    _apply_patch(hook_name, outcome, result)
            except _Failed as failed:
                await self._report(impl, hook_name, failed.error)
                continue
            except Exception as exc:
                await self._report(impl, hook_name, exc)
                continue
            if outcome.handled:
                break
        messages = getattr(outcome.event, "messages", None)
        if hook_name == "omp_context" and hasattr(messages, "settled"):
            outcome.event.messages = messages.settled()
        return outcome

    # -- wrappers -------------------------------------------------------------------

    async def _wrapped(
        self,
        hook_name: str,
        rule: str,
        wrappers: list[pluggy.HookImpl],
        impls: list[pluggy.HookImpl],
        kwargs: dict[str, Any],
    ) -> Any:
        """Run the wrappers around the combined call, outermost first, as pluggy does.

        A wrapper that raises is reported; the result stays what it was before that
        wrapper (and a tool check fails closed).
        """
        entered: list[tuple[pluggy.HookImpl, Any]] = []
        for impl in wrappers:
            try:
                generator = impl.function(**{n: kwargs[n] for n in impl.argnames})
                run_sync(self.timeouts.of(hook_name), next, generator)
            except BaseException as exc:
                if passes_through(exc):
                    raise
                failed = await self._wrapper_failed(impl, hook_name, rule, exc)
                if failed is not None:
                    return failed
                continue
            entered.append((impl, generator))
        result = await self._combine(hook_name, rule, impls, kwargs)
        for impl, generator in reversed(entered):
            try:
                result = self._leave(impl, hook_name, rule, generator, result)
            except BaseException as exc:
                if passes_through(exc):
                    raise
                failed = await self._wrapper_failed(impl, hook_name, rule, exc)
                if failed is not None:
                    result = failed
        return result

    def _leave(
        self, impl: pluggy.HookImpl, hook_name: str, rule: str, generator: Any, result: Any
    ) -> Any:
        """Send the result into one wrapper (a generator, as pluggy requires); what it
        makes of it."""
        limit = self.timeouts.of(hook_name)
        if impl.hookwrapper:
            outcome = pluggy.Result(result, None)
            try:
                run_sync(limit, generator.send, outcome)
            except StopIteration:
                pass
            else:
                raise RuntimeError("an old-style hookwrapper must yield only once")
            return _as_result(hook_name, rule, outcome.get_result(), result)
        try:
            run_sync(limit, generator.send, result)
        except StopIteration as stop:
            return _as_result(hook_name, rule, stop.value, result)
        raise RuntimeError("a wrapper must yield only once")

    async def _wrapper_failed(
        self, impl: pluggy.HookImpl, hook_name: str, rule: str, exc: BaseException
    ) -> Any:
        if rule == "first_block":
            return await self._fail_closed(impl, hook_name, exc)
        await self._report(impl, hook_name, exc)
        return None


def _as_result(hook_name: str, rule: str, returned: Any, previous: Any) -> Any:
    """A wrapper's return value in the form of the hook's combined result."""
    if rule == "observer":
        return None
    if rule == "chain":
        if isinstance(returned, ChainOutcome) or returned is None:
            return returned or previous
        _apply_patch(hook_name, previous, returned)
        return previous
    model = {"first_block": ToolCallDecision, "first_cancel": SessionBeforeDecision}.get(
        rule, ExecutionOverride
    )
    return _coerce(returned, model)


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
    if hook_name == "omp_resources_discover":
        patch = _coerce(result, ResourcesPatch)
        for name in ("skill_paths", "prompt_paths", "theme_paths", "rule_paths"):
            found = getattr(event, name)
            for path in getattr(patch, name) or []:
                absolute = os.path.join(event.cwd, os.path.expanduser(str(path)))
                if absolute not in found:
                    found.append(absolute)
        return
    if hook_name == "omp_before_provider_request":
        event.payload = patched_payload(event.payload, result)
        return
    if hook_name == "omp_session_compacting":
        patch = _coerce(result, CompactingPatch)
        event.context = [*event.context, *(str(line) for line in patch.context or [])]
        if patch.prompt is not None:
            event.prompt = patch.prompt
        if patch.preserve_data is not None:
            event.preserve_data = patch.preserve_data
        return
    if hook_name == "omp_session_stop":
        text = _coerce(result, SessionStopDecision).continuation()
        if text is not None:
            outcome.added_messages.append({"custom_type": "session_stop", "content": text})
            outcome.handled = True  # the first that continues or blocks wins
        return
    raise KeyError(f"no chain rule for {hook_name}")
