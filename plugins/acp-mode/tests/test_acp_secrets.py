"""No ACP message carries a credential omp knows (issue 24, item 8), not even one the
model repeats from what the user typed."""

from __future__ import annotations

import asyncio

from acp import text_block

KEY = "sk-proj-acp-leakcheck-0123456789"


def test_a_key_the_model_repeats_is_hidden_from_the_editor(acp_rig):
    acp_rig.env["OPENAI_API_KEY"] = KEY
    script = acp_rig.script([{"text": f"Your key is {KEY}."}])

    async def body():
        async with acp_rig.connect("--script", str(script)) as (conn, client):
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            await conn.prompt(session_id=sid, prompt=[text_block(f"my key is {KEY}")])
            assert client.text(sid) == "Your key is [REDACTED:OPENAI_API_KEY]."

    asyncio.run(asyncio.wait_for(body(), 60))
