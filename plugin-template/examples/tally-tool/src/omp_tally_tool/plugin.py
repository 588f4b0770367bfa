"""The ``tally`` tool counts things the model reports, per session: the counts live in
``ctx.state`` (never in module globals), so two sessions in one process never share
them and a new, resumed or forked session starts from zero. ``/tally`` shows them."""

from __future__ import annotations

from collections import Counter
from typing import Any

import omp
from omp import Command, Tool, ToolResult
from pydantic import BaseModel, Field

STATE_KEY = "tally-tool"


class TallyParams(BaseModel):
    item: str = Field(description="What to count one more of.")


def counts(ctx: Any) -> Counter[str]:
    return ctx.state.setdefault(STATE_KEY, Counter())


def tally(call_id: str, params: TallyParams, signal: Any, on_update: Any, ctx: Any) -> ToolResult:
    tallied = counts(ctx)
    tallied[params.item] += 1
    return ToolResult.text(f"{params.item}: {tallied[params.item]}", details=dict(tallied))


async def show(args: str, ctx: Any) -> None:
    tallied = counts(ctx)
    text = ", ".join(f"{k}: {v}" for k, v in sorted(tallied.items())) or "nothing counted yet"
    ctx.ui.notify(text)


@omp.hookimpl
def omp_register_tools(api: Any) -> list[Tool]:
    return [
        Tool(
            name="tally",
            description="Count one more of an item.",
            parameters=TallyParams,
            execute=tally,
        )
    ]


@omp.hookimpl
def omp_register_commands(api: Any) -> list[Command]:
    return [Command("tally", "Show the counts of this session", show)]
