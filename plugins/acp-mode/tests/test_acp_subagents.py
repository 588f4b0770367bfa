"""A running ``task`` call shows its children in the editor: its title lists the tasks,
its in-progress ``tool_call_update`` content has one line per child (the task tool's
renderer, as plain text), and its final content one line per child's outcome."""

from __future__ import annotations

import asyncio

from acp import text_block

CHILDREN = [{"name": "One", "task": "CHILD-WORK one"}, {"name": "Two", "task": "CHILD-WORK two"}]
SCRIPT = [
    {"after_tool": "task", "text": "children done", "repeat": True},
    {
        "when": "CHILD-WORK",
        "tool_calls": [{"name": "yield", "arguments": {"data": "ok"}}],
        "repeat": True,
    },
    {
        "tool_calls": [
            {"name": "task", "arguments": {"context": "Shared goal", "tasks": CHILDREN}, "id": "t1"}
        ],
        "repeat": True,
    },
]


def test_a_running_task_shows_one_line_per_child(acp_rig):
    script = acp_rig.script(SCRIPT)

    async def body():
        async with acp_rig.connect("--script", str(script)) as (conn, client):
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            await conn.prompt(session_id=sid, prompt=[text_block("split the work")])
            return client.of(sid, "tool_call"), client.of(sid, "tool_call_update")

    starts, updates = asyncio.run(asyncio.wait_for(body(), 60))
    assert [s.title for s in starts] == ["task: 2 agents — Shared goal"]
    running = [u for u in updates if u.status == "in_progress" and u.content]
    assert running, "no progress content while the children ran"
    lines = running[0].content[0].content.text.split("\n")
    assert [line.split(" ")[1] for line in lines] == ["0-One", "1-Two"]
    assert all("[task]" in line and "CHILD-WORK" in line for line in lines)
    final = next(u for u in updates if u.status == "completed")
    text = final.content[0].content.text
    assert text.startswith("2 completed · ")
    assert "✓ 0-One [task] completed" in text and "✓ 1-Two [task] completed" in text
