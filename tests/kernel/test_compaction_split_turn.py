"""pi's split turns: when the cut falls inside a turn (one turn outgrew the keep-recent
budget), the turn's early part is summarised on its own, the history before the turn
separately, and the compaction's summary holds both."""

from __future__ import annotations

from omp_compaction.compaction import TokenCounter, prepare
from test_compaction import GOAL, Worker, _lines, _session, _settings

EARLIER = "Earlier: the user asked for a changelog entry first."


def _summary_for(conversation: str) -> dict:
    if "PREFIX of a turn" in conversation:
        return {"text": "## Original Request\nrename frobnicate (turn prefix)"}
    return {"text": "## Goal\nwrite the changelog (history)"}


def test_a_cut_inside_a_turn_summarises_history_and_turn_prefix_apart(omp_harness, tmp_path):
    _settings(omp_harness, reserveTokens=1000, keepRecentTokens=600, pruneToolOutputs=False)
    steps = [{"text": "changelog written"}]
    steps += [{"calls": [("big_read", {"n": n})]} for n in range(12)] + [{"text": "renamed"}]
    provider = Worker(steps, summary=_summary_for)
    path = tmp_path / "split.jsonl"
    session = _session(omp_harness, provider, path=path)
    log = omp_harness.run(session, EARLIER, GOAL)

    assert log.final_text() == "renamed"
    first_two = [provider.summary_requests[i].messages[0] for i in (0, 1)]
    texts = sorted(str(m.content) for m in first_two)
    assert any("PREFIX of a turn" in t and "frobnicate" in t for t in texts), texts
    assert any("changelog entry" in t and "PREFIX of a turn" not in t for t in texts), texts
    compaction = next(e for e in _lines(path) if e["type"] == "compaction")
    assert "(history)" in compaction["summary"] and "(turn prefix)" in compaction["summary"]
    assert "Turn Context (split turn)" in compaction["summary"]


def test_preparation_marks_the_split_and_keeps_whole_turns_apart():
    from omp.agent.messages import AssistantMessage, ToolResultMessage, UserMessage

    counter = TokenCounter()
    entries, messages = [], {}

    def add(message) -> None:
        entry = {"type": "message", "id": f"e{len(entries)}", "message": {"role": message.role}}
        messages[entry["id"]] = message
        entries.append(entry)

    add(UserMessage(content="old question " * 50))
    add(AssistantMessage(content=[{"type": "text", "text": "old answer " * 50}]))
    add(UserMessage(content="big task"))
    for n in range(6):
        call = {"type": "toolCall", "id": f"c{n}", "name": "bash", "arguments": {"n": n}}
        add(AssistantMessage(content=[call]))
        add(
            ToolResultMessage(
                tool_call_id=f"c{n}",
                tool_name="bash",
                content=[{"type": "text", "text": "x " * 200}],
            )
        )
    preparation = prepare(
        entries, lambda e: messages.get(e["id"]), counter, keep_recent=300, force=False
    )
    assert preparation is not None and preparation.is_split_turn
    assert [m.role for m in preparation.messages] == ["user", "assistant"]
    assert preparation.turn_prefix[0].content == "big task"
    assert preparation.public()["turn_prefix_messages"] == preparation.turn_prefix


def test_a_second_split_of_the_same_turn_merges_its_turn_context_instead_of_stacking():
    from omp.agent.messages import UserMessage
    from omp_compaction.compaction import Preparation
    from omp_compaction.compaction_prompt import (
        SPLIT_TURN_HEADING,
        join_split_summary,
        split_previous,
        turn_prefix_prompt,
    )

    previous = join_split_summary("## Goal\nhistory", "## Original Request\nfirst part")
    history, earlier = split_previous(previous)
    assert history == "## Goal\nhistory" and earlier == "## Original Request\nfirst part"
    preparation = Preparation("e9", [], previous, turn_prefix=[UserMessage(content="more")])
    prompt = turn_prefix_prompt(preparation)
    assert "first part" in prompt and "<previous-summary>" in prompt
    assert join_split_summary(history, "merged").count(SPLIT_TURN_HEADING) == 1
