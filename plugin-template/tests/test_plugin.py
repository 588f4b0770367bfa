"""Tests with omp's testing kit: the ``omp_harness`` fixture comes with omp-kernel (a
pytest plugin), so there is nothing to import for it. Each test builds a fresh runtime
with every installed plugin (this one included) and replays a script instead of calling
a model."""

from __future__ import annotations

import json
from typing import Any

import omp
from omp import Tool
from omp.testing import Harness
from omp_plugin_template.plugin import COMMAND, FLAG, SETTING, TOOL
from pydantic import BaseModel


def call(tool: str, **arguments: Any) -> dict[str, Any]:
    """A scripted model reply that calls one tool."""
    return {"tool_calls": [{"name": tool, "arguments": arguments}]}


def result_text(events: Any) -> str:
    text: str = events.of("tool_execution_end")[-1].result["content"][0].text
    return text


def test_the_tool_greets(omp_harness: Harness) -> None:
    session = omp_harness.session(script=[call(TOOL, name="Ada"), {"text": "done"}])
    events = omp_harness.run(session, "greet Ada")
    assert result_text(events) == "Hello, Ada!"
    assert events.final_text() == "done"


def test_the_flag_changes_the_greeting(omp_harness: Harness) -> None:
    script = [call(TOOL, name="Ada"), {"text": "done"}]
    session = omp_harness.session(script=script, flags={FLAG: "Ahoy"})
    assert result_text(omp_harness.run(session, "greet Ada")) == "Ahoy, Ada!"


class FileTool:
    """An in-test plugin: a tool taking a ``path``, for the gate to guard."""

    @omp.hookimpl
    def omp_register_tools(self, api: omp.OmpAPI) -> list[Tool]:
        class Params(BaseModel):
            path: str

        return [
            Tool(
                name="open_file",
                description="Open a file.",
                parameters=Params,
                execute=lambda cid, p, signal, update, ctx: f"opened {p.path}",
            )
        ]


def test_the_gate_blocks_secrets_and_lets_the_rest_through(omp_harness: Harness) -> None:
    script = [call("open_file", path="app/.env"), call("open_file", path="README.md")]
    session = omp_harness.session([FileTool()], script=[*script, {"text": "done"}])
    ends = omp_harness.run(session, "open them").of("tool_execution_end")
    assert ends[0].is_error and ".env holds secrets" in ends[0].result["content"][0].text
    assert not ends[1].is_error and ends[1].result["content"][0].text == "opened README.md"


def test_the_command_counts_greetings_in_this_session(omp_harness: Harness) -> None:
    script = [call(TOOL, name="Ada"), call(TOOL, name="Bob"), {"text": "done"}]
    session = omp_harness.session(script=script)
    events = omp_harness.run(session, "greet both", f"/{COMMAND}")
    assert events.of("notice")[-1].message == f"{TOOL} greeted 2 time(s) in this session"


def test_the_greeting_setting_is_declared_and_the_flag_wins(omp_harness: Harness) -> None:
    section, name = SETTING.split(".")
    settings = omp_harness.agent_dir / "settings.json"
    settings.write_text(json.dumps({section: {name: "Hi"}}), encoding="utf-8")
    script = [call(TOOL, name="Ada"), {"text": "done"}]
    runtime = omp_harness.runtime()
    assert runtime.settings.schema.find(SETTING).default == "Hello"
    session = omp_harness.session(script=script, runtime=runtime)
    assert result_text(omp_harness.run(session, "greet Ada")) == "Hi, Ada!"
    session = omp_harness.session(script=script, flags={FLAG: "Ahoy"})
    assert result_text(omp_harness.run(session, "greet Ada")) == "Ahoy, Ada!"
