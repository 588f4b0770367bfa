"""The example tool. Its state lives in ``ctx.state`` (this session's), never in a
module global, so two sessions in one process never share it."""

from __future__ import annotations

from typing import Any

from omp import Tool
from pydantic import BaseModel, Field

from omp_plugin_template.plugin import FLAG, PLUGIN, SETTING, TOOL


class HelloParams(BaseModel):
    name: str = Field(description="Who to greet")


def _hello(call_id: str, params: HelloParams, signal: Any, update: Any, ctx: Any) -> str:
    greeting = ctx.api.get_flag(FLAG) or ctx.settings.get(SETTING)
    state = ctx.state.setdefault(PLUGIN, {"greetings": 0})
    state["greetings"] += 1
    return f"{greeting}, {params.name}!"


def hello_tool() -> Tool:
    return Tool(
        name=TOOL,
        label="Hello",
        description="Greet someone by name.",
        parameters=HelloParams,
        execute=_hello,
    )
