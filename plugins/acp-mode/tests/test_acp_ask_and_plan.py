"""The ``ask`` tool and plan mode in ACP: dialogs as permission requests or form
elicitations, plan mode as the ``plan`` session mode."""

from __future__ import annotations

import asyncio
from typing import Any

from acp import text_block

QUESTION = {
    "id": "storage",
    "question": "Which storage backend?",
    "options": [{"label": "SQLite"}, {"label": "PostgreSQL"}],
}
ASK = [
    {"tool_calls": [{"name": "ask", "arguments": {"questions": [QUESTION]}, "id": "a1"}]},
    {"text": "answered"},
]


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


def ask_result(client: Any, sid: str) -> str:
    end = client.of(sid, "tool_call_update")[-1]
    assert end.status == "completed"
    return end.content[0].content.text


def test_ask_is_a_permission_request_with_one_option_per_label(acp_rig):
    script = acp_rig.script(ASK)

    async def body():
        async with acp_rig.connect("--script", str(script)) as (conn, client):
            client.permission = "1"
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            await conn.prompt(session_id=sid, prompt=[text_block("decide")])
            [(_, call, options)] = client.permission_requests
            assert call.title == "Which storage backend?"
            assert [o.name for o in options] == ["SQLite", "PostgreSQL", "Other (type your own)"]
            assert ask_result(client, sid) == "User selected: PostgreSQL"
            assert client.text(sid) == "answered"

    run(body())


def test_ask_uses_form_elicitations_when_the_client_has_them(acp_rig):
    script = acp_rig.script(ASK)

    async def body():
        async with acp_rig.connect("--script", str(script), elicitation=True) as (conn, client):
            client.form_values = ["Other (type your own)", "MariaDB"]
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            await conn.prompt(session_id=sid, prompt=[text_block("decide")])
            assert client.permission_requests == []
            (title, select), (_, typed) = client.forms
            assert title == "Which storage backend?"
            assert select.enum == ["SQLite", "PostgreSQL", "Other (type your own)"]
            assert typed.enum is None
            assert ask_result(client, sid) == "User provided custom input: MariaDB"

    run(body())


def test_plan_is_a_session_mode(acp_rig):
    script = acp_rig.script(
        [
            {"tool_calls": [{"name": "write", "arguments": {"path": "x.txt", "content": "x"}}]},
            {"text": "planned"},
        ]
    )

    async def body():
        async with acp_rig.connect("--script", str(script)) as (conn, client):
            new = await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])
            sid = new.session_id
            assert "plan" in [m.id for m in new.modes.available_modes]
            await conn.set_session_mode(session_id=sid, mode_id="plan")
            assert client.of(sid, "current_mode_update")[-1].current_mode_id == "plan"
            await conn.prompt(session_id=sid, prompt=[text_block("plan it")])
            end = client.of(sid, "tool_call_update")[-1]
            assert end.status == "failed"
            assert "plan mode is read-only" in end.content[0].content.text
            assert not (acp_rig.cwd / "x.txt").exists()
            await conn.set_session_mode(session_id=sid, mode_id="write")
            assert client.of(sid, "current_mode_update")[-1].current_mode_id == "write"
            await conn.prompt(session_id=sid, prompt=[text_block("/plan")])  # from inside
            assert client.of(sid, "current_mode_update")[-1].current_mode_id == "plan"

    run(body())
