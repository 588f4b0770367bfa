"""What a person sees of a task call: one line per task while the call streams in, one
line per child while it runs (agent, task, status, current tool, elapsed, tokens), and
each child's outcome when it is done."""

from __future__ import annotations

from omp import ToolResult
from omp_tool_task.render import render_call, render_result


def _args(count: int) -> dict:
    tasks = [
        {"name": f"Child{i}", "agent": "scout", "task": f"look at part {i}\nmore"}
        for i in range(count)
    ]
    tasks[0]["isolated"] = True
    return {"context": "We are refactoring.\nDetails follow.", "tasks": tasks}


def test_the_call_shows_one_line_per_task_and_folds_a_long_list():
    assert render_call(_args(2), {"mode": "interactive"}) == [
        "task: 2 agents — We are refactoring.",
        "  • Child0 [scout]: look at part 0 [isolated]",
        "  • Child1 [scout]: look at part 1",
    ]
    folded = render_call(_args(6), {})
    assert len(folded) == 6 and folded[-1] == "  • … 2 more agents"
    assert len(render_call(_args(6), {"expanded": True})) == 7
    assert render_call({"agent": "task", "name": "Solo", "task": "do it"}, {}) == [
        "task Solo [task]: do it"
    ]


def test_a_running_call_shows_each_child_with_its_current_tool_time_and_tokens():
    running = {
        "index": 0,
        "id": "0-Child0",
        "agent": "scout",
        "status": "running",
        "task": "look at part 0",
        "currentTool": "grep",
        "toolCount": 3,
        "tokens": 12_345,
        "durationMs": 3_200,
    }
    pending = {"index": 1, "id": "1-Child1", "agent": "task", "status": "pending", "task": "wait"}
    partial = ToolResult.text("", {"progress": [running, pending]})
    assert render_result(partial, {"partial": True}) == [
        "● 0-Child0 [scout] running: look at part 0 · ⚙ grep · 3.2s · 12.3k tok · 3 tools",
        "◌ 1-Child1 [task] pending: wait · 0ms · 0 tok",
    ]


def test_a_finished_call_shows_each_childs_outcome():
    details = {
        "totalDurationMs": 65_000,
        "results": [
            {
                "index": 0,
                "id": "0-A",
                "agent": "scout",
                "exitCode": 0,
                "durationMs": 900,
                "tokens": 800,
                "output": "found it",
                "patch": "diff --git a/x b/x\n+1\ndiff --git a/y b/y\n+2\n",
            },
            {
                "index": 1,
                "id": "1-B",
                "agent": "task",
                "exitCode": 1,
                "durationMs": 1500,
                "tokens": 1200,
                "output": "",
                "patchPath": "/tmp/p.patch",
            },
            {
                "index": 2,
                "id": "2-C",
                "agent": "task",
                "exitCode": 1,
                "aborted": True,
                "abortReason": "timed out after 300ms",
                "durationMs": 300,
                "tokens": 0,
            },
        ],
    }
    lines = render_result(ToolResult.text("<task-result ...>", details), {})
    assert lines == [
        "1 completed, 1 failed, 1 cancelled · 1m05s · 2.0k tok",
        "  ✓ 0-A [scout] completed · 900ms · 800 tok · 2 files changed in its worktree",
        "  ✗ 1-B [task] failed · 1.5s · 1.2k tok · patch: /tmp/p.patch",
        "  ⊘ 2-C [task] cancelled · 300ms · 0 tok · timed out after 300ms",
    ]
    expanded = render_result(ToolResult.text("", details), {"expanded": True})
    assert "    found it" in expanded


def test_anything_else_gets_the_default_view():
    assert render_result(ToolResult.error("bad params"), {}) is None
    assert render_result(ToolResult.text("x", {"results": []}, is_error=True), {}) is None
    assert render_call({"nothing": 1}, {}) is None
