"""Rules declared with the specs: undeclared names raise, unknown result keys are
reported, a third party's declared chain rule is honoured."""

from __future__ import annotations

import asyncio

import omp
import pytest
from omp.agent.events import (
    InputEvent,
    InputPatch,
    SessionBeforeSwitchEvent,
    ToolCallEvent,
    ToolResultEvent,
    UserBashEvent,
)
from omp.plugin.dispatch import HookDispatcher
from omp.plugin.manager import new_plugin_manager
from omp.plugin.specs import combine, hookspec


def dispatcher(*plugins: tuple[str, object]) -> tuple[HookDispatcher, list[tuple[str, ...]]]:
    pm = new_plugin_manager()
    for name, plugin in plugins:
        pm.register(plugin, name=name)
    errors: list[tuple[str, ...]] = []
    return HookDispatcher(pm, lambda *e: errors.append(e)), errors


def tool_call() -> ToolCallEvent:
    return ToolCallEvent(tool_call_id="c1", tool_name="bash", input={"command": "rm -rf /"})


def test_calling_a_misspelt_hook_raises_naming_it() -> None:
    class Guard:
        @omp.hookimpl
        def omp_tool_call(self, event):
            return {"block": True, "reason": "no"}

    d, _ = dispatcher(("guard", Guard()))
    with pytest.raises(LookupError, match=r"omp_tool_cal\b.*did you mean omp_tool_call"):
        asyncio.run(d.call("omp_tool_cal", tool_call()))


def test_a_pi_shaped_input_result_is_an_error_naming_the_key() -> None:
    class PiShaped:
        @omp.hookimpl
        def omp_input(self, event):
            return {"action": "handled"}

    d, errors = dispatcher(("pi-port", PiShaped()))
    outcome = asyncio.run(d.call("omp_input", InputEvent(text="hello")))
    assert outcome.handled is False
    assert outcome.event.text == "hello"
    assert len(errors) == 1
    plugin, hook, message = errors[0]
    assert (plugin, hook) == ("pi-port", "input")
    assert "'action'" in message and "InputPatch" in message


def test_the_rest_of_a_result_with_an_unknown_key_is_ignored_too() -> None:
    class Typo:
        @omp.hookimpl
        def omp_tool_result(self, event):
            return {"content": [{"type": "text", "text": "patched"}], "isErorr": True}

    d, errors = dispatcher(("typo", Typo()))
    event = ToolResultEvent(
        tool_call_id="c", tool_name="read", input={}, content=[{"type": "text", "text": "ok"}]
    )
    outcome = asyncio.run(d.call("omp_tool_result", event))
    assert outcome.event.content == [{"type": "text", "text": "ok"}]
    assert errors and "'isErorr'" in errors[0][2]


def test_an_unknown_key_from_tool_call_blocks_the_tool() -> None:
    class Misspelt:
        @omp.hookimpl
        def omp_tool_call(self, event):
            return {"blocked": True, "reason": "dangerous"}

    d, errors = dispatcher(("guard", Misspelt()))
    decision = asyncio.run(d.call("omp_tool_call", tool_call()))
    assert decision is not None and decision.block
    assert "'blocked'" in decision.reason
    assert errors and errors[0][:2] == ("guard", "tool_call")


@pytest.mark.parametrize(
    ("hook", "event", "returned"),
    [
        ("omp_session_before_switch", SessionBeforeSwitchEvent(reason="new"), {"cancelled": True}),
        ("omp_user_bash", UserBashEvent(command="ls", cwd="/"), {"output": "x"}),
    ],
)
def test_unknown_keys_in_decisions_are_reported_and_ignored(hook, event, returned) -> None:
    class Wrong:
        pass

    setattr(Wrong, hook, omp.hookimpl(lambda self, event: returned))
    getattr(Wrong, hook).__name__ = hook
    d, errors = dispatcher(("wrong", Wrong()))
    assert asyncio.run(d.call(hook, event)) is None
    assert errors and repr(next(iter(returned))) in errors[0][2]


def test_result_models_and_camel_case_aliases_are_accepted() -> None:
    class Typed:
        @omp.hookimpl(tryfirst=True)
        def omp_input(self, event):
            return InputPatch(text=event.text.upper())

    class Camel:
        @omp.hookimpl
        def omp_tool_result(self, event):
            return {"isError": True}

    d, errors = dispatcher(("typed", Typed()), ("camel", Camel()))
    assert asyncio.run(d.call("omp_input", InputEvent(text="hi"))).event.text == "HI"
    event = ToolResultEvent(tool_call_id="c", tool_name="read", input={}, content=[])
    assert asyncio.run(d.call("omp_tool_result", event)).event.is_error is True
    assert errors == []


def _collect(outcome, patch) -> None:
    outcome.event.content.extend(patch.content or [])


def test_a_third_party_spec_declares_its_own_chain_rule() -> None:
    class ThirdPartySpecs:
        """A plugin adding its own chain hook, its rule declared next to the spec."""

        @hookspec
        @combine("chain", result="ToolResultPatch", patch=_collect)
        def omp_thirdparty_collect(self, event, ctx, api):
            """Third-party chain hook."""

    class First:
        @omp.hookimpl
        def omp_thirdparty_collect(self, event):
            return {"content": ["a"]}

    class Second:
        @omp.hookimpl
        def omp_thirdparty_collect(self, event):
            return {"content": ["b"]}

    pm = new_plugin_manager()
    pm.add_hookspecs(ThirdPartySpecs)
    pm.register(First(), name="first")
    pm.register(Second(), name="second")
    errors: list[tuple[str, ...]] = []
    d = HookDispatcher(pm, lambda *e: errors.append(e))
    event = ToolResultEvent(tool_call_id="c", tool_name="x", input={}, content=[])
    outcome = asyncio.run(d.call("omp_thirdparty_collect", event))
    assert outcome.event.content == ["b", "a"]
    assert errors == []
