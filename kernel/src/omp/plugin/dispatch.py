"""The async hook dispatcher: pluggy's call order, omp's combination rules.

pluggy has no async support, so event hooks are not called through ``pm.hook``.
Instead the dispatcher walks the implementations in pluggy's call order, passes each
only the arguments it declares, awaits what is awaitable and combines results by the
hook's rule (declared with ``@combine`` next to each spec in ``omp.plugin.specs``; the
kinds and the kernel's patches are in ``omp.plugin.rules``). Calling a hook name no spec
declares raises ``UnknownHookError``.
pluggy's wrappers (``wrapper=True`` and old-style ``hookwrapper=True``) run around the
whole call, and pluggy's hook-call monitoring
(``pm.add_hookcall_monitoring``) sees every call. Registration hooks are collected
synchronously.

No handler can end or freeze the agent: whatever a handler raises (SystemExit,
KeyboardInterrupt and CancelledError included) is reported and contained, and every
handler runs under a timeout (``omp.base.hooktime``). Only a real cancellation of the
calling task and a real interrupt from the user (``omp.base.hooktime.Interrupted``) pass.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Awaitable, Callable
from types import CoroutineType
from typing import Any

import pluggy

from omp.agent.events import ToolCallDecision
from omp.base.hooktime import HookTimeouts, passes_through, run_sync, settle, within
from omp.plugin.rules import ChainOutcome, HookRule, decides, validated

__all__ = [
    "RULES",
    "ChainOutcome",
    "HookDispatcher",
    "HookTimeouts",
    "UnknownHookError",
    "declared_rule",
    "rule_of",
]


def _declared_rules() -> dict[str, HookRule]:
    from omp.plugin import specs as hookspecs

    return {
        name: hookspecs.declared_rule(spec)
        for name, spec in vars(hookspecs).items()
        if name.startswith("omp_") and not name.startswith("omp_register_") and callable(spec)
    }


RULES: dict[str, HookRule] = _declared_rules()
"""Each event hook's combination rule, as its spec declares it with ``@combine``."""

ErrorReporter = Callable[[str, str, str], Awaitable[None] | None]


class UnknownHookError(LookupError):
    """The kernel (or a plugin) called a hook name that no spec declares."""

    def __init__(self, hook_name: str, known: list[str]) -> None:
        close = difflib.get_close_matches(hook_name, known, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]}?" if close else ""
        super().__init__(f"no hook spec declares {hook_name}{hint} (see omp.plugin.specs)")


def declared_rule(hook_name: str, pm: pluggy.PluginManager | None = None) -> HookRule:
    """A hook's rule: the kernel spec's, else that of a spec a third party added to
    ``pm`` (an observer unless it declares one). Raises UnknownHookError for a name
    no spec declares."""
    rule = RULES.get(hook_name)
    if rule is not None:
        return rule
    caller = getattr(pm.hook, hook_name, None) if pm is not None else None
    if caller is not None and caller.spec is not None:
        from omp.plugin.specs import declared_rule as of_spec

        return of_spec(caller.spec.function)
    known = [*RULES, *(n for n in vars(pm.hook) if not n.startswith("_"))] if pm else [*RULES]
    raise UnknownHookError(hook_name, known)


def rule_of(hook_name: str) -> str:
    """The kind of a kernel hook's rule (observer for a name the kernel does not
    declare)."""
    rule = RULES.get(hook_name)
    return rule.kind if rule is not None else "observer"


