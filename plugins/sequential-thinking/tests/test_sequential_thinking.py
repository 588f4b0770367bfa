"""The sequential-thinking plugin, in process, through the scripted provider."""

from __future__ import annotations

import asyncio
import json

import omp
import pytest
from omp import DeveloperMessage
from omp_sequential_thinking.tool import ThoughtParams

BLOCK_0 = (
    "Sequential thinking is required. You have recorded 0 thoughts, but need at "
    "least 3 thoughts before calling other tools."
)
INSTRUCTION_3 = (
    'You must use the "sequential_thinking" tool at least 3 times before calling '
    "other tools or completing the task."
)


def think(n: int, total: int = 3, **extra) -> dict:
    args = {
        "thought": f"step {n}",
        "thoughtNumber": n,
        "totalThoughts": total,
        "nextThoughtNeeded": n < total,
        **extra,
    }
    return {"tool_calls": [{"name": "sequential_thinking", "arguments": args}]}


def call(name: str, **arguments) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


class Requests:
    """Records what each provider request contained (the context hook sees it last)."""

    def __init__(self) -> None:
        self.seen: list[list] = []

    @omp.hookimpl(trylast=True)
    def omp_context(self, event):
        self.seen.append(list(event.messages))

    def developer_texts(self, index: int) -> list[str]:
        return [m.content for m in self.seen[index] if isinstance(m, DeveloperMessage)]


def tool_ends(events, name=None):
    return [e for e in events.of("tool_execution_end") if name is None or e.tool_name == name]


@pytest.fixture
def notes(omp_harness):
    (omp_harness.cwd / "notes.txt").write_text("pineapple\n")
    return omp_harness


def test_threshold_three_gives_exactly_three_thoughts_before_the_first_other_tool(notes):
    recorder = Requests()
    script = [think(1), think(2), think(3), call("read", path="notes.txt"), {"text": "done"}]
    session = notes.session([recorder], script=script, flags={"seq-thoughts": 3})
    events = notes.run(session, "Generate a simple calculator in typescript.")
    ends = tool_ends(events)
    assert [e.tool_name for e in ends] == ["sequential_thinking"] * 3 + ["read"]
    assert not any(e.is_error for e in ends)
    texts = [e.result["content"][0].text for e in ends[:3]]
    assert texts[0] == 'Thought #1 recorded: "step 1". nextThoughtNeeded: true.'
    assert texts[2] == 'Thought #3 recorded: "step 3". nextThoughtNeeded: false.'
    assert recorder.developer_texts(0) == [INSTRUCTION_3]  # while the threshold is not met
    assert recorder.developer_texts(3) == []  # after the third thought, no instruction
    assert events.final_text() == "done"


def test_a_tool_called_first_is_blocked_then_runs_after_three_thoughts(notes):
    script = [
        call("read", path="notes.txt"),
        {"choose": [{"when": BLOCK_0, **think(1)}, {"text": "the block never arrived"}]},
        think(2),
        think(3),
        call("read", path="notes.txt"),
        {"text": "done"},
    ]
    session = notes.session(script=script, flags={"seq-thoughts": 3})
    events = notes.run(session, "read my notes")
    reads = tool_ends(events, "read")
    assert reads[0].is_error and reads[0].result["content"][0].text == BLOCK_0
    assert len(tool_ends(events, "sequential_thinking")) == 3
    assert not reads[1].is_error and "pineapple" in reads[1].result["content"][0].text
    assert events.final_text() == "done"


def test_forced_next_thought_needed_even_when_the_model_says_false(notes):
    script = [think(1, total=1), think(2, total=2), think(3), {"text": "ok"}]
    session = notes.session(script=script, flags={"seq-thoughts": 3})
    events = notes.run(session, "go")
    first = tool_ends(events)[0]
    assert first.result["details"]["nextThoughtNeeded"] is True
    assert first.result["content"][0].text.endswith("nextThoughtNeeded: true.")


