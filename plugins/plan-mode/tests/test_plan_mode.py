"""Plan mode (plugins/plan-mode): read-only tools, the plan file, approval, resume."""

from __future__ import annotations

import json
from typing import Any

import omp
from omp import AssistantStream, Model, Provider, Tool, ToolResult
from pydantic import BaseModel

BUILTINS = ["read", "search", "edit", "bash", "plan_mode"]
PLANNING = {"read", "grep", "find", "ls", "write"}


class Replies(Provider):
    """Answers request N with ``replies[N]`` ({"text"} or {"calls": [(name, args)]}, or a
    function of the request's context); records each request's tools and messages."""

    name = "plans"
    api = "plans"

    def __init__(self, replies: list[Any]) -> None:
        super().__init__([Model(provider="plans", id="model", api="plans")])
        self.replies = list(replies)
        self.requests: list[Any] = []

    def tools(self, n: int) -> set[str]:
        return {t["name"] for t in self.requests[n].tools}

    async def stream(self, model, context, options):
        self.requests.append(context)
        reply = self.replies.pop(0) if self.replies else {"text": "done"}
        out = AssistantStream(model)
        yield out.start()
        if reply.get("text"):
            yield out.text_start()
            yield out.text_delta(reply["text"])
            yield out.text_end()
        for number, (name, args) in enumerate(reply.get("calls", []), start=1):
            yield out.toolcall_start(f"call_{len(self.requests)}_{number}", name)
            yield out.toolcall_delta(json.dumps(args))
            yield out.toolcall_end()
        yield out.done()


class Contribute:
    def __init__(self, provider: Provider, tools: list[Any] = ()) -> None:
        self.provider = provider
        self.tools = [t for t in tools if isinstance(t, Tool)]
        self.plugins = [t for t in tools if not isinstance(t, Tool)]

    @omp.hookimpl
    def omp_register_providers(self, api):
        return [self.provider]

    @omp.hookimpl
    def omp_register_tools(self, api):
        return self.tools


def open_session(omp_harness, replies, answers=None, tools=(), **options):
    provider = Replies(replies)
    contribute = Contribute(provider, list(tools))
    session = omp_harness.session(
        [contribute, *contribute.plugins],
        model="plans/model",
        ui_answers=answers,
        builtins=BUILTINS,
        **options,
    )
    return provider, session


def last_user_text(context: Any) -> str:
    user = [m for m in context.messages if m.role == "user"][-1]
    content = user.content
    return content if isinstance(content, str) else "".join(b.text for b in content)


def test_plan_flag_offers_read_only_tools_and_blocks_writes(omp_harness) -> None:
    path = omp_harness.root / "s.jsonl"
    plan = omp_harness.root / "s" / "plan.md"
    other = omp_harness.cwd / "other.txt"
    replies = [
        {
            "calls": [
                ("edit", {"path": "a.txt", "edits": []}),
                ("bash", {"command": "touch touched"}),
                ("write", {"path": "other.txt", "content": "x"}),
            ]
        },
        {"calls": [("write", {"path": str(plan), "content": "1. Do it"})]},
        {"text": "The plan is ready."},
    ]
    provider, session = open_session(
        omp_harness, replies, answers=["Reject"], session_path=str(path), flags={"plan": True}
    )
    events = omp_harness.run(session, "plan the work")
    assert provider.tools(0) == PLANNING
    assert str(plan) in provider.requests[0].system_prompt
    ends = events.of("tool_execution_end")
    blocked = {e.tool_name: e.result["content"][0].text for e in ends if e.is_error}
    assert set(blocked) == {"edit", "bash", "write"}
    assert blocked["edit"].startswith("Tool 'edit' not found")  # not offered at all
    assert blocked["write"] == f"plan mode is read-only: write your plan to {plan}, " + (
        "the only file you may write"
    )
    assert not other.exists() and not (omp_harness.cwd / "touched").exists()
    assert plan.read_text() == "1. Do it"
    assert session.ui.requests == [("select", "Plan mode - next step")]
    assert events.of("notice")[-1].message.startswith("Plan not approved; still in plan mode")
    assert len(provider.requests) == 3  # rejected: nothing is sent


def test_approval_restores_the_tools_and_sends_the_plan(omp_harness) -> None:
    plan = omp_harness.root / "s" / "plan.md"
    replies = [
        {"calls": [("write", {"path": str(plan), "content": "1. Step one"})]},
        {"text": "Planned."},
        {"text": "Executed."},
    ]
    provider, session = open_session(
        omp_harness,
        replies,
        answers=["Edit plan", "1. Step one\n2. Step two", "Approve and execute"],
        session_path=str(omp_harness.root / "s.jsonl"),
        flags={"plan": True},
    )
    events = omp_harness.run(session, "plan it")
    assert [kind for kind, _ in session.ui.requests] == ["select", "editor", "select"]
    assert len(provider.requests) == 3
    assert {"edit", "bash", "write", "read"} <= provider.tools(2)
    assert last_user_text(provider.requests[2]) == "Execute this plan:\n1. Step one\n2. Step two"
    assert "Plan mode is active" not in provider.requests[2].system_prompt
    assert events.final_text() == "Executed."


