"""Child sessions (subagents): a tool makes one with ``ctx.create_child_session``; it
answers through the same plugins, its file lies beside its parent's, its usage counts
in the parent's, and the spawn hook can stop or rewrite it."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from typing import Any

import omp
from pydantic import BaseModel

CHILD_REPLY = {"when": "CHILD-TASK", "text": "child done", "usage": {"input": 10, "output": 5}}
REWRITTEN_REPLY = {"when": "REWRITTEN-TASK", "text": "rewritten done"}


class SpawnParams(BaseModel):
    task: str
    tools: list[str] | None = None
    model: str | None = None
    name: str = "0-Child"


class Spawner:
    """Registers ``spawn``: it asks the spawn hook, makes a child, prompts it and reports
    the child's answer and usage. Records what the child's hooks see."""

    def __init__(self) -> None:
        self.api: Any = None
        self.seen: list[tuple[str, Any]] = []
        self.spawn_ms: list[float] = []
        self.child_running: asyncio.Event | None = None

    @omp.hookimpl
    def omp_register_tools(self, api):
        self.api = api
        return [omp.Tool(name="spawn", parameters=SpawnParams, execute=self._spawn)]

    async def _spawn(self, call_id, params, signal, on_update, ctx):
        event = omp.SubagentSpawnEvent(
            agent="task",
            task=params.task,
            tools=params.tools,
            depth=ctx.session_depth + 1,
            parent_session_id=ctx.session_id,
        )
        decision = await ctx.subagent_spawn(event)
        if decision is not None and decision.block:
            return f"blocked: {decision.reason}"
        task = decision.task if decision is not None and decision.task else params.task
        started = time.perf_counter()
        try:
            child = await ctx.create_child_session(
                name=params.name,
                tools=params.tools,
                model=params.model,
                system_prompt="You are a child.",
                session_init={"task": task, "agent": "task"},
            )
        except omp.OmpError as exc:
            return f"error: {exc}"
        self.spawn_ms.append((time.perf_counter() - started) * 1000)
        self.api.append_entry("after-child", {"by": "the runtime api"})
        running = self.child_running
        if running is not None:
            child.subscribe(lambda e: running.set() if e.type == "turn_start" else None)
        try:
            answer = await child.prompt(task, source="extension", literal=True)
        except asyncio.CancelledError:  # the parent was aborted: keep what we have
            child.abort("the parent was aborted")
            return "child cancelled"
        finally:
            usage = dataclasses.asdict(child.usage_totals())
            path = child.session_file
            await child.dispose()
        return {
            "content": [{"type": "text", "text": f"child said: {answer.text if answer else ''}"}],
            "details": {omp.SUBAGENT_USAGE_KEY: usage, "file": str(path) if path else None},
        }

    @omp.hookimpl
    def omp_session_init(self, event, ctx):
        self.seen.append(("init", (event.depth, event.parent_session_id, event.entry["task"])))
        self.seen.append(("init ctx", (ctx.session_depth, ctx.parent_session_id, ctx.has_ui)))

    @omp.hookimpl
    def omp_session_start(self, event, ctx, api):
        self.seen.append(("start", (ctx.session_depth, ctx.parent_session_id, ctx.session_id)))
        if ctx.session_depth:
            self.seen.append(("child tools", api.get_active_tools()))

    @omp.hookimpl
    def omp_subagent_spawn(self, event, ctx):
        if "FORBIDDEN" in event.task:
            return {"block": True, "reason": "not this one"}
        if "REWRITE" in event.task:
            return {"task": "REWRITTEN-TASK"}
        return None


def _script(first_call: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "choose": [
                CHILD_REPLY,
                REWRITTEN_REPLY,
                {"tool_calls": [first_call], "usage": {"input": 100, "output": 20}},
            ]
        },
        {"text": "parent done", "usage": {"input": 200, "output": 30}},
    ]


def _spawn_call(task: str, tools: list[str] | None = None) -> dict[str, Any]:
    arguments: dict[str, Any] = {"task": task}
    if tools is not None:
        arguments["tools"] = tools
    return {"name": "spawn", "arguments": arguments}


def _tool_text(log: omp.testing.EventLog) -> str:
    (end,) = log.of("tool_execution_end")
    return end.result["content"][0].text


def _lines(path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_child_answers_and_its_file_lies_beside_the_parents(omp_harness):
    spawner = Spawner()
    parent_path = omp_harness.root / "sessions" / "parent.jsonl"
    session = omp_harness.session(
        [spawner],
        script=_script(_spawn_call("CHILD-TASK", ["read"])),
        builtins=["read"],
        session_path=str(parent_path),
    )
    log = omp_harness.run(session, "go")

    assert _tool_text(log) == "child said: child done"
    assert log.final_text() == "parent done"
    child_path = parent_path.with_suffix("") / "0-Child.jsonl"
    header, init, *rest = _lines(child_path)
    assert header["parentSession"] == str(parent_path)
    assert header["parentSessionId"] == session.session_id
    assert header["taskDepth"] == 1
    assert init["type"] == "session_init"
    assert (init["task"], init["agent"], init["tools"]) == ("CHILD-TASK", "task", ["read"])
    assert init["systemPrompt"].startswith("You are a child.")
    assert init["resolvedModel"] == session.agent.model.key
    assert [e["message"]["role"] for e in rest if e["type"] == "message"] == ["user", "assistant"]
    child_id = header["id"]
    assert ("init", (1, session.session_id, "CHILD-TASK")) in spawner.seen
    assert ("init ctx", (1, session.session_id, False)) in spawner.seen
    assert ("start", (0, None, session.session_id)) in spawner.seen
    assert ("start", (1, session.session_id, child_id)) in spawner.seen
    assert ("child tools", ["read"]) in spawner.seen
    # The session_init hook ran before the child's session_start.
    kinds = [kind for kind, _ in spawner.seen]
    assert kinds.index("init") < kinds.index("child tools")
    # The runtime's api stayed with the parent: its entry is in the parent's file.
    parent_entries = _lines(parent_path)
    assert [e.get("customType") for e in parent_entries].count("after-child") == 1
    assert not [e for e in _lines(child_path) if e.get("customType") == "after-child"]
    assert len(spawner.spawn_ms) == 1  # the spawn's cost is bench/task_bench.py's figure


def test_usage_of_children_counts_in_the_parent_and_after_resume(omp_harness):
    spawner = Spawner()
    parent_path = omp_harness.root / "sessions" / "parent.jsonl"
    session = omp_harness.session(
        [spawner],
        script=_script(_spawn_call("CHILD-TASK")),
        builtins=["read"],
        session_path=str(parent_path),
    )
    omp_harness.run(session, "go")
    expected = {"requests": 3, "input": 310, "output": 55}
    totals = session.usage_totals()
    assert {key: totals[key] for key in expected} == expected

    resumed = omp_harness.session([Spawner()], script=[], session_path=str(parent_path))
    totals = resumed.usage_totals()
    assert {key: totals[key] for key in expected} == expected
    asyncio.run(resumed.shutdown())
    assert len(list(parent_path.with_suffix("").glob("*.jsonl"))) == 1


def test_reported_subagent_usage_takes_omps_keys_and_ignores_junk():
    from omp.agent.messages import ToolResultMessage
    from omp.agent.usage import usage_totals

    reported = {"input": 7, "cacheRead": 3, "cache_write": 2, "cost": {"total": 0.5}}
    messages = [
        ToolResultMessage(
            tool_call_id="1", tool_name="task", content=[], details={"subagentUsage": reported}
        ),
        ToolResultMessage(
            tool_call_id="2", tool_name="task", content=[], details={"subagentUsage": "junk"}
        ),
        ToolResultMessage(
            tool_call_id="3",
            tool_name="task",
            content=[],
            details={"subagentUsage": {"output": "many", "requests": 2, "cost": 0.25}},
        ),
    ]
    totals = usage_totals(messages)
    assert totals == {
        "requests": 2,
        "input": 7,
        "output": 0,
        "cache_read": 3,
        "cache_write": 2,
        "cost": 0.75,
        "unpriced": 0,
    }


def test_a_child_gets_only_tools_its_parent_has(omp_harness):
    spawner = Spawner()
    session = omp_harness.session(
        [spawner],
        script=_script(_spawn_call("CHILD-TASK", ["read", "bash"])),
        builtins=["read"],
        tools=["spawn", "read"],
    )
    log = omp_harness.run(session, "go")
    assert _tool_text(log) == (
        "error: a child session can only get tools its parent has: bash is not active here"
    )
    assert not [kind for kind, _ in spawner.seen if kind == "init"]


def test_a_child_of_an_in_memory_session_stays_in_memory(omp_harness):
    spawner = Spawner()
    session = omp_harness.session(
        [spawner], script=_script(_spawn_call("CHILD-TASK")), builtins=["read"]
    )
    log = omp_harness.run(session, "go")
    (end,) = log.of("tool_execution_end")
    assert end.result["details"]["file"] is None
    assert _tool_text(log) == "child said: child done"
    # The child inherited every active tool of its parent.
    assert ("child tools", ["read", "spawn"]) in spawner.seen


def test_the_spawn_hook_vetoes_a_child(omp_harness):
    spawner = Spawner()
    session = omp_harness.session(
        [spawner], script=_script(_spawn_call("FORBIDDEN-TASK")), builtins=["read"]
    )
    log = omp_harness.run(session, "go")
    assert _tool_text(log) == "blocked: not this one"
    assert not [kind for kind, _ in spawner.seen if kind == "init"]


def test_the_spawn_hook_rewrites_a_childs_task(omp_harness):
    spawner = Spawner()
    session = omp_harness.session(
        [spawner], script=_script(_spawn_call("REWRITE-TASK")), builtins=["read"]
    )
    log = omp_harness.run(session, "go")
    assert _tool_text(log) == "child said: rewritten done"
    assert ("init", (1, session.session_id, "REWRITTEN-TASK")) in spawner.seen


def test_a_failing_spawn_hook_blocks_the_child(omp_harness):
    class Broken:
        @omp.hookimpl
        def omp_subagent_spawn(self, event):
            raise RuntimeError("checker down")

    spawner = Spawner()
    session = omp_harness.session(
        [spawner, Broken()], script=_script(_spawn_call("CHILD-TASK")), builtins=["read"]
    )
    log = omp_harness.run(session, "go")
    assert _tool_text(log).startswith("blocked: Blocked: the ")
    assert "checker down" in _tool_text(log)


def test_aborting_the_parent_cancels_a_running_child_and_keeps_the_tools_result(omp_harness):
    spawner = Spawner()
    steps = _script(_spawn_call("SLOW-TASK"))
    steps[0]["choose"].insert(0, {"when": "SLOW-TASK", "text": "too late", "delay": 30})
    parent_path = omp_harness.root / "sessions" / "parent.jsonl"
    session = omp_harness.session(
        [spawner], script=steps, builtins=["read"], session_path=str(parent_path)
    )

    async def abort_once_the_child_runs(parent):
        spawner.child_running = asyncio.Event()
        await spawner.child_running.wait()
        parent.abort()

    started = time.monotonic()
    log = omp_harness.run(session, "go", during=abort_once_the_child_runs)
    assert time.monotonic() - started < 20
    assert _tool_text(log) == "child cancelled"
    results = [m for m in session.agent.messages if m.role == "toolResult"]
    assert [r.content[0].text for r in results] == ["child cancelled"]
    child_lines = _lines(parent_path.with_suffix("") / "0-Child.jsonl")
    assert [e["type"] for e in child_lines[:2]] == ["session", "session_init"]
    assert "too late" not in json.dumps(child_lines)


def test_a_childs_tool_call_that_needs_approval_is_asked_through_the_parents_ui(omp_harness):
    (omp_harness.cwd / "notes.txt").write_text("secret plans\n")
    spawner = Spawner()
    read_call = {"name": "read", "arguments": {"path": "notes.txt"}}
    steps = [
        {
            "choose": [
                {"when": "CHILD-TASK", "tool_calls": [read_call]},
                {"tool_calls": [_spawn_call("CHILD-TASK", ["read"])]},
            ]
        },
        {"choose": [{"after_tool": "read", "text": "child read it"}, {"text": "parent done"}]},
    ]
    settings = {"tools": {"approvalMode": "always-ask", "approval": {"spawn": "allow"}}}
    (omp_harness.agent_dir / "settings.json").write_text(json.dumps(settings))
    session = omp_harness.session([spawner], script=steps, builtins=["read"], ui_answers=[True])
    log = omp_harness.run(session, "go")
    assert _tool_text_of(log, "spawn") == "child said: child read it"
    # The parent's UI was asked about the child's read (the parent's spawn is allowed).
    assert session.ui.requests == [("confirm", "Allow read?")]


def _tool_text_of(log: omp.testing.EventLog, name: str) -> str:
    ends = [e for e in log.of("tool_execution_end") if e.tool_name == name]
    return ends[-1].result["content"][0].text


def test_a_bad_model_or_name_for_a_child_is_a_one_line_error(omp_harness):
    for arguments, expected in (
        ({"model": "no-such-model"}, "error: "),
        ({"name": "../escape"}, "error: a child session's name must be a plain file name"),
    ):
        spawner = Spawner()
        call = {"name": "spawn", "arguments": {"task": "CHILD-TASK", **arguments}}
        session = omp_harness.session([spawner], script=_script(call), builtins=["read"])
        text = _tool_text(omp_harness.run(session, "go"))
        assert text.startswith(expected)
        assert "\n" not in text and "Traceback" not in text
        assert not [kind for kind, _ in spawner.seen if kind == "init"]