def test_a_plain_text_answer_gets_the_nudge_and_can_then_comply(notes):
    nudge = (
        "You must use the sequential_thinking tool. You have currently recorded 0 "
        "thoughts, but need at least 2 thoughts."
    )
    script = [
        {"text": "here is a calculator"},
        {"choose": [{"when": nudge, **think(1, 2)}, {"text": "no nudge seen"}]},
        think(2, 2),
        {"text": "thought it through"},
    ]
    session = notes.session(script=script, flags={"seq-thoughts": 2})
    events = notes.run(session, "go")
    users = [e.message.content for e in events.of("message_end") if e.message.role == "user"]
    assert users == ["go", nudge]
    assert events.final_text() == "thought it through"
    assert session.abort_message is None


def test_a_model_that_never_complies_stops_after_the_nudge_cap(notes):
    script = [{"text": f"answer {n}"} for n in range(10)]
    session = notes.session(script=script, flags={"seq-thoughts": 2})
    events = notes.run(session, "go")
    assistants = [e.message for e in events.of("message_end") if e.message.role == "assistant"]
    assert len(assistants) == 4  # the answer and one reply to each of the 3 nudges
    assert session.abort_message.startswith(
        "Stopped: the model did not comply with sequential thinking. It was reminded 3 times"
    )
    notices = [e.message for e in events.of("notice") if e.level == "error"]
    assert notices == [session.abort_message]


def test_the_nudge_cap_is_a_setting(notes):
    (notes.cwd / ".omp").mkdir()
    (notes.cwd / ".omp/settings.json").write_text(
        json.dumps({"sequentialThinking": {"maxNudges": 1, "forcedThoughts": 2}})
    )
    session = notes.session(script=[{"text": f"a{n}"} for n in range(5)])
    events = notes.run(session, "go")
    assert len([e for e in events.of("message_end") if e.message.role == "assistant"]) == 2
    assert "reminded 1 times" in session.abort_message


def test_seqthink_command_sets_reports_and_disables(notes):
    recorder = Requests()
    script = [
        call("read", path="notes.txt"),
        {"text": "blocked, so I stop"},
        {"text": "t"},
        {"text": "t"},
        {"text": "t"},
        call("read", path="notes.txt"),
        {"text": "free to read"},
    ]
    session = notes.session([recorder], script=script)
    events = notes.run(
        session, "/seqthink 5", "/seqthink", "read it", "/seqthink off", "read it again"
    )
    notices = [e.message for e in events.of("notice")]
    assert "sequential thinking: at least 5 thoughts per prompt" in notices
    assert (
        "sequential thinking: at least 5 thoughts per prompt; 0 recorded for the current prompt"
    ) in notices
    assert "sequential thinking: off" in notices
    reads = tool_ends(events, "read")
    assert reads[0].is_error and "need at least 5 thoughts" in reads[0].result["content"][0].text
    assert not reads[1].is_error  # after /seqthink off nothing is blocked
    assert "at least 5 times" in recorder.developer_texts(0)[0]
    assert all(recorder.developer_texts(i) == [] for i in range(5, len(recorder.seen)))


def test_seqthink_rejects_nonsense(notes):
    session = notes.session(script=[{"text": "x"}])
    events = notes.run(session, "/seqthink lots")
    assert [e.message for e in events.of("notice") if e.level == "error"] == [
        "usage: /seqthink [N|off] (got 'lots')"
    ]


def test_strings_for_numbers_and_booleans_are_coerced():
    params = ThoughtParams.model_validate(
        {
            "thought": "x",
            "thoughtNumber": "2",
            "totalThoughts": 3.0,
            "nextThoughtNeeded": "true",
            "isRevision": "false",
            "revisesThought": "1",
        }
    )
    assert (params.thoughtNumber, params.totalThoughts) == (2, 3)
    assert params.nextThoughtNeeded is True and params.isRevision is False
    assert params.revisesThought == 1


def test_description_and_schema_stay_small():
    from omp_sequential_thinking.tool import SequentialThinkingTool

    spec = SequentialThinkingTool(lambda ctx: None).spec()
    assert spec["description"] == (
        "A detailed tool for dynamic and reflective problem-solving through thoughts."
    )
    assert len(json.dumps(spec)) < 1200  # the MCP server's description alone is ~3,000 chars
    assert spec["parameters"]["required"] == [
        "thought",
        "thoughtNumber",
        "totalThoughts",
        "nextThoughtNeeded",
    ]


