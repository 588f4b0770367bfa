"""Sequential thinking: a ``sequential_thinking`` tool and active enforcement of a number
of thoughts before the model may do anything else.

Controls: ``--seq-thoughts N``, ``/seqthink [N|off]`` and the setting
``sequentialThinking.forcedThoughts``. While the threshold is above zero and not yet
met for the prompt in flight:

1. context - each provider request gets a developer instruction (that request only);
2. tool_call - any other tool is blocked with a reason the model reads;
3. tool_execution_end - a successful sequential_thinking call counts as a thought;
4. message_end - an assistant message that tries to finish without thinking gets a
   follow-up nudge; after ``sequentialThinking.maxNudges`` (default 3) the run stops
   with a message saying the model did not comply.

Progress resets when a new *user prompt* starts (before_agent_start), not on
turn_start: omp fires turn_start for every model call inside one prompt, so resetting
there would zero the count after every single thought and the threshold could never
be met. State lives in ``ctx.state`` (one per session, never a module global: ACP and
the SDK run several sessions in one process) and is rebuilt from the session's entries
on start and on branch (see state.py), so a resumed session keeps the progress of the
prompt in flight.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import omp
from omp import Command, Flag, Renderer, SettingSpec

from omp_sequential_thinking.names import ENTRY_TYPE, NUDGE_PREFIX, TOOL_NAME

if TYPE_CHECKING:
    from omp_sequential_thinking.state import ThinkingState

STATE_KEY = "sequential-thinking"
DEFAULT_MAX_NUDGES = 3
DEFAULT_MAX_HISTORY = 64


def _config(ctx: Any) -> dict[str, Any]:
    section = ctx.settings.get("sequentialThinking") if ctx is not None else None
    return section if isinstance(section, dict) else {}


def _rebuild(ctx: Any) -> ThinkingState:
    """The state of the session's current branch: the setting, then the branch's own
    entries, then this run's --seq-thoughts (which wins without resetting progress)."""
    from omp_sequential_thinking.state import ThinkingState, rebuild

    config = _config(ctx)
    base = ThinkingState(
        threshold=max(0, int(config.get("forcedThoughts", 0) or 0)),
        max_history=int(config.get("maxHistory", DEFAULT_MAX_HISTORY)),
    )
    state = rebuild(ctx.session.branch_entries(), base)
    flag = ctx.api.get_flag("seq-thoughts")
    if flag is not None:
        state.threshold = max(0, int(flag))
    ctx.state[STATE_KEY] = state
    return state


def state_of(ctx: Any) -> ThinkingState:
    """This session's state; built from the session if session_start has not run yet."""
    if ctx is None:
        from omp_sequential_thinking.state import ThinkingState

        return ThinkingState()
    state = ctx.state.get(STATE_KEY)
    return state if state is not None else _rebuild(ctx)


def instruction(threshold: int) -> str:
    return (
        f'You must use the "sequential_thinking" tool at least {threshold} times before '
        "calling other tools or completing the task."
    )


def block_reason(state: ThinkingState) -> str:
    return (
        f"Sequential thinking is required. You have recorded {state.recorded} thoughts, "
        f"but need at least {state.threshold} thoughts before calling other tools."
    )


def nudge(state: ThinkingState) -> str:
    return (
        f"{NUDGE_PREFIX} You have currently recorded {state.recorded} thoughts, but need "
        f"at least {state.threshold} thoughts."
    )


# -- registration --------------------------------------------------------------------


@omp.hookimpl
def omp_register_flags(api):
    return [
        Flag(
            "seq-thoughts",
            "Make the model record at least N sequential_thinking "
            "thoughts per prompt before it may use other tools",
            "integer",
            metavar="N",
        )
    ]


@omp.hookimpl
def omp_register_tools(api):
    from omp_sequential_thinking.tool import SequentialThinkingTool

    return [SequentialThinkingTool(state_of)]


@omp.hookimpl
def omp_register_commands(api):
    def handler(args: str, ctx: Any) -> None:
        _seqthink(args, ctx)

    return [
        Command(
            "seqthink",
            "Require N sequential thoughts per prompt (off disables); "
            "alone, show the threshold and progress",
            handler,
            "[N|off]",
        )
    ]


