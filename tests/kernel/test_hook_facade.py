"""The typed facade over the event hooks (omp.plugin.hooks): generated from the specs, kept
current, one method per event hook, and what kernel code calls instead of names."""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
from pathlib import Path

import omp
import pytest
from omp.agent.events import QueueUpdateEvent, ToolCallEvent
from omp.plugin import specs as hookspecs
from omp.plugin.hooks import Hooks

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("hooksgen", ROOT / "scripts" / "hooksgen.py")
assert _spec is not None and _spec.loader is not None
hooksgen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hooksgen)
render = hooksgen.render
MODULE = ROOT / "kernel" / "src" / "omp" / "plugin" / "hooks.py"
EVENT_SPECS = {
    name: spec
    for name, spec in vars(hookspecs).items()
    if name.startswith("omp_") and not name.startswith("omp_register_")
}


def test_hooks_py_is_generated_from_the_current_specs() -> None:
    assert MODULE.read_text(encoding="utf-8") == render(), (
        "kernel/src/omp/plugin/hooks.py is out of date: run "
        "`python scripts/hooksgen.py > kernel/src/omp/plugin/hooks.py`"
    )


@pytest.mark.parametrize("name", sorted(EVENT_SPECS))
def test_each_event_hook_has_a_method_typed_like_its_spec(name: str) -> None:
    method = getattr(Hooks, name.removeprefix("omp_"))
    spec_event = inspect.signature(EVENT_SPECS[name]).parameters["event"].annotation
    assert inspect.signature(method).parameters["event"].annotation == spec_event
    rule = hookspecs.declared_rule(EVENT_SPECS[name])
    returns = inspect.signature(method).return_annotation
    expected = {
        "observer": "None",
        "chain": f"ChainOutcome[{spec_event}]",
    }.get(rule.kind, f"{rule.result} | None")
    assert returns == expected


def test_the_facade_returns_the_combined_decision(omp_harness) -> None:
    class Guard:
        @omp.hookimpl
        def omp_tool_call(self, event):
            return {"block": True, "reason": "not here"}

    session = omp_harness.session(plugins=[Guard()])
    event = ToolCallEvent(tool_call_id="c", tool_name="bash", input={"command": "ls"})
    decision = asyncio.run(session.hooks.tool_call(event))
    assert decision is not None and (decision.block, decision.reason) == (True, "not here")


def test_an_event_without_a_hook_reaches_subscribers_only(omp_harness) -> None:
    session = omp_harness.session()
    seen: list[str] = []
    session.subscribe(lambda event: seen.append(event.type))
    asyncio.run(session.emit(QueueUpdateEvent()))
    assert seen == ["queue_update"]


def test_a_misspelt_hook_name_through_the_session_raises(omp_harness) -> None:
    session = omp_harness.session()
    event = ToolCallEvent(tool_call_id="c", tool_name="bash", input={})
    with pytest.raises(LookupError, match="omp_tool_calls"):
        asyncio.run(session.call_hook("omp_tool_calls", event))
