"""compaction.autoContinue (after an overflow compaction the failed request is sent
again, as omp continues; off, the run stops there) and tool-output pruning (old tool
results beyond a budget become a placeholder in what the model is sent, never in the
session file)."""

from __future__ import annotations

import json

from omp.agent.messages import content_text
from test_compaction import GOAL, BigRead, Worker, _lines, _session, _settings
from test_compaction_overflow import APIS, SECRET, SSE


def _overflow_session(omp_harness, replay_server, monkeypatch, tmp_path):
    reply, overflow = APIS["openai-completions"]
    provider = {
        "baseUrl": replay_server.url + "/v1",
        "api": "openai-completions",
        "apiKey": "PROXY_KEY",
        "models": [{"id": "coder", "contextWindow": 200000}],
    }
    (omp_harness.agent_dir / "models.json").write_text(
        json.dumps({"providers": {"proxy": provider}})
    )
    monkeypatch.setenv("PROXY_KEY", SECRET)
    replay_server.add(reply("first answer"), headers=SSE)
    replay_server.add(json.dumps(overflow), status=400)
    replay_server.add(reply("## Goal\nwhat the user said first"), headers=SSE)
    replay_server.add(reply("answered after compaction"), headers=SSE)
    path = tmp_path / "overflow.jsonl"
    return omp_harness.session(model="proxy/coder", session_path=path), path


def test_auto_continue_off_compacts_but_does_not_resend(
    omp_harness, replay_server, monkeypatch, tmp_path
):
    _settings(omp_harness, autoContinue=False)
    session, path = _overflow_session(omp_harness, replay_server, monkeypatch, tmp_path)
    log = omp_harness.run(session, "first question", "second question")

    assert len(replay_server.requests) == 3  # answer, overflow, summary: no resend
    (end,) = log.of("auto_compaction_end")
    assert end.result is not None and end.will_retry is False
    assert [e["type"] for e in _lines(path)].count("compaction") == 1
    notices = [e.message for e in log.of("notice")]
    assert any("autoContinue" in n for n in notices), notices


def test_auto_continue_on_by_default_resends(omp_harness, replay_server, monkeypatch, tmp_path):
    session, _ = _overflow_session(omp_harness, replay_server, monkeypatch, tmp_path)
    log = omp_harness.run(session, "first question", "second question")
    assert log.final_text() == "answered after compaction"
    assert len(replay_server.requests) == 4


PLACEHOLDER = "[Output truncated - "


def _pruned_texts(context) -> list[str]:
    return [
        content_text(m.content)
        for m in context.messages
        if m.role == "toolResult" and content_text(m.content).startswith(PLACEHOLDER)
    ]


def test_old_tool_outputs_are_pruned_in_the_request_not_in_the_file(omp_harness, tmp_path):
    # Each big_read result is ~270 tokens; protect ~600 tokens of the newest outputs.
    _settings(
        omp_harness,
        reserveTokens=1000,
        keepRecentTokens=600,
        pruneProtectTokens=600,
        pruneMinimumTokens=300,
    )
    steps = [{"calls": [("big_read", {"n": n})]} for n in range(12)] + [{"text": "renamed"}]
    provider = Worker(steps)
    path = tmp_path / "long.jsonl"
    session = _session(omp_harness, provider, path=path)
    log = omp_harness.run(session, GOAL)

    assert log.final_text() == "renamed"
    pruned = [_pruned_texts(c) for c in provider.requests]
    assert any(pruned), "no request had a pruned tool output"
    last = provider.requests[-1]
    results = [m for m in last.messages if m.role == "toolResult"]
    assert "lorem ipsum" in content_text(results[-1].content)  # the newest stays whole
    # The file keeps every output in full.
    outputs = [
        e["message"]
        for e in _lines(path)
        if e["type"] == "message" and e["message"]["role"] == "toolResult"
    ]
    assert len(outputs) == 12
    assert all("lorem ipsum" in json.dumps(m) for m in outputs)


def test_pruning_can_be_switched_off(omp_harness, tmp_path):
    _settings(
        omp_harness,
        reserveTokens=1000,
        keepRecentTokens=600,
        pruneToolOutputs=False,
        pruneProtectTokens=600,
        pruneMinimumTokens=300,
    )
    steps = [{"calls": [("big_read", {"n": n})]} for n in range(12)] + [{"text": "renamed"}]
    provider = Worker(steps)
    session = _session(omp_harness, provider, path=tmp_path / "s.jsonl")
    omp_harness.run(session, GOAL)
    assert not any(_pruned_texts(c) for c in provider.requests)


def test_read_results_are_never_pruned(omp_harness, tmp_path):
    from omp.agent.messages import ToolResultMessage
    from omp_compaction.compaction import TokenCounter
    from omp_compaction.pruning import prune_tool_outputs

    def result(name: str, n: int) -> ToolResultMessage:
        return ToolResultMessage(
            tool_call_id=f"c{n}",
            tool_name=name,
            content=[{"type": "text", "text": "word " * 400}],
            is_error=False,
        )

    messages = [result("read", 0), result("big_read", 1), *(result("bash", n) for n in range(2, 6))]
    pruned, saved = prune_tool_outputs(messages, TokenCounter(), protect=800, minimum=100)
    assert saved > 0
    assert pruned[0] is messages[0]
    assert content_text(pruned[1].content).startswith(PLACEHOLDER)
    assert pruned[-1] is messages[-1]
    assert BigRead.name == "big_read"