@omp.hookimpl
def omp_register_renderers(api):
    from omp_sequential_thinking.render import render_thought

    return [Renderer("tool", TOOL_NAME, render_thought)]


def _seqthink(args: str, ctx: Any) -> None:
    state = state_of(ctx)
    value = args.strip().lower()
    if not value:
        if state.threshold == 0:
            ctx.ui.notify("sequential thinking is off")
        else:
            ctx.ui.notify(
                f"sequential thinking: at least {state.threshold} thoughts per "
                f"prompt; {state.recorded} recorded for the current prompt"
            )
        return
    if value in ("off", "0"):
        threshold = 0
    elif value.isdigit():
        threshold = int(value)
    else:
        ctx.ui.notify(f"usage: /seqthink [N|off] (got {args.strip()!r})", "error")
        return
    state.set_threshold(threshold)
    # ctx.api, not the registration api: that one follows the most recent session.
    ctx.api.append_entry(ENTRY_TYPE, {"kind": "threshold", "value": threshold})
    message = "off" if threshold == 0 else f"at least {threshold} thoughts per prompt"
    ctx.ui.notify(f"sequential thinking: {message}")


# -- lifecycle -----------------------------------------------------------------------


@omp.hookimpl
def omp_session_start(ctx):
    _rebuild(ctx)


@omp.hookimpl
def omp_session_branch(ctx):
    _rebuild(ctx)


@omp.hookimpl
def omp_before_agent_start(ctx, api):
    state = state_of(ctx)
    state.new_prompt()
    if state.threshold > 0:
        api.append_entry(ENTRY_TYPE, {"kind": "prompt"})


# -- enforcement ---------------------------------------------------------------------


@omp.hookimpl
def omp_context(event, ctx):
    state = state_of(ctx)
    if not state.enforcing:
        return None
    from omp import DeveloperMessage

    # Appending in place leaves the earlier messages unread, so none of them is copied.
    event.messages.append(DeveloperMessage(content=instruction(state.threshold)))
    return None


@omp.hookimpl
def omp_tool_call(event, ctx):
    state = state_of(ctx)
    if state.enforcing and event.tool_name != TOOL_NAME:
        return {"block": True, "reason": block_reason(state)}
    return None


@omp.hookimpl
def omp_tool_execution_end(event, ctx):
    if event.tool_name != TOOL_NAME or event.is_error:
        return
    details = (event.result or {}).get("details")
    if isinstance(details, dict):
        from omp_sequential_thinking.state import Thought

        state_of(ctx).record(Thought.from_details(details))


@omp.hookimpl
def omp_message_end(event, ctx, api):
    message = event.message
    if message.role != "assistant" or message.stop_reason in ("error", "aborted"):
        return
    state = state_of(ctx)
    if not state.enforcing or message.tool_calls:
        return  # other tool calls are blocked with their own reason
    max_nudges = int(_config(ctx).get("maxNudges", DEFAULT_MAX_NUDGES))
    if state.nudges < max_nudges:
        state.nudges += 1
        api.send_user_message(nudge(state), deliver_as="followUp")
        return
    ctx.abort(
        f"Stopped: the model did not comply with sequential thinking. It was reminded "
        f"{state.nudges} times to use the sequential_thinking tool but recorded "
        f"{state.recorded} of the {state.threshold} required thoughts."
    )


@omp.hookimpl
def omp_register_settings(api):
    return [
        SettingSpec(
            "sequentialThinking.forcedThoughts",
            "integer",
            0,
            "thoughts required before anything else (0: off)",
            minimum=0,
        ),
        SettingSpec(
            "sequentialThinking.maxNudges",
            "integer",
            DEFAULT_MAX_NUDGES,
            "reminders before the run stops",
            minimum=0,
        ),
        SettingSpec(
            "sequentialThinking.maxHistory",
            "integer",
            DEFAULT_MAX_HISTORY,
            "thoughts kept per session",
            minimum=1,
        ),
    ]
