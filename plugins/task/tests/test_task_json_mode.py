"""``omp --mode json`` shows a task's children as they run: its tool_execution_update
events carry ``details.progress`` (omp's AgentProgress per child), and the children's
lifecycle and progress are announced as ``subagent_lifecycle`` / ``subagent_progress``
events of omp's payload shape."""

from __future__ import annotations

import json

from isolation import run_omp
from omp.testing import write_script

CHILDREN = [{"name": "One", "task": "CHILD-WORK one"}, {"name": "Two", "task": "CHILD-WORK two"}]
SCRIPT = [
    {"after_tool": "task", "text": "parent done", "repeat": True},
    {
        "when": "CHILD-WORK",
        "tool_calls": [{"name": "yield", "arguments": {"data": "ok"}}],
        "repeat": True,
    },
    {
        "tool_calls": [{"name": "task", "arguments": {"context": "shared", "tasks": CHILDREN}}],
        "repeat": True,
    },
]


def test_json_events_carry_each_childs_progress(tmp_path):
    script = write_script(tmp_path / "script.jsonl", SCRIPT)
    done = run_omp(tmp_path, "--mode", "json", "--script", str(script), "go")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]

    updates = [
        e for e in events if e["type"] == "tool_execution_update" and e["toolName"] == "task"
    ]
    assert updates, "no progress update of the task call"
    progress = updates[0]["partialResult"]["details"]["progress"]
    assert [p["id"] for p in progress] == ["0-One", "1-Two"]
    for child in progress:
        assert child["agent"] == "task" and child["agentSource"] == "bundled"
        assert child["status"] in ("pending", "running", "completed")
        assert child["task"].startswith("CHILD-WORK")
        assert {"toolCount", "requests", "tokens", "durationMs", "recentTools"} <= child.keys()

    lifecycle = [
        (e["payload"]["id"], e["payload"]["status"])
        for e in events
        if e["type"] == "subagent_lifecycle"
    ]
    assert sorted(lifecycle) == [
        ("0-One", "completed"),
        ("0-One", "started"),
        ("1-Two", "completed"),
        ("1-Two", "started"),
    ]
    announced = [e["payload"] for e in events if e["type"] == "subagent_progress"]
    assert announced and all(p["parentToolCallId"] == updates[0]["toolCallId"] for p in announced)
    assert {p["progress"]["id"] for p in announced} == {"0-One", "1-Two"}
    end = next(e for e in events if e["type"] == "tool_execution_end" and e["toolName"] == "task")
    assert [r["id"] for r in end["result"]["details"]["results"]] == ["0-One", "1-Two"]
