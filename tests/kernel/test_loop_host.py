"""The loop asks one host (omp.agent.host.LoopHost) and applies its decisions itself:
a plan before a request replaces what is sent or stops the run, a response decision
sends the request again with another model (for that run only), an approval denies a
call, a stop check goes on with messages."""

from __future__ import annotations

from doubles import Contribute, ListProvider, texts
from omp.agent.host import NullHost, RequestPlan, ResponseDecision
from omp.agent.messages import CustomMessage
from omp.agent.providers import Model
from omp.agent.tools import Tool
from pydantic import BaseModel


class Host(NullHost):
    """Decides as told; records what it was asked."""

    def __init__(self, **decide) -> None:
        self.decide = decide
        self.asked: list[str] = []

    async def before_request(self, messages, model):
        self.asked.append("before_request")
        plan = self.decide.get("plan")
        return plan(messages) if plan else None

    async def on_response(self, message, model, messages):
        self.asked.append("on_response")
        decide = self.decide.get("response")
        return decide(message, model) if decide else None

    async def approve(self, call, tool, decision):
        return self.decide.get("deny")

    async def before_stop(self, turn_index, messages):
        go_on = self.decide.get("go_on", [])
        return [go_on.pop(0)] if go_on else []


class Backup(ListProvider):
    name = "backup"

    def __init__(self, replies) -> None:
        super().__init__(replies)
        self.models = [Model(provider="backup", id="model", api="test")]


class NoParams(BaseModel):
    pass


ECHO = Tool(name="echo", description="echo", parameters=NoParams, execute=lambda *a: "echoed")


def _session(omp_harness, replies, host, providers=(), tools=()):
    provider = ListProvider(replies)
    session = omp_harness.session([Contribute([provider, *providers], tools)], model="test/model")
    session.agent.host = host
    return session, provider


def test_a_plan_replaces_the_conversation_the_loop_sends(omp_harness):
    host = Host(plan=lambda messages: RequestPlan(messages=[messages[-1]]))
    session, provider = _session(omp_harness, [{"text": "one"}, {"text": "two"}], host)
    omp_harness.run(session, "first", "second")
    assert texts(provider.requests[1]) == ["second"]
    assert [m.role for m in session.agent.messages] == ["user", "assistant"]


def test_a_plan_that_stops_sends_nothing(omp_harness):
    host = Host(plan=lambda messages: RequestPlan(stop=True))
    session, provider = _session(omp_harness, [{"text": "never"}], host)
    log = omp_harness.run(session, "first")
    assert provider.requests == []
    (end,) = [e for e in log.of("message_end") if e.message.role == "assistant"]
    assert end.message.stop_reason == "aborted"


def test_a_retry_with_another_model_lasts_for_the_run(omp_harness):
    backup = Backup([{"text": "from backup"}])

    def response(message, model):
        failed = message.stop_reason == "error" and model.provider == "test"
        return ResponseDecision(retry=True, model=backup.models[0]) if failed else None

    session, _ = _session(
        omp_harness,
        [{"error": "overloaded"}, {"text": "primary"}],
        Host(response=response),
        [backup],
    )
    log = omp_harness.run(session, "first", "second")
    answers = [e.message for e in log.of("message_end") if e.message.role == "assistant"]
    assert [(m.provider, m.text or m.error_message) for m in answers] == [
        ("test", "overloaded"),
        ("backup", "from backup"),
        ("test", "primary"),  # the next run starts with the session's model again
    ]
    assert session.agent.model.key == "test/model"


def test_a_denied_call_gets_the_reason_as_its_result(omp_harness):
    host = Host(deny="not today")
    session, _ = _session(
        omp_harness, [{"calls": [("echo", {})]}, {"text": "ok"}], host, tools=[ECHO]
    )
    log = omp_harness.run(session, "go")
    (end,) = log.of("tool_execution_end")
    assert end.is_error and end.result["content"][0].text == "not today"


def test_a_stop_check_goes_on_with_its_messages(omp_harness):
    host = Host(go_on=[CustomMessage(custom_type="nudge", content="keep going")])
    session, provider = _session(omp_harness, [{"text": "one"}, {"text": "two"}], host)
    log = omp_harness.run(session, "go")
    assert log.final_text() == "two"
    assert texts(provider.requests[1])[-1] == "keep going"
    assert host.asked == ["before_request", "on_response"] * 2
