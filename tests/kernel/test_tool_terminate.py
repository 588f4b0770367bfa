"""``terminate`` on a tool result (pi's early termination): when every result of a
tool batch says terminate, the run ends after that batch without another model
request; every call of the batch still gets its result."""

from __future__ import annotations

from omp.agent.tools import Tool, ToolResult
from pydantic import BaseModel


class Params(BaseModel):
    n: int = 0


def _tool(name: str, result) -> Tool:
    return Tool(name=name, description=name, parameters=Params, execute=lambda *a: result)


FINISH = _tool("finish", ToolResult.text("final answer recorded", terminate=True))
FINISH_DICT = _tool("finish_dict", {"content": "recorded too", "terminate": True})
LOOK = _tool("look", ToolResult.text("looked"))


def _tool_results(log) -> list[tuple[str, str]]:
    return [
        (e.message.tool_name, e.message.content[0].text)
        for e in log.of("message_end")
        if e.message.role == "toolResult"
    ]


def test_a_terminating_batch_ends_the_run_without_another_request(make_session, omp_harness):
    calls = [("finish", {"n": 1}), ("finish_dict", {"n": 2})]
    session, provider = make_session(
        [{"calls": calls}, {"text": "never sent"}], tools=[FINISH, FINISH_DICT]
    )
    log = omp_harness.run(session, "go")
    assert len(provider.requests) == 1
    assert _tool_results(log) == [
        ("finish", "final answer recorded"),
        ("finish_dict", "recorded too"),
    ]
    assert len(log.of("agent_end")) == 1
    assert [e.tool_results[0].tool_name for e in log.of("turn_end")] == ["finish"]


def test_a_batch_with_a_result_that_does_not_terminate_goes_on(make_session, omp_harness):
    session, provider = make_session(
        [{"calls": [("finish", {}), ("look", {})]}, {"text": "went on"}], tools=[FINISH, LOOK]
    )
    log = omp_harness.run(session, "go")
    assert len(provider.requests) == 2
    assert log.final_text() == "went on"
    assert [name for name, _ in _tool_results(log)] == ["finish", "look"]