def describe_error(exc: BaseException) -> str:
    """How a failing handler is reported: its type and its message's first line."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0].strip()}" if text else type(exc).__name__


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
        self._rules: dict[str, HookRule] = dict(RULES)
        self._untimed = frozenset(name for name, rule in RULES.items() if not rule.timed)

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
        limit = None if hook_name in self._untimed else self.timeouts.of(hook_name)
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
            impl.plugin_name, hook_name.removeprefix("omp_"), describe_error(exc)
        )
        if inspect.isawaitable(outcome):
            await outcome

    def rule(self, hook_name: str) -> HookRule:
        """The hook's declared rule; UnknownHookError for a name no spec declares."""
        rule = self._rules.get(hook_name)
        if rule is None:
            rule = self._rules[hook_name] = declared_rule(hook_name, self.pm)
        return rule

    def implementers(self, hook_name: str) -> frozenset[str]:
        """The names of the plugins implementing ``hook_name``."""
        wrappers, impls = self._impls(hook_name)
        return frozenset(impl.plugin_name for impl in (*wrappers, *impls))

    async def call(
        self,
        hook_name: str,
        event: Any,
        ctx: Any = None,
        api: Any = None,
        *,
        skip: frozenset[str] = frozenset(),
    ) -> Any:
        """Run every implementation of ``hook_name`` (but those of the plugins named in
        ``skip``) and combine by its rule.

        Returns: observer -> None; first_block -> a ToolCallDecision (possibly with a
        revised input) or None; chain -> a ChainOutcome (the event as patched, messages
        added by before_agent_start, whether input was handled); first_cancel ->
        the winning SessionBeforeDecision or None; first_result -> the winning
        ExecutionOverride or None. Wrappers see and may replace exactly this value.
        Raises UnknownHookError when no spec declares ``hook_name``.
        """
        rule = self._rules.get(hook_name) or self.rule(hook_name)
        wrappers, impls = self._impls(hook_name)
        if skip:
            wrappers = [i for i in wrappers if i.plugin_name not in skip]
            impls = [i for i in impls if i.plugin_name not in skip]
        monitors = getattr(self.pm, "omp_monitors", ())
        if not impls and not wrappers and not monitors:
            return ChainOutcome(event) if rule.kind == "chain" else None
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
        self, hook_name: str, rule: HookRule, impls: list[pluggy.HookImpl], kwargs: dict[str, Any]
    ) -> Any:
        kind = rule.kind
        if kind == "observer":
            for impl in impls:
                try:
                    await self._invoke(impl, hook_name, kwargs)
                except _Failed as failed:
                    await self._report(impl, hook_name, failed.error)
            return None
        if kind == "first_block":
            return await self._first_block(hook_name, rule, impls, kwargs)
        if kind == "chain":
            return await self._chain(hook_name, rule, impls, kwargs)
        model = rule.model()
        for impl in impls:
            try:
                result = await self._invoke(impl, hook_name, kwargs)
                if model is not None:
                    result = validated(result, model)
            except _Failed as failed:
                await self._report(impl, hook_name, failed.error)
                continue
            except Exception as exc:
                await self._report(impl, hook_name, exc)
                continue
            if result is None:
                continue
            if kind == "first_result" or decides(result):
                return result
        return None

    async def _first_block(
        self, hook_name: str, rule: HookRule, impls: list[pluggy.HookImpl], kwargs: dict[str, Any]
    ) -> Any:
        event = kwargs["event"]
        model = rule.model() or ToolCallDecision
        if model is not ToolCallDecision:
            return await self._first_block_rewriting(hook_name, model, impls, kwargs)
        revised: dict[str, Any] | None = None
        asker: Any = None
        for impl in impls:
            try:
                decision = validated(await self._invoke(impl, hook_name, kwargs), model)
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
        return model(input=revised, ask=asker is not None, reason=asker.reason if asker else None)

    async def _first_block_rewriting(
        self, hook_name: str, model: Any, impls: list[pluggy.HookImpl], kwargs: dict[str, Any]
    ) -> Any:
        """first_block for a decision other than a tool call's (omp_subagent_spawn): the
        first block wins; the other fields a handler sets rewrite the event the later
        handlers see, and come back together in one decision (None when none was set)."""
        rewrites: dict[str, Any] = {}
        for impl in impls:
            try:
                decision = validated(await self._invoke(impl, hook_name, kwargs), model)
            except _Failed as failed:
                return await self._fail_closed(impl, hook_name, failed.error, model)
            except Exception as exc:
                return await self._fail_closed(impl, hook_name, exc, model)
            if decision is None:
                continue
            if decision.block:
                return decision
            changed = {
                name: getattr(decision, name)
                for name in decision.model_fields_set - {"block", "reason"}
                if getattr(decision, name) is not None
            }
            if changed:
                rewrites.update(changed)
                kwargs = {**kwargs, "event": kwargs["event"].model_copy(update=changed)}
        return model(**rewrites) if rewrites else None

    async def _fail_closed(
        self, impl: pluggy.HookImpl, hook_name: str, exc: BaseException, model: Any = None
    ) -> Any:
        await self._report(impl, hook_name, exc)
        reason = (
            f"Blocked: the {impl.plugin_name} plugin failed while checking this call "
            f"({describe_error(exc)})"
        )
        return (model or ToolCallDecision)(block=True, reason=reason)

    async def _chain(
        self, hook_name: str, rule: HookRule, impls: list[pluggy.HookImpl], kwargs: dict[str, Any]
    ) -> ChainOutcome[Any]:
        event = kwargs["event"]
        outcome = ChainOutcome(rule.start(event) if rule.start else event.model_copy())
        for impl in impls:
            try:
                result = await self._invoke(impl, hook_name, {**kwargs, "event": outcome.event})
                if result is not None:
                    _apply(rule, outcome, result)
            except _Failed as failed:
                await self._report(impl, hook_name, failed.error)
                continue
            except Exception as exc:
                await self._report(impl, hook_name, exc)
                continue
            if outcome.handled:
                break
        if rule.finish is not None:
            rule.finish(outcome.event)
        return outcome

    # -- wrappers -------------------------------------------------------------------

    async def _wrapped(
        self,
        hook_name: str,
        rule: HookRule,
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
        self, impl: pluggy.HookImpl, hook_name: str, rule: HookRule, generator: Any, result: Any
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
            return _as_result(rule, outcome.get_result(), result)
        try:
            run_sync(limit, generator.send, result)
        except StopIteration as stop:
            return _as_result(rule, stop.value, result)
        raise RuntimeError("a wrapper must yield only once")

    async def _wrapper_failed(
        self, impl: pluggy.HookImpl, hook_name: str, rule: HookRule, exc: BaseException
    ) -> Any:
        if rule.kind == "first_block":
            return await self._fail_closed(impl, hook_name, exc, rule.model())
        await self._report(impl, hook_name, exc)
        return None


def _as_result(rule: HookRule, returned: Any, previous: Any) -> Any:
    """A wrapper's return value in the form of the hook's combined result."""
    if rule.kind == "observer":
        return None
    if rule.kind == "chain":
        if isinstance(returned, ChainOutcome) or returned is None:
            return returned or previous
        _apply(rule, previous, returned)
        return previous
    model = rule.model()
    return validated(returned, model) if model is not None else returned


def _apply(rule: HookRule, outcome: ChainOutcome[Any], result: Any) -> None:
    """Apply one handler's result to the chained event, validated against the result
    model the hook declares (unknown keys raise)."""
    model = rule.model()
    assert rule.patch is not None  # combine() requires it for a chain
    rule.patch(outcome, validated(result, model) if model is not None else result)
