"""The terminal shows a running ``task`` call as one line per child (the task tool's own
renderer, drawn live from its partial results) and each child's outcome when it ends."""

from __future__ import annotations

import pytest
from omp import (
    Tool,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    ToolRegistry,
    ToolRendering,
    ToolResult,
)
from omp_mode_interactive.render.width import strip_ansi
from pydantic import BaseModel
from render_screen import Screen

task_tool = pytest.importorskip("omp_tool_task.tool", reason="the task plugin is not installed")

ARGS = {
    "context": "Tidy up",
    "tasks": [{"name": "A", "task": "read the docs"}, {"name": "B", "task": "fix the typo"}],
}


def _child(index: int, name: str, status: str, **extra) -> dict:
    base = {"index": index, "id": f"{index}-{name}", "agent": "task", "status": status}
    return {
        **base,
        "task": ARGS["tasks"][index]["task"],
        "durationMs": 1500,
        "tokens": 2048,
        **extra,
    }


def test_a_running_task_is_drawn_one_line_per_child_then_its_outcomes():
    # The task tool's own renderers, on a stand-in tool (its construction is not ours).
    cls = task_tool.TaskTool
    tool = Tool(
        name="task",
        parameters=BaseModel,
        execute=lambda *a: "",
        render_call=cls.render_call,
        render_result=cls.render_result,
    )
    screen = Screen(width=120, tools=ToolRendering(ToolRegistry([tool])))
    screen.transcript.handle(
        ToolExecutionStartEvent(tool_call_id="t1", tool_name="task", args=ARGS)
    )
    progress = [
        _child(0, "A", "running", currentTool="read", toolCount=1),
        _child(1, "B", "pending"),
    ]
    screen.transcript.handle(
        ToolExecutionUpdateEvent(
            tool_call_id="t1",
            tool_name="task",
            args=ARGS,
            partial_result=ToolResult.text("", {"progress": progress}),
        )
    )
    live = strip_ansi(screen.transcript.live())
    assert "task: 2 agents — Tidy up" in live
    assert "● 0-A [task] running: read the docs · ⚙ read · 1.5s · 2.0k tok · 1 tool" in live
    assert "◌ 1-B [task] pending: fix the typo · 1.5s · 2.0k tok" in live

    results = [
        {
            "index": 0,
            "id": "0-A",
            "agent": "task",
            "exitCode": 0,
            "durationMs": 1500,
            "tokens": 2048,
        },
        {"index": 1, "id": "1-B", "agent": "task", "exitCode": 1, "durationMs": 900, "tokens": 10},
    ]
    final = ToolResult.text("<task-result ...>", {"results": results, "totalDurationMs": 1600})
    screen.transcript.handle(
        ToolExecutionEndEvent(
            tool_call_id="t1",
            tool_name="task",
            result={"content": final.content, "details": final.details},
        )
    )
    text = strip_ansi(screen.text)
    assert "1 completed, 1 failed · 1.6s · 2.1k tok" in text
    assert "✓ 0-A [task] completed · 1.5s · 2.0k tok" in text
    assert "✗ 1-B [task] failed · 900ms · 10 tok" in text
