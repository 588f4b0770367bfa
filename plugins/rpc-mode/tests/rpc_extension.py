"""A test extension loaded with ``-e``: tools the RPC tests drive through the model."""

import asyncio
import sys

import omp
from pydantic import BaseModel


class NoArgs(BaseModel):
    pass


class AskArgs(BaseModel):
    timeout: float = 30


class SlowArgs(BaseModel):
    n: int = 0
    seconds: float = 0.6


@omp.hookimpl
def omp_register_tools(api):
    from omp import Tool, ToolResult

    def big(call_id, params, signal, on_update, ctx):
        # 3 MiB of text with multi-byte characters, so a lossy transport would show.
        return ToolResult.text(("abcdé€😀\n" * 250_000)[: 3 * 1024 * 1024 // 2])

    async def slow(call_id, params, signal, on_update, ctx):
        await asyncio.sleep(params.seconds)
        return ToolResult.text(f"slow {params.n} finished")

    async def ask(call_id, params, signal, on_update, ctx):
        ctx.ui.notify("asking now", "warning")
        ctx.ui.set_status("phase", "asking")
        ctx.ui.set_widget("todo", ["one", "two"])
        ctx.ui.set_editor_text("draft text")
        confirmed = await ctx.ui.confirm(
            "Proceed?", "Really go on?", timeout=params.timeout, signal=signal
        )
        ctx.ui.set_status("phase", None)
        ctx.ui.set_widget("todo", None)
        return ToolResult.text(f"confirmed={confirmed} has_ui={ctx.has_ui}")

    async def dialogs(call_id, params, signal, on_update, ctx):
        options = [{"label": "red", "description": "warm"}, "blue"]
        picked = await ctx.ui.select("Pick one", options, timeout=30, signal=signal)
        typed = await ctx.ui.input("Branch name", "feature/...", signal=signal)
        edited = await ctx.ui.editor("Edit message", "draft", signal=signal)
        ctx.ui.set_title("a title for the host")
        return ToolResult.text(f"picked={picked} typed={typed} edited={edited}")

    return [
        Tool(name="dialogs", description="Asks three ways", parameters=NoArgs, execute=dialogs),
        Tool(name="big", description="A huge result", parameters=NoArgs, execute=big),
        Tool(name="slow", description="Takes a while", parameters=SlowArgs, execute=slow),
        Tool(name="ask", description="Asks the user", parameters=AskArgs, execute=ask),
    ]


@omp.hookimpl
def omp_session_start(ctx):
    print("a plugin printing to stdout must not corrupt the protocol")
    sys.stdout.flush()


@omp.hookimpl
def omp_register_commands(api):
    from omp import Command

    def kick(args, ctx):  # schedules a turn that starts after the command returns
        api.send_user_message(f"kicked {args}")

    def bye(args, ctx):
        ctx.shutdown()

    def boom(args, ctx):
        raise RuntimeError("the command is broken")

    return [
        Command("kick", "Hand the agent a message", kick),
        Command("bye", "End the session (ctx.shutdown)", bye),
        Command("boom", "Always fails", boom),
    ]


@omp.hookimpl
async def omp_session_before_compact(event, ctx):
    # Asks while the compact command holds the command queue: the answer must get through.
    if event.custom_instructions != "ASK_FIRST":
        return None
    confirmed = await ctx.ui.confirm("Compact?", "Summarise the conversation?", timeout=20)
    return None if confirmed else {"cancel": True}


@omp.hookimpl
def omp_input(event):
    if event.text.startswith("HOOKFAIL"):
        raise RuntimeError("the test hook failed")


@omp.hookimpl
def omp_tool_call(event):
    if event.tool_name == "forbidden_host":
        return {"block": True, "reason": "blocked by the test hook"}
