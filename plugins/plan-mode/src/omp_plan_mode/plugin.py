"""Entry module of omp-plan-mode: only the hooks, cheap to import (``omp --help`` loads it).

``--plan`` starts a session in plan mode and ``/plan`` toggles it. While planning the
model is offered the read-only tools and ``write``, which may write only the plan file
(``<session folder>/plan.md``); every other call is blocked in ``omp_tool_call`` with
"plan mode is read-only", a third-party tool too unless it is marked ``read_only =
True``. A note in the system prompt says where the plan goes. When a prompt ends with
the plan written, the user approves (the full tool set returns and the plan is sent
as the next prompt), edits, refines or rejects it. Other plugins (ACP's session mode)
switch it through the event bus: ``api.events.emit("plan-mode.set", {"enabled": bool,
"session_id": id})``, and hear every change as ``plan-mode.changed`` (same fields).
"""

from __future__ import annotations

from typing import Any

import omp
from omp import Command, Flag

BUS_KEY = "omp-plan-mode.bus"


@omp.hookimpl
def omp_register_flags(api: Any) -> list[Flag]:
    return [Flag("plan", "Start in plan mode: read-only tools until you approve the plan")]


@omp.hookimpl
def omp_register_commands(api: Any) -> list[Command]:
    def toggle(args: str, ctx: Any) -> None:
        from omp_plan_mode.state import state_of

        _switch(ctx, api, not state_of(ctx).enabled)

    return [Command("plan", "Toggle plan mode (read-only tools; the model writes a plan)", toggle)]


def _switch(ctx: Any, api: Any, on: bool) -> None:
    from omp_plan_mode.state import enter, leave, plan_path

    if on:
        enter(ctx, api)
        ctx.ui.notify(f"Plan mode on: read-only tools; the plan goes to {plan_path(ctx)}")
    else:
        leave(ctx, api)
        ctx.ui.notify("Plan mode off: full tool set restored.")


@omp.hookimpl
def omp_session_start(event: Any, ctx: Any, api: Any) -> None:
    from omp_plan_mode.state import enter, state_of

    state = state_of(ctx)
    if state.enabled or (event.reason == "startup" and api.get_flag("plan")):
        enter(ctx, api)

    def on_set(data: Any) -> None:
        if not isinstance(data, dict) or data.get("session_id", ctx.session.session_id) != (
            ctx.session.session_id
        ):
            return  # the bus is the process's: another session's switch
        if bool(data.get("enabled")) != state_of(ctx).enabled:
            _switch(ctx, api, bool(data.get("enabled")))

    ctx.state[BUS_KEY] = api.events.on("plan-mode.set", on_set)


@omp.hookimpl
def omp_session_shutdown(ctx: Any) -> None:
    unsubscribe = ctx.state.pop(BUS_KEY, None)
    if unsubscribe is not None:
        unsubscribe()


@omp.hookimpl
def omp_tool_call(event: Any, ctx: Any, api: Any) -> Any:
    from omp_plan_mode.state import state_of

    if not state_of(ctx).enabled:
        return None
    from omp_plan_mode.guard import blocked

    reason = blocked(ctx, api, event.tool_name, event.input)
    return {"block": True, "reason": reason} if reason else None


@omp.hookimpl
def omp_before_agent_start(event: Any, ctx: Any, api: Any) -> Any:
    from omp_plan_mode.state import plan_mtime, plan_path, planning_tools, state_of

    state = state_of(ctx)
    if not state.enabled:
        return None
    api.set_active_tools(planning_tools(api))  # tools registered since come in active
    path = plan_path(ctx)
    state.plan_mtime = plan_mtime(path)
    return {"system_prompt": [*event.system_prompt, note(str(path))]}


def note(path: str) -> str:
    return (
        "Plan mode is active. The working tree is read-only: do not create, edit, delete "
        "or rename files, and run nothing that changes the system. Explore with the "
        "read-only tools (read, grep, find, ls), then write your plan to "
        f"{path} with the write tool - the only file you may write. The plan is an "
        "execution spec: every step, file and decision, so that it can be carried out "
        "top to bottom without further design choices. When it is written, stop: the "
        "user approves, edits or rejects it."
    )


@omp.hookimpl
async def omp_agent_end(event: Any, ctx: Any, api: Any) -> None:
    from omp_plan_mode.approve import review

    await review(ctx, api)