def test_revisions_and_branches_must_name_recorded_thoughts(notes):
    script = [
        think(1, 4),
        think(2, 4, isRevision=True, revisesThought=7),
        think(2, 4, isRevision=True, revisesThought=1),
        think(3, 4, branchFromThought=2, branchId="alt"),
        think(9, 4),
        {"text": "ok"},
    ]
    session = notes.session(script=script, flags={"seq-thoughts": 4})
    events = notes.run(session, "go")
    ends = tool_ends(events)
    assert ends[1].is_error
    assert (
        ends[1]
        .result["content"][0]
        .text.startswith("revisesThought 7 does not name a recorded thought (recorded: 1)")
    )
    assert not ends[2].is_error and ends[2].result["details"]["revisesThought"] == 1
    assert ends[3].result["details"]["branchId"] == "alt"
    odd = ends[4].result["details"]
    assert odd["outOfOrder"] is True and odd["expectedThoughtNumber"] == 4
    assert [e.result["details"]["recorded"] for e in ends if not e.is_error] == [1, 2, 3, 4]


def test_progress_resets_per_user_prompt_not_per_turn(notes):
    script = [
        think(1, 2),
        think(2, 2),
        {"text": "first done"},
        call("read", path="notes.txt"),
        {"text": "second"},
    ]
    session = notes.session(script=script, flags={"seq-thoughts": 2})
    events = notes.run(session, "one", "two")
    reads = tool_ends(events, "read")
    assert reads[0].is_error and "recorded 0 thoughts" in reads[0].result["content"][0].text


def test_off_means_no_instruction_and_no_block(notes):
    recorder = Requests()
    session = notes.session([recorder], script=[call("read", path="notes.txt"), {"text": "ok"}])
    events = notes.run(session, "go")
    assert not tool_ends(events, "read")[0].is_error
    assert all(not recorder.developer_texts(i) for i in range(len(recorder.seen)))


class Wake:
    """Starts a turn that is not a user prompt (as a plugin or the TUI's continue would)."""

    @omp.hookimpl
    def omp_session_start(self, api):
        api.send_message({"custom_type": "wake", "content": "carry on"}, trigger_turn=True)


def test_resume_keeps_the_progress_of_the_prompt_in_flight(notes):
    first = notes.session(
        script=[think(1), think(2), {"error": "connection reset"}],
        flags={"seq-thoughts": 3},
        no_session=False,
    )
    notes.run(first, "build it")
    path = first.session_file.path

    # the scripted provider answers request N with line N: three replies are history
    later = [{"text": "-"}] * 3 + [call("read", path="notes.txt"), {"text": "x"}]
    resumed = notes.session(
        [Wake()], script=later, flags={"seq-thoughts": 3}, session_path=str(path)
    )

    async def scenario():
        log = []
        resumed.subscribe(log.append)
        await resumed.start()
        await asyncio.sleep(0)
        await resumed.wait_for_idle()
        await resumed.prompt("/seqthink")
        await resumed.shutdown()
        return log

    log = asyncio.run(scenario())
    reads = [e for e in log if e.type == "tool_execution_end" and e.tool_name == "read"]
    assert reads[0].is_error
    assert "You have recorded 2 thoughts" in reads[0].result["content"][0].text
    status = [e.message for e in log if e.type == "notice"]
    assert status[-1].endswith("2 recorded for the current prompt")


def test_verbose_print_rendering_and_tree():
    from omp import TextContent, ToolExecutionEndEvent
    from omp_sequential_thinking.render import render_thought

    event = ToolExecutionEndEvent(
        tool_call_id="c",
        tool_name="sequential_thinking",
        result={
            "content": [TextContent(text="ok")],
            "details": {
                "thought": "check  the\nedge",
                "thoughtNumber": 2,
                "totalThoughts": 5,
                "revisesThought": 1,
            },
        },
    )
    assert render_thought(event, {"mode": "print"}) == ["thought 2/5: check the edge (revises #1)"]
    assert render_thought(event, {"mode": "tui"}) == ["↺ 2/5 check the edge (revises #1)"]


