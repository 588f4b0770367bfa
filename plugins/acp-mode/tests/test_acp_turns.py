"""``omp acp`` driven by the SDK's client side: prompt turns with tools and
permission requests, cancel, load, fs through the client, two sessions at once."""

from __future__ import annotations

import asyncio

from acp import text_block


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


def test_initialize_advertises_load_images_and_embedded_context(acp_rig):
    async def body():
        async with acp_rig.connect() as (_conn, client):
            caps = client.init.agent_capabilities
            assert caps.load_session is True
            assert caps.prompt_capabilities.image is True
            assert caps.prompt_capabilities.embedded_context is True
            assert client.init.agent_info.name == "omp"
            # the MCP plugin connects http and sse servers too, so the editor may pass them
            assert caps.mcp_capabilities.http is True
            assert caps.mcp_capabilities.sse is True

    run(body())


def test_prompt_turn_streams_thought_text_tool_call_and_asks_permission(acp_rig):
    (acp_rig.cwd / "notes.txt").write_text("alpha\nbeta\n")
    script = acp_rig.script(
        [
            {
                "thinking": "I should look at the notes.",
                "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}, "id": "c1"}],
            },
            {"text": "The notes say alpha and beta."},
        ]
    )

    async def body():
        async with acp_rig.connect("--script", str(script)) as (conn, client):
            new = await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])
            sid = new.session_id
            assert new.modes.current_mode_id == "write"
            await conn.set_session_mode(session_id=sid, mode_id="always-ask")
            answer = await conn.prompt(
                session_id=sid, prompt=[text_block("What do the notes say?")]
            )
            assert answer.stop_reason == "end_turn"
            assert client.text(sid, "agent_thought_chunk") == "I should look at the notes."
            assert client.text(sid) == "The notes say alpha and beta."
            (asked_sid, asked, options) = client.permission_requests[0]
            assert asked_sid == sid and asked.tool_call_id == "c1"
            assert {o.kind for o in options} >= {"allow_once", "reject_once"}
            [start] = client.of(sid, "tool_call")
            assert (start.tool_call_id, start.kind, start.status) == ("c1", "read", "pending")
            assert start.locations[0].path == str(acp_rig.cwd / "notes.txt")
            progress = client.of(sid, "tool_call_update")
            assert [p.status for p in progress] == ["in_progress", "completed"]
            assert "alpha" in progress[-1].content[0].content.text
            assert client.of(sid, "available_commands_update")

    run(body())


def test_a_rejected_permission_fails_the_tool_call(acp_rig):
    (acp_rig.cwd / "notes.txt").write_text("alpha\n")
    script = acp_rig.script(
        [
            {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}, "id": "c1"}]},
            {"text": "I was not allowed."},
        ]
    )

    async def body():
        async with acp_rig.connect("--script", str(script)) as (conn, client):
            client.permission = "reject_once"
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            await conn.set_session_mode(session_id=sid, mode_id="always-ask")
            await conn.prompt(session_id=sid, prompt=[text_block("read it")])
            [end] = client.of(sid, "tool_call_update")
            assert end.status == "failed"
            assert "denied" in end.content[0].content.text

    run(body())


def test_cancel_mid_turn_stops_the_running_tool_and_answers_cancelled(acp_rig):
    script = acp_rig.script(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 30"}, "id": "s1"}]},
            {"text": "never reached"},
        ]
    )

    async def body():
        async with acp_rig.connect("--script", str(script)) as (conn, client):
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("wait")]))
            while not client.of(sid, "tool_call"):
                await asyncio.sleep(0.05)
            started = asyncio.get_running_loop().time()
            await conn.cancel(session_id=sid)
            answer = await turn
            assert answer.stop_reason == "cancelled"
            assert asyncio.get_running_loop().time() - started < 5
            assert client.of(sid, "tool_call_update")[-1].status == "failed"
            assert "never reached" not in client.text(sid)

    run(body())


