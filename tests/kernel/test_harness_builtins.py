"""Gap 11: a plugin's tests name the installed plugins they load (``builtins=``), so
another installed plugin cannot change what they see; the default still loads all."""

from __future__ import annotations

import omp
import pytest
from omp.base.errors import OmpError
from pydantic import BaseModel


class Words(BaseModel):
    text: str


class Echo:
    @omp.hookimpl
    def omp_register_tools(self, api):
        from omp.agent.tools import Tool, ToolResult

        def execute(call_id, params, signal, on_update, ctx):
            return ToolResult.text(f"echo: {params.text}")

        return [Tool(name="echo", description="Echo", parameters=Words, execute=execute)]


def _loaded(runtime) -> set[str]:
    return {r.name for r in runtime.host.records if r.status == "loaded"}


def test_a_test_loads_only_the_builtins_it_names(omp_harness):
    runtime = omp_harness.runtime([Echo()], builtins=["read"])
    assert _loaded(runtime) == {"read", "Echo"}
    assert [p.name for p in runtime.contributions.of("providers")] == []


def test_a_session_offers_only_the_named_plugins_tools_and_runs_its_script(omp_harness):
    session = omp_harness.session(
        plugins=[Echo()],
        builtins=["read"],
        script=[
            {"tool_calls": [{"name": "echo", "arguments": {"text": "hi"}}]},
            {"text": "done"},
        ],
    )
    assert sorted(session.tools.active_names()) == ["echo", "read"]
    events = omp_harness.run(session, "go")
    [result] = events.of("tool_execution_end")
    assert "echo: hi" in str(result.result)
    assert events.final_text() == "done"


def test_without_builtins_every_installed_plugin_loads(omp_harness):
    assert {"read", "scripted", "print"} <= _loaded(omp_harness.runtime([Echo()]))


def test_an_unknown_builtin_is_one_clear_error(omp_harness):
    with pytest.raises(OmpError, match=r"no installed plugin is named 'nope' \(installed: "):
        omp_harness.runtime(builtins=["read", "nope"])
