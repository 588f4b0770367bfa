"""When the turn a compaction must keep is alone too big (issue 24, item 7): no summary
on top of it (that made the context bigger: "52,515 -> 68,441 tokens"), its largest
tool results move to artifacts with a pointer the model can read back, and a turn that
cannot fit even so stops the run with one line naming it, its size and the window."""

from __future__ import annotations

import json
import re

from doubles import Contribute, reply_events
from omp.agent.messages import content_text
from omp.agent.providers import AssistantStream, Model, Provider
from omp.agent.tools import Tool, ToolResult
from pydantic import BaseModel

GOAL = "Goal: collect the three reports."
CALLS = 1500


class Params(BaseModel):
    n: int = 0
    words: int = 6000


class Report(Tool):
    name = "report"
    description = "Print a report"
    parameters = Params

    def execute(self, tool_call_id, params, signal, on_update, ctx):
        return ToolResult.text(f"REPORT {params.n} BEGIN " + "figure " * params.words + "END")


class Model16k(Provider):
    """A 16,000-token model answering each request with ``steps[i](context)`` (a reply
    dict for ``doubles.reply_events``); summary requests get a short summary."""

    name = "test"
    api = "test"

    def __init__(self, steps, window=16_000) -> None:
        super().__init__([Model(provider="test", id="model", api="test", context_window=window)])
        self.steps = list(steps)
        self.requests: list = []

    async def stream(self, model, context, options):
        out = AssistantStream(model)
        yield out.start()
        first = content_text(context.messages[0].content) if context.messages else ""
        if "<conversation>" in first:
            reply = {"text": "## Goal\ncollect the reports"}
        else:
            self.requests.append(context)
            reply = self.steps.pop(0)(context) if self.steps else {"text": "done"}
        for event in reply_events(out, reply, len(self.requests)):
            yield event


def _settings(harness, **compaction) -> None:
    settings = {"compaction": {"reserveTokens": 1000, **compaction}}
    (harness.agent_dir / "settings.json").write_text(json.dumps(settings))


def _session(harness, provider, path):
    return harness.session(
        [Contribute([provider], [Report()])], model="test/model", session_path=path
    )


def _results(context) -> list[str]:
    return [content_text(m.content) for m in context.messages if m.role == "toolResult"]


def test_the_largest_results_of_an_oversize_turn_move_to_artifacts_and_read_back(
    omp_harness, tmp_path
):
    _settings(omp_harness)
    calls = {"calls": [("report", {"n": n}) for n in range(3)]}  # 3 x ~6,000 tokens

    def read_the_pointer(context):
        pointers = [re.search(r"artifact://\S+?\.txt", r) for r in _results(context)]
        return {"calls": [("read", {"path": next(p.group(0) for p in pointers if p)})]}

    def answer(context):
        return {"text": _results(context)[-1][:40]}

    provider = Model16k([lambda _: calls, read_the_pointer, answer])
    path = tmp_path / "fit.jsonl"
    log = omp_harness.run(_session(omp_harness, provider, path), GOAL)

    second = _results(provider.requests[1])
    moved = [r for r in second if r.startswith("[Output moved to artifact://")]
    assert 1 <= len(moved) < 3, second
    assert "read tool" in moved[0] and "tokens" in moved[0]
    assert not log.of("auto_compaction_start")  # moving them was enough: no summary
    (read,) = [e for e in log.of("tool_execution_end") if e.tool_name == "read"]
    assert not read.is_error
    assert "REPORT" in log.final_text() and "figure figure" in log.final_text()
    notices = [n.message for n in log.of("notice") if n.level == "warning"]
    assert any("to artifacts" in n for n in notices), notices
    # the session file keeps every output whole
    text = path.read_text()
    assert text.count("figure " * 6000) == 3
    assert "[Output moved to" not in text


def test_compaction_never_reports_a_bigger_context(omp_harness, tmp_path):
    from omp_compaction.compaction import TokenCounter, context_tokens

    _settings(omp_harness, pruneToolOutputs=False)
    calls = {"calls": [("report", {"n": n, "words": 700}) for n in range(30)]}  # ~21,000
    provider = Model16k([lambda _: calls, lambda _: {"text": "collected"}])
    log = omp_harness.run(_session(omp_harness, provider, tmp_path / "s.jsonl"), "go")

    assert log.final_text() == "collected"
    for end in log.of("auto_compaction_end"):
        assert end.result["tokensAfter"] <= end.result["tokensBefore"], end.result
    second = provider.requests[1]
    assert context_tokens(second.system_prompt, second.messages, TokenCounter()) < 15_000


def test_a_turn_that_cannot_fit_stops_the_run_with_one_line(omp_harness, tmp_path):
    _settings(omp_harness)
    calls = {"calls": [("report", {"n": n, "words": 2}) for n in range(CALLS)]}
    provider = Model16k([lambda _: calls, lambda _: {"text": "never"}])
    path = tmp_path / "big.jsonl"
    session = _session(omp_harness, provider, path)
    log = omp_harness.run(session, "run the reports in parallel")

    assert len(provider.requests) == 1  # the oversize context was never sent
    assert log.final_text() != "never"
    errors = [n.message for n in log.of("notice") if n.level == "error"]
    assert len(errors) == 1 and "\n" not in errors[0]
    message = errors[0]
    assert 'the turn of the prompt "run the reports in parallel"' in message
    assert f"{CALLS:,} tool calls" in message and "16,000-token window" in message
    assert re.search(r"needs [\d,]+ tokens", message)
    assert session.abort_message == message
    assert not [
        e for e in map(json.loads, path.read_text().splitlines()) if e["type"] == "compaction"
    ]


def test_a_long_answer_before_a_new_prompt_is_summarised_not_kept(omp_harness, tmp_path):
    """The keep-recent walk stops inside the long answer; keeping it whole under a
    summary would be bigger than before, so the cut moves to the new prompt."""
    _settings(omp_harness)
    provider = Model16k([lambda _: {"text": "essay " * 15_000}, lambda _: {"text": "short"}])
    path = tmp_path / "long.jsonl"
    log = omp_harness.run(_session(omp_harness, provider, path), "write an essay", "thanks")

    assert log.final_text() == "short"
    (end,) = log.of("auto_compaction_end")
    assert end.result["tokensAfter"] < end.result["tokensBefore"], end.result
    last = provider.requests[-1]
    assert not any(m.role == "assistant" for m in last.messages)  # the essay is summarised
