"""Tool approval: a tool that requires approval, or a tool_call handler that asks, gets
the user's answer through ctx.ui.confirm; without a UI the call is denied unless
``tools.approvalMode`` says yolo. tool_approval_requested / _resolved tell plugins."""

from __future__ import annotations

import json

import omp
from omp.agent.tools import Tool
from pydantic import BaseModel


class Params(BaseModel):
    text: str = ""


def _tool(name: str, requires_approval: bool = False) -> Tool:
    return Tool(
        name=name,
        description=f"{name} tool",
        parameters=Params,
        execute=lambda cid, p, *a: f"{name} ran",
        requires_approval=requires_approval,
    )


class Watch:
    def __init__(self) -> None:
        self.events: list = []

    @omp.hookimpl
    def omp_tool_approval_requested(self, event):
        self.events.append(("requested", event.tool_name, event.reason, event.approval_mode))

    @omp.hookimpl
    def omp_tool_approval_resolved(self, event):
        self.events.append(("resolved", event.tool_name, event.approved, event.reason))


def _results(log) -> list[tuple[str, bool]]:
    return [
        ("".join(b.text for b in e.result["content"]), e.is_error)
        for e in log.of("tool_execution_end")
    ]


def _settings(omp_harness, **tools) -> None:
    (omp_harness.agent_dir / "settings.json").write_text(json.dumps({"tools": tools}))


CALL_DANGER = [{"calls": [("danger", {})]}, {"text": "done"}]


def test_a_tool_requiring_approval_asks_the_ui_and_runs_when_approved(make_session, omp_harness):
    watch = Watch()
    session, _ = make_session(
        CALL_DANGER, tools=[_tool("danger", True)], plugins=[watch], ui_answers=[True]
    )
    log = omp_harness.run(session, "go")
    assert session.ui.requests == [("confirm", "Allow danger?")]
    assert _results(log) == [("danger ran", False)]
    assert watch.events[0] == ("requested", "danger", None, "write")
    assert watch.events[1][:3] == ("resolved", "danger", True)


def test_declined_in_the_ui_the_call_gets_an_error_result(make_session, omp_harness):
    watch = Watch()
    session, _ = make_session(
        CALL_DANGER, tools=[_tool("danger", True)], plugins=[watch], ui_answers=[False]
    )
    log = omp_harness.run(session, "go")
    [(text, is_error)] = _results(log)
    assert is_error and "declined" in text
    assert watch.events[1][:3] == ("resolved", "danger", False)


def test_without_a_ui_the_call_is_denied(make_session, omp_harness):
    watch = Watch()
    session, _ = make_session(CALL_DANGER, tools=[_tool("danger", True)], plugins=[watch])
    log = omp_harness.run(session, "go")
    [(text, is_error)] = _results(log)
    assert is_error and "no UI" in text and "yolo" in text
    assert [e[0] for e in watch.events] == ["requested", "resolved"]
    assert watch.events[1][2] is False


def test_yolo_runs_everything_without_asking(make_session, omp_harness):
    _settings(omp_harness, approvalMode="yolo")
    watch = Watch()
    session, _ = make_session(CALL_DANGER, tools=[_tool("danger", True)], plugins=[watch])
    log = omp_harness.run(session, "go")
    assert _results(log) == [("danger ran", False)]
    assert watch.events == []


def test_a_tool_call_handler_may_ask_with_a_reason(make_session, omp_harness):
    watch = Watch()

    class Gate:
        @omp.hookimpl
        def omp_tool_call(self, event):
            if "rm" in event.input.get("text", ""):
                return {"ask": True, "reason": "it deletes files"}

    script = [{"calls": [("echo", {"text": "rm -rf build"}), ("echo", {"text": "ls"})]}, {}]
    session, _ = make_session(
        script, tools=[_tool("echo")], plugins=[Gate(), watch], ui_answers=[False]
    )
    log = omp_harness.run(session, "go")
    assert len(session.ui.requests) == 1  # only the call the handler asked about
    outcomes = sorted(_results(log), key=lambda r: r[1])
    assert outcomes[0] == ("echo ran", False)
    assert outcomes[1][1] and "declined" in outcomes[1][0]
    assert watch.events[0] == ("requested", "echo", "it deletes files", "write")


def test_always_ask_asks_for_every_tool_and_per_tool_settings_win(make_session, omp_harness):
    _settings(omp_harness, approvalMode="always-ask", approval={"echo": "allow", "rm": "deny"})
    script = [{"calls": [("echo", {}), ("rm", {}), ("other", {})]}, {}]
    tools = [_tool("echo"), _tool("rm"), _tool("other")]
    session, _ = make_session(script, tools=tools, ui_answers=[True])
    log = omp_harness.run(session, "go")
    assert session.ui.requests == [("confirm", "Allow other?")]
    names = [e.tool_name for e in log.of("tool_execution_end")]
    results = dict(zip(names, _results(log), strict=True))
    assert results["echo"] == ("echo ran", False)
    assert results["rm"][1] and "tools.approval" in results["rm"][0]
    assert results["other"] == ("other ran", False)


def test_an_unknown_approval_mode_is_said_and_the_default_applies(make_session, omp_harness):
    """Settings are checked as they load (issue 24, item 15): the bad value is left out
    with one line, and the default mode (write) decides."""
    _settings(omp_harness, approvalMode="sometimes")
    watch = Watch()
    session, _ = make_session(
        CALL_DANGER, tools=[_tool("danger", True)], plugins=[watch], ui_answers=[False]
    )
    [line] = session.settings.problems
    assert 'tools.approvalMode: expected one of "always-ask", "write", "yolo"' in line
    assert '(using the default "write")' in line
    omp_harness.run(session, "go")
    assert watch.events[0][3] == "write"
