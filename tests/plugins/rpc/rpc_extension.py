"""A test extension loaded with ``-e``: tools the RPC tests drive through the model."""

import asyncio
import sys

import omp
from pydantic import BaseModel


class NoArgs(BaseModel):
    pass


class SlowArgs(BaseModel):
    n: int = 0
    seconds: float = 0.6


@omp.hookimpl
def omp_register_tools(api):
    from omp.tools import Tool, ToolResult

    def big(call_id, params, signal, on_update, ctx):
        # 3 MiB of text with multi-byte characters, so a lossy transport would show.
        return ToolResult.text(("abcdé€😀\n" * 250_000)[: 3 * 1024 * 1024 // 2])

    async def slow(call_id, params, signal, on_update, ctx):
        await asyncio.sleep(params.seconds)
        return ToolResult.text(f"slow {params.n} finished")

    async def ask(call_id, params, signal, on_update, ctx):
        confirmed = await ctx.ui.confirm("Proceed?", "Really go on?", timeout=30)
        return ToolResult.text(f"confirmed={confirmed}")

    return [
        Tool(name="big", description="A huge result", parameters=NoArgs, execute=big),
        Tool(name="slow", description="Takes a while", parameters=SlowArgs, execute=slow),
        Tool(name="ask", description="Asks the user", parameters=NoArgs, execute=ask),
    ]


@omp.hookimpl
def omp_session_start(ctx):
    print("a plugin printing to stdout must not corrupt the protocol")
    sys.stdout.flush()