def test_the_history_kept_per_prompt_is_capped_by_a_setting(notes):
    from omp_sequential_thinking.plugin import state_of

    (notes.cwd / ".omp").mkdir()
    (notes.cwd / ".omp/settings.json").write_text(
        json.dumps({"sequentialThinking": {"maxHistory": 2}})
    )
    session = notes.session(
        script=[think(n, 4) for n in range(1, 5)] + [{"text": "ok"}], flags={"seq-thoughts": 4}
    )
    seen = {}

    class Peek:
        @omp.hookimpl
        def omp_agent_end(self, ctx):
            state = state_of(ctx)
            seen.update(recorded=state.recorded, kept=[t.number for t in state.history])

    session.dispatcher.pm.register(Peek())
    notes.run(session, "go")
    assert seen == {"recorded": 4, "kept": [3, 4]}


def test_branching_back_rebuilds_the_progress_of_that_branch(notes):
    from omp import Command
    from omp_sequential_thinking.plugin import state_of

    class Back:
        @omp.hookimpl
        def omp_register_commands(self, api):
            async def handler(args, ctx):
                entries = ctx.session.branch_entries()
                second = [
                    e
                    for e in entries
                    if e["type"] == "message" and e["message"]["role"] == "toolResult"
                ][1]
                await ctx.branch(second["id"])
                Back.after = state_of(ctx).recorded

            return [Command("back", "branch back to the second thought", handler)]

    script = [think(1), think(2), think(3), {"text": "done"}]
    session = notes.session([Back()], script=script, flags={"seq-thoughts": 3})
    notes.run(session, "go", "/back")
    assert Back.after == 2


def test_two_sessions_in_one_process_never_share_thinking_state(notes):
    """ACP serves several sessions from one runtime: each keeps its own threshold,
    thoughts and session entries (a /seqthink in one never lands in the other's file)."""
    # One runtime (as ACP has) means one scripted provider and one script for both.
    script = [
        {"choose": [{"when": "think, then read", **think(1)}, call("read", path="notes.txt")]},
        {"choose": [{"when": "Thought #1 recorded", **think(2)}, {"text": "b"}]},
        call("read", path="notes.txt"),
        {"text": "a"},
    ]
    runtime = notes.runtime()
    first = notes.session(runtime=runtime, script=script, no_session=False)
    second = notes.session(runtime=runtime, script=script, no_session=False)

    async def scenario():
        logs = {first: [], second: []}
        for session in (first, second):
            session.subscribe(logs[session].append)
            await session.start()
        await first.prompt("/seqthink 3")
        await first.prompt("think, then read")
        await second.prompt("/seqthink")
        await second.prompt("read it")
        await second.prompt("/seqthink 1")
        await second.prompt("read it again")
        await first.prompt("/seqthink")
        for session in (first, second):
            await session.shutdown()
        return logs

    logs = asyncio.run(scenario())

    def reads(session):
        return [
            e for e in logs[session] if e.type == "tool_execution_end" and e.tool_name == "read"
        ]

    def notices(session):
        return [
            e.message
            for e in logs[session]
            if e.type == "notice" and e.message.startswith("sequential thinking")
        ]

    assert reads(first)[0].is_error
    assert "You have recorded 2 thoughts" in reads(first)[0].result["content"][0].text
    assert not reads(second)[0].is_error  # the other session's threshold does not apply
    assert reads(second)[1].is_error  # and the other session's thoughts do not count
    assert "You have recorded 0 thoughts" in reads(second)[1].result["content"][0].text
    assert notices(second)[0] == "sequential thinking is off"
    assert notices(first)[-1].endswith("2 recorded for the current prompt")

    def thresholds(session):
        lines = session.session_file.path.read_text().splitlines()
        entries = [json.loads(line) for line in lines if line.strip()]
        return [
            e["data"]["value"]
            for e in entries
            if e.get("customType") == "sequential-thinking" and e["data"]["kind"] == "threshold"
        ]

    assert thresholds(first) == [3]
    assert thresholds(second) == [1]
