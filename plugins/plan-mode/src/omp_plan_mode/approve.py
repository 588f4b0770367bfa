"""The end of a planning prompt: when the model wrote the plan, the user decides."""

from __future__ import annotations

from typing import Any

from omp_plan_mode.state import leave, plan_mtime, plan_path, state_of

TITLE = "Plan mode - next step"
APPROVE, EDIT, REFINE, REJECT = "Approve and execute", "Edit plan", "Refine plan", "Reject"


async def review(ctx: Any, api: Any) -> None:
    state = state_of(ctx)
    path = plan_path(ctx)
    mtime = plan_mtime(path)
    if not state.enabled or mtime is None or mtime == state.plan_mtime:
        return  # not planning, or the model did not write the plan in this prompt
    state.plan_mtime = mtime
    if not ctx.has_ui:
        ctx.ui.notify(f"Plan written to {path}; /plan leaves plan mode to carry it out.")
        return
    while True:
        choice = await ctx.ui.select(TITLE, [APPROVE, EDIT, REFINE, REJECT])
        if choice == EDIT:
            edited = await ctx.ui.editor("Edit plan", path.read_text(encoding="utf-8"))
            if edited is not None:
                path.write_text(edited, encoding="utf-8")
                state.plan_mtime = plan_mtime(path)
            continue
        break
    if choice == APPROVE:
        plan = path.read_text(encoding="utf-8")
        leave(ctx, api)
        ctx.ui.notify("Plan approved: full tool set restored.")
        api.send_user_message("Execute this plan:\n" + plan)
    elif choice == REFINE:
        feedback = await ctx.ui.input("How should the plan change?")
        if feedback:
            api.send_user_message(feedback)
    else:
        ctx.ui.notify(f"Plan not approved; still in plan mode (the plan is at {path}).")