def test_load_replays_a_saved_session_and_goes_on(acp_rig):
    (acp_rig.cwd / "notes.txt").write_text("alpha\n")
    script = acp_rig.script(
        [
            {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}, "id": "r1"}]},
            {"text": "It says alpha."},
            {"text": "Still alpha."},
        ]
    )

    async def first():
        async with acp_rig.connect("--script", str(script)) as (conn, _client):
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            await conn.prompt(session_id=sid, prompt=[text_block("What does it say?")])
            return sid

    async def second(sid):
        async with acp_rig.connect("--script", str(script)) as (conn, client):
            await conn.load_session(cwd=str(acp_rig.cwd), session_id=sid, mcp_servers=[])
            kinds = [u.session_update for s, u in client.updates if s == sid]
            replayed = kinds[: kinds.index("available_commands_update")]
            assert replayed == [
                "user_message_chunk",
                "tool_call",
                "tool_call_update",
                "agent_message_chunk",
            ]
            assert client.text(sid, "user_message_chunk") == "What does it say?"
            assert client.of(sid, "tool_call_update")[0].status == "completed"
            assert client.text(sid) == "It says alpha."
            answer = await conn.prompt(session_id=sid, prompt=[text_block("And now?")])
            assert answer.stop_reason == "end_turn"
            assert client.text(sid).endswith("Still alpha.")

    sid = run(first())
    run(second(sid))


def test_files_go_through_the_client_buffers_and_edits_come_back_as_diffs(acp_rig):
    notes = acp_rig.cwd / "notes.txt"
    notes.write_text("saved text\n")
    script = acp_rig.script(
        [
            {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}, "id": "r1"}]},
            {
                "tool_calls": [
                    {
                        "name": "edit",
                        "arguments": {
                            "path": "notes.txt",
                            "edits": [{"oldText": "unsaved", "newText": "edited"}],
                        },
                        "id": "e1",
                    }
                ]
            },
            {
                "tool_calls": [
                    {
                        "name": "todo_write",
                        "arguments": {
                            "todos": [
                                {"content": "Edit the notes", "status": "completed"},
                                {"content": "Tell the user", "status": "in_progress"},
                            ]
                        },
                        "id": "t1",
                    }
                ]
            },
            {"text": "Done."},
        ]
    )

    async def body():
        async with acp_rig.connect("--script", str(script), fs=True) as (conn, client):
            client.buffers[str(notes)] = "unsaved text\n"
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            await conn.prompt(session_id=sid, prompt=[text_block("fix the notes")])
            ends = {u.tool_call_id: u for u in client.of(sid, "tool_call_update")}
            assert "unsaved text" in ends["r1"].content[0].content.text
            assert client.writes == [(str(notes), "edited text\n")]
            assert notes.read_text() == "saved text\n"  # the editor saves, not omp
            [diff] = ends["e1"].content
            assert (diff.type, diff.path) == ("diff", str(notes))
            assert (diff.old_text, diff.new_text) == ("unsaved text", "edited text")
            [start] = [u for u in client.of(sid, "tool_call") if u.tool_call_id == "e1"]
            assert start.kind == "edit"
            [plan] = client.of(sid, "plan")
            assert [(e.content, e.status) for e in plan.entries] == [
                ("Edit the notes", "completed"),
                ("Tell the user", "in_progress"),
            ]

    run(body())


def test_two_sessions_run_at_once_on_one_connection(acp_rig):
    other = acp_rig.root / "other"
    other.mkdir()
    script = acp_rig.script(
        [
            {
                "choose": [
                    {"when": "apple", "text": "Apples are red.", "delay": 1.0},
                    {"when": "pear", "text": "Pears are green.", "delay": 1.0},
                ]
            }
        ]
    )

    async def body():
        async with acp_rig.connect("--script", str(script)) as (conn, client):
            a = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            b = (await conn.new_session(cwd=str(other), mcp_servers=[])).session_id
            assert a != b
            started = asyncio.get_running_loop().time()
            answers = await asyncio.gather(
                conn.prompt(session_id=a, prompt=[text_block("apple?")]),
                conn.prompt(session_id=b, prompt=[text_block("pear?")]),
            )
            elapsed = asyncio.get_running_loop().time() - started
            assert [x.stop_reason for x in answers] == ["end_turn", "end_turn"]
            assert client.text(a) == "Apples are red."
            assert client.text(b) == "Pears are green."
            assert elapsed < 1.9, elapsed  # concurrent, not one after the other

    run(body())