def test_plan_command_toggles_and_the_mode_survives_resume(omp_harness) -> None:
    path = str(omp_harness.root / "toggle.jsonl")
    provider, session = open_session(omp_harness, [{"text": "ok"}], session_path=path)
    events = omp_harness.run(session, "hello", "/plan")
    assert events.of("notice")[-1].message.startswith("Plan mode on: read-only tools")
    assert "edit" in provider.tools(0)

    provider, resumed = open_session(omp_harness, [{"text": "ok"}], session_path=path)
    omp_harness.run(resumed, "look around", "/plan", "now change it")
    assert provider.tools(0) == PLANNING
    assert "Plan mode is active" in provider.requests[0].system_prompt
    assert {"edit", "bash"} <= provider.tools(1)
    entries = [e for e in resumed.session_view.entries() if e.get("customType") == "plan-mode"]
    assert [e["data"]["enabled"] for e in entries] == [True, False]


class NoArgs(BaseModel):
    pass


class Probe(Tool):
    name, description, parameters = "probe", "Looks", NoArgs
    read_only = True

    def execute(self, call_id, params, signal, on_update, ctx):
        return ToolResult.text("probed")


class Mutate(Tool):
    name, description, parameters = "mutate", "Changes things", NoArgs

    def execute(self, call_id, params, signal, on_update, ctx):
        return ToolResult.text("mutated")


class Reactivate:
    """Offers every tool again at each turn, as a careless plugin (or a host) might."""

    @omp.hookimpl
    def omp_turn_start(self, api):
        api.set_active_tools([t["name"] for t in api.get_all_tools()])


def test_a_tool_not_marked_read_only_is_blocked_even_when_offered(omp_harness) -> None:
    calls = [("probe", {}), ("mutate", {}), ("bash", {"command": "touch touched"})]
    replies = [{"calls": calls}, {"text": "ok"}]
    provider, session = open_session(
        omp_harness, replies, tools=[Probe(), Mutate()], flags={"plan": True}
    )
    events = omp_harness.run(session, "plan")
    assert provider.tools(0) == PLANNING | {"probe"}
    provider, session = open_session(
        omp_harness, replies, tools=[Probe(), Mutate(), Reactivate()], flags={"plan": True}
    )
    events = omp_harness.run(session, "plan")
    assert {"mutate", "bash", "edit"} <= provider.tools(0)
    results = {
        e.tool_name: (e.is_error, e.result["content"][0].text)
        for e in events.of("tool_execution_end")
    }
    assert results["probe"] == (False, "probed")
    for name in ("mutate", "bash"):
        assert results[name] == (
            True,
            f"plan mode is read-only: {name} is not available until the plan is approved",
        )
    assert not (omp_harness.cwd / "touched").exists()


def test_other_plugins_switch_it_on_the_event_bus(omp_harness) -> None:
    """What ACP's ``plan`` session mode does."""
    provider, session = open_session(omp_harness, [{"text": "a"}, {"text": "b"}])

    def switch(s) -> None:
        s.api.events.emit(
            "plan-mode.set", {"enabled": True, "session_id": s.session_view.session_id}
        )

    events = omp_harness.run(session, "first", "second", during=switch)
    assert provider.tools(1) == PLANNING
    assert events.of("notice")[-1].message.startswith("Plan mode on")


def test_without_a_ui_the_plan_is_only_announced(omp_harness) -> None:
    plan = omp_harness.root / "quiet" / "plan.md"
    replies = [{"calls": [("write", {"path": str(plan), "content": "1. Go"})]}, {"text": "ok"}]
    provider, session = open_session(
        omp_harness,
        replies,
        session_path=str(omp_harness.root / "quiet.jsonl"),
        flags={"plan": True},
    )
    events = omp_harness.run(session, "plan")
    assert events.of("notice")[-1].message == (
        f"Plan written to {plan}; /plan leaves plan mode to carry it out."
    )
    assert len(provider.requests) == 2


def test_the_entry_module_is_cheap() -> None:
    import os
    import subprocess
    import sys

    code = (
        "import sys, omp_plan_mode.plugin; "
        "sys.exit(1 if {'pydantic', 'omp_plan_mode.state'} & set(sys.modules) else 0)"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    assert subprocess.run([sys.executable, "-c", code], env=env, check=False).returncode == 0
