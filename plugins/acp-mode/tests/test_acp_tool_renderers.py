"""A tool's own renderers reach an ACP editor: ``render_call`` is the call's title,
``render_result`` its content (as plain text); a renderer that raises is reported on
stderr (the editor's log) and the default content is sent (issue 25, gap 7)."""

from __future__ import annotations

import asyncio

from acp import text_block
from rendering_plugin import RENDERING_PLUGIN


def test_render_call_is_the_title_render_result_the_content(acp_rig, capfd):
    extension = acp_rig.root / "rendering.py"
    extension.write_text(RENDERING_PLUGIN)
    calls = [
        {"name": "weather", "arguments": {"city": "Paris"}, "id": "c1"},
        {"name": "flaky", "arguments": {"city": "Oslo"}, "id": "c2"},
    ]
    script = acp_rig.script([{"tool_calls": calls}, {"text": "done"}])

    async def body():
        args = ("--script", str(script), "-e", str(extension))
        async with acp_rig.connect(*args) as (conn, client):
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            await conn.prompt(session_id=sid, prompt=[text_block("weather?")])
            return client.of(sid, "tool_call"), client.of(sid, "tool_call_update")

    starts, progress = asyncio.run(asyncio.wait_for(body(), 60))
    titles = {s.tool_call_id: s.title for s in starts}
    assert titles == {"c1": "Weather in Paris", "c2": "flaky"}
    finished = {u.tool_call_id: u for u in progress if u.status == "completed"}
    assert finished["c1"].content[0].content.text == "sunny, 21 C\nwind: calm"
    assert finished["c2"].content[0].content.text == "flaky default output"
    err = capfd.readouterr().err
    assert "failed in render_result: tool 'flaky': RuntimeError: renderer broke" in err