def test_mode_acp_serves_the_same_protocol_and_leaves_stdin_to_it(acp_rig):
    script = acp_rig.script([{"text": "hi from the mode"}])

    async def body():
        entry = ("--mode", "acp")
        async with acp_rig.connect("--script", str(script), entry=entry) as (conn, client):
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            answer = await conn.prompt(session_id=sid, prompt=[text_block("hello")])
            assert answer.stop_reason == "end_turn"
            assert client.text(sid) == "hi from the mode"

    run(body())


def test_write_shows_a_diff_against_the_old_text_or_none_for_a_new_file(acp_rig):
    (acp_rig.cwd / "old.txt").write_text("before\n")
    script = acp_rig.script(
        [
            {
                "tool_calls": [
                    {
                        "name": "write",
                        "arguments": {"path": "old.txt", "content": "after\n"},
                        "id": "w1",
                    },
                    {
                        "name": "write",
                        "arguments": {"path": "new.txt", "content": "fresh\n"},
                        "id": "w2",
                    },
                ]
            },
            {"text": "Written."},
        ]
    )

    async def body():
        async with acp_rig.connect("--script", str(script)) as (conn, client):
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            await conn.set_session_mode(session_id=sid, mode_id="yolo")
            await conn.prompt(session_id=sid, prompt=[text_block("write them")])
            ends = {
                u.tool_call_id: u
                for u in client.of(sid, "tool_call_update")
                if u.status == "completed"
            }
            [old] = ends["w1"].content
            assert (old.type, old.path) == ("diff", str(acp_rig.cwd / "old.txt"))
            assert (old.old_text, old.new_text) == ("before\n", "after\n")
            [new] = ends["w2"].content
            assert (new.path, new.old_text, new.new_text) == (
                str(acp_rig.cwd / "new.txt"),
                None,
                "fresh\n",
            )
            starts = {u.tool_call_id: u for u in client.of(sid, "tool_call")}
            assert starts["w1"].kind == "edit"
            assert starts["w2"].locations[0].path == str(acp_rig.cwd / "new.txt")

    run(body())


def test_cancel_while_a_permission_request_is_open(acp_rig):
    (acp_rig.cwd / "notes.txt").write_text("alpha\n")
    script = acp_rig.script(
        [
            {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}, "id": "c1"}]},
            {"text": "never reached"},
        ]
    )

    async def body():
        async with acp_rig.connect("--script", str(script)) as (conn, client):
            client.permission = None  # as the protocol asks: a cancelled turn's request
            client.permission_gate = asyncio.Event()  # is answered "cancelled"
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            await conn.set_session_mode(session_id=sid, mode_id="always-ask")
            turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("go")]))
            while not client.permission_requests:
                await asyncio.sleep(0.02)
            await conn.cancel(session_id=sid)
            client.permission_gate.set()
            answer = await turn
            assert answer.stop_reason == "cancelled"
            assert client.of(sid, "tool_call_update")[-1].status == "failed"
            assert "never reached" not in client.text(sid)

    run(body())


PRINTER = """
import os
import sys

import omp


@omp.hookimpl
def omp_session_start(ctx):
    print("a plugin printing to stdout in acp")
    sys.stdout.flush()
    os.system("echo a child process printing too")


@omp.hookimpl
def omp_tool_call(event):
    print("printing during a turn", flush=True)
"""


def test_what_plugins_print_goes_to_stderr_not_the_protocol(acp_rig, capfd):
    extension = acp_rig.root / "printer.py"
    extension.write_text(PRINTER)
    (acp_rig.cwd / "notes.txt").write_text("alpha\n")
    script = acp_rig.script(
        [
            {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}, "id": "r1"}]},
            {"text": "read it"},
        ]
    )

    async def body():
        args = ("--script", str(script), "-e", str(extension), "--trust")
        async with acp_rig.connect(*args) as (conn, client):
            sid = (await conn.new_session(cwd=str(acp_rig.cwd), mcp_servers=[])).session_id
            await conn.set_session_mode(session_id=sid, mode_id="yolo")
            answer = await conn.prompt(session_id=sid, prompt=[text_block("read")])
            assert answer.stop_reason == "end_turn"
            assert client.text(sid) == "read it"

    run(body())
    err = capfd.readouterr().err
    for line in ("a plugin printing", "a child process printing", "printing during a turn"):
        assert line in err
