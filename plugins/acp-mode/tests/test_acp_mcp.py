"""MCP servers the editor passes in ``session/new`` and ``session/load`` (ACP's
``McpServer`` shapes: stdio with command/args/env, http and sse with url/headers) are
connected for that session by the MCP plugin; its tools reach the model as
``mcp__<name>__<tool>``."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from acp import schema, text_block

DEMO = Path(__file__).parents[2] / "mcp" / "tests" / "demo_server.py"


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 90))


def call(name: str, arguments: dict, call_id: str) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments, "id": call_id}]}


def wait_gate(acp_rig) -> None:
    """Servers join before the first turn (the startup gate is 250 ms by default)."""
    (acp_rig.agent_dir / "settings.json").write_text(json.dumps({"mcp": {"startupGateMs": 20000}}))


def tool_text(client, sid: str, call_id: str) -> str:
    [end] = [
        u
        for u in client.of(sid, "tool_call_update")
        if u.tool_call_id == call_id and u.status in ("completed", "failed")
    ]
    assert end.status == "completed", end
    return end.content[0].content.text


def test_a_stdio_server_from_the_editor_serves_tools_in_that_session(acp_rig, capfd):
    wait_gate(acp_rig)
    server = schema.McpServerStdio(
        name="editor",
        command=sys.executable,
        args=[str(DEMO), "stdio"],
        env=[schema.EnvVariable(name="DEMO_UNUSED", value="1")],
    )
    script = acp_rig.script(
        [call("mcp__editor__shout", {"text": "hello from acp"}, "m1"), {"text": "done"}]
    )

    async def body():
        async with acp_rig.connect("--script", str(script)) as (conn, client):
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[server])).session_id
            await conn.set_session_mode(session_id=sid, mode_id="yolo")
            answer = await conn.prompt(session_id=sid, prompt=[text_block("shout it")])
            assert answer.stop_reason == "end_turn"
            assert tool_text(client, sid, "m1") == "HELLO FROM ACP"
            assert client.text(sid) == "done"

    run(body())
    assert "not connected" not in capfd.readouterr().err


@pytest.fixture
def http_url():
    """The demo server over streamable HTTP on a loopback port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, str(DEMO), "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    proc.wait(10)


def test_an_http_server_from_the_editor_is_connected(acp_rig, http_url):
    wait_gate(acp_rig)
    server = schema.HttpMcpServer(
        type="http",
        name="remote",
        url=http_url,
        headers=[schema.HttpHeader(name="X-Editor", value="zed")],
    )
    script = acp_rig.script(
        [call("mcp__remote__weather", {"city": "Oslo"}, "w1"), {"text": "sunny"}]
    )

    async def body():
        async with acp_rig.connect("--script", str(script)) as (conn, client):
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[server])).session_id
            await conn.set_session_mode(session_id=sid, mode_id="yolo")
            await conn.prompt(session_id=sid, prompt=[text_block("weather?")])
            assert "Oslo" in tool_text(client, sid, "w1")

    run(body())


def test_without_the_mcp_plugin_the_servers_are_named_as_not_connected(acp_rig, capfd):
    acp_rig.env["OMP_DISABLED_PLUGINS"] = "mcp"
    server = schema.McpServerStdio(name="editor-db", command="db-mcp", args=[], env=[])
    script = acp_rig.script([{"text": "ok", "repeat": True}])

    async def body():
        async with acp_rig.connect("--script", str(script)) as (conn, client):
            new = await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[server])
            answer = await conn.prompt(session_id=new.session_id, prompt=[text_block("hi")])
            assert answer.stop_reason == "end_turn"
            assert client.text(new.session_id) == "ok"

    run(body())
    assert "not connected: editor-db" in capfd.readouterr().err
