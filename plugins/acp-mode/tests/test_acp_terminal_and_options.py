"""``bash`` in the editor's terminal when the client advertises terminals, and the model
and thinking level as the session's config options."""

from __future__ import annotations

import asyncio
import json

import pytest
from acp import RequestError, text_block


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


def bash_call(command: str, call_id: str = "b1") -> dict:
    return {"tool_calls": [{"name": "bash", "arguments": {"command": command}, "id": call_id}]}


def test_bash_runs_in_the_editor_terminal_and_the_model_gets_its_output(acp_rig):
    script = acp_rig.script(
        [bash_call("echo from-the-editor; pwd; exit 3"), {"text": "It failed with 3."}]
    )

    async def body():
        async with acp_rig.connect("--script", str(script), terminal=True) as (conn, client):
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            await conn.set_session_mode(session_id=sid, mode_id="yolo")
            answer = await conn.prompt(session_id=sid, prompt=[text_block("run it")])
            assert answer.stop_reason == "end_turn"
            [(terminal_id, terminal)] = client.terminals.items()
            assert terminal.process.returncode == 3 and terminal.released
            [start] = client.of(sid, "tool_call")
            assert (start.tool_call_id, start.kind) == ("b1", "execute")
            progress = client.of(sid, "tool_call_update")
            shown = [c for p in progress for c in (p.content or []) if c.type == "terminal"]
            assert shown and shown[0].terminal_id == terminal_id
            assert progress[-1].status == "failed"
            result = _tool_result(acp_rig, "b1")
            assert result["isError"] is True
            text = result["content"][0]["text"]
            assert "from-the-editor" in text and str(acp_rig.cwd) in text
            assert "[exit code 3]" in text

    run(body())


def test_cancel_kills_the_command_in_the_editor_terminal(acp_rig):
    script = acp_rig.script([bash_call("echo started; sleep 30"), {"text": "never"}])

    async def body():
        async with acp_rig.connect("--script", str(script), terminal=True) as (conn, client):
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            await conn.set_session_mode(session_id=sid, mode_id="yolo")
            turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("run it")]))
            while not client.terminals or b"started" not in client.terminals["term-1"].output:
                await asyncio.sleep(0.02)
            await conn.cancel(session_id=sid)
            answer = await turn
            assert answer.stop_reason == "cancelled"
            terminal = client.terminals["term-1"]
            assert terminal.killed and terminal.released
            result = _tool_result(acp_rig, "b1")
            assert result["isError"] and "aborted" in result["content"][0]["text"]

    run(body())


def test_without_a_client_terminal_bash_runs_in_the_agent(acp_rig):
    script = acp_rig.script([bash_call("echo local"), {"text": "done"}])

    async def body():
        async with acp_rig.connect("--script", str(script)) as (conn, client):
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            await conn.set_session_mode(session_id=sid, mode_id="yolo")
            await conn.prompt(session_id=sid, prompt=[text_block("run it")])
            assert client.terminals == {}
            assert "local" in _tool_result(acp_rig, "b1")["content"][0]["text"]

    run(body())


def test_model_and_thinking_are_config_options_the_client_can_set(acp_rig):
    peer = {
        "baseUrl": "http://127.0.0.1:9/v1",
        "api": "openai-completions",
        "apiKey": "unused",
        "models": [{"id": "local", "name": "Peer local", "reasoning": True}],
    }
    (acp_rig.agent_dir / "models.json").write_text(json.dumps({"providers": {"peer": peer}}))
    script = acp_rig.script([{"text": "ok", "repeat": True}])

    async def body():
        async with acp_rig.connect("--script", str(script)) as (conn, _client):
            new = await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])
            sid = new.session_id
            options = {o.id: o for o in new.config_options}
            assert options["model"].current_value == "scripted/demo"
            assert {"scripted/demo", "peer/local"} <= {o.value for o in options["model"].options}
            assert options["thinking"].category == "thought_level"
            # the scripted model does not think: the one level it offers is off
            assert [o.value for o in options["thinking"].options] == ["off"]

            changed = await conn.set_config_option(
                session_id=sid, config_id="thinking", value="high"
            )
            assert _current(changed)["thinking"] == "high"
            changed = await conn.set_config_option(
                session_id=sid, config_id="model", value="peer/local"
            )
            assert _current(changed)["model"] == "peer/local"
            offered = {o.id: o for o in changed.config_options}["thinking"].options
            assert [o.value for o in offered] == ["off", "minimal", "low", "medium", "high"]
            with pytest.raises(RequestError):
                await conn.set_config_option(session_id=sid, config_id="model", value="nope/x")
            with pytest.raises(RequestError):
                await conn.set_config_option(session_id=sid, config_id="thinking", value="enormous")
            changed = await conn.set_config_option(
                session_id=sid, config_id="model", value="scripted/demo"
            )
            assert _current(changed) == {"model": "scripted/demo", "thinking": "high"}
            answer = await conn.prompt(session_id=sid, prompt=[text_block("hi")])
            assert answer.stop_reason == "end_turn"

    run(body())
    changes = [e for e in _entries(acp_rig) if e["type"] == "model_change"]
    assert [c["model"] for c in changes][-2:] == ["peer/local", "scripted/demo"]
    assert any(e.get("thinkingLevel") == "high" for e in _entries(acp_rig))


def _current(response) -> dict:
    return {o.id: o.current_value for o in response.config_options}


def _entries(rig) -> list[dict]:
    [path] = rig.agent_dir.glob("sessions/*/*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _tool_result(rig, call_id: str) -> dict:
    for entry in _entries(rig):
        message = entry.get("message") or {}
        if message.get("role") == "toolResult" and message.get("toolCallId") == call_id:
            return message
    raise AssertionError(f"no tool result for {call_id}")


def test_session_flags_given_to_omp_acp_apply_to_every_session(acp_rig):
    peer = {
        "baseUrl": "http://127.0.0.1:9/v1",
        "api": "openai-completions",
        "apiKey": "unused",
        "models": [{"id": "local"}, {"id": "other"}],
    }
    (acp_rig.agent_dir / "models.json").write_text(json.dumps({"providers": {"peer": peer}}))
    (acp_rig.cwd / "notes.txt").write_text("alpha\n")
    script = acp_rig.script(
        [
            {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}, "id": "r1"}]},
            {"text": "ok", "repeat": True},
        ]
    )

    async def model_of(*args):  # no --script: it would choose the scripted model
        async with acp_rig.connect(*args) as (conn, _client):
            new = await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])
            return _current(new)["model"]

    async def body():
        assert await model_of("--provider", "peer") == "peer/local"  # its first model
        assert await model_of("--models", "peer/other,scripted/demo") == "peer/other"
        async with acp_rig.connect("--script", str(script), "--no-builtin-tools") as (
            conn,
            client,
        ):
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            await conn.set_session_mode(session_id=sid, mode_id="yolo")
            await conn.prompt(session_id=sid, prompt=[text_block("read it")])
            [end] = [u for u in client.of(sid, "tool_call_update") if u.tool_call_id == "r1"]
            assert end.status == "failed"  # read is not offered

    run(body())
