"""MCP tools in a session: called by the model like built-ins, results converted."""

from __future__ import annotations

import os

from mcp_helpers import configure, stdio_server, text_of, tool_results


def call(name: str, **arguments: object) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_stdio_tools_give_text_images_and_structured_content(omp_harness) -> None:
    configure(omp_harness.agent_dir, {"demo": stdio_server()}, mcp={"startupGateMs": 20000})
    recorder_calls: list[str] = []

    class Gate:
        import omp

        @omp.hookimpl
        def omp_tool_call(self, event):
            recorder_calls.append(event.tool_name)

    session = omp_harness.session(
        [Gate()],
        script=[
            {
                "tool_calls": [
                    {"name": "mcp__demo__shout", "arguments": {"text": "hi"}},
                    {"name": "mcp__demo__pixel", "arguments": {}},
                    {"name": "mcp__demo__weather", "arguments": {"city": "Oslo"}},
                ]
            },
            {"text": "done"},
        ],
    )
    events = omp_harness.run(session, "go")
    results = tool_results(events)
    assert text_of(results["mcp__demo__shout"][0]) == "HI"
    (image,) = results["mcp__demo__pixel"][0].result["content"]
    assert image.mime_type == "image/png"
    weather = results["mcp__demo__weather"][0]
    assert '"celsius": 21.5' in text_of(weather)
    assert weather.result["details"]["structuredContent"] == {"city": "Oslo", "celsius": 21.5}
    assert set(recorder_calls) == {"mcp__demo__shout", "mcp__demo__pixel", "mcp__demo__weather"}


def test_a_tool_call_hook_blocks_an_mcp_tool_like_any_tool(omp_harness) -> None:
    configure(omp_harness.agent_dir, {"demo": stdio_server()}, mcp={"startupGateMs": 20000})

    class Gate:
        import omp

        @omp.hookimpl
        def omp_tool_call(self, event):
            if event.tool_name.startswith("mcp__"):
                return {"block": True, "reason": "no MCP today"}

    session = omp_harness.session(
        [Gate()], script=[call("mcp__demo__shout", text="x"), {"text": "ok"}]
    )
    events = omp_harness.run(session, "go")
    result = tool_results(events)["mcp__demo__shout"][0]
    assert text_of(result) == "no MCP today"


def test_a_5_mb_result_is_cut_and_kept_whole_as_an_artifact(omp_harness) -> None:
    configure(omp_harness.agent_dir, {"demo": stdio_server()}, mcp={"startupGateMs": 20000})
    seen: dict[str, str] = {}

    class Rewrite:
        import omp

        @omp.hookimpl
        def omp_tool_call(self, event):
            if event.tool_name == "read":
                return {"input": {"path": seen["artifact"], "offset": 1, "limit": 1}}

        @omp.hookimpl
        def omp_tool_result(self, event):
            if event.tool_name == "mcp__demo__big":
                seen["artifact"] = event.details["artifact"]

    session = omp_harness.session(
        [Rewrite()],
        script=[call("mcp__demo__big"), call("read", path="x"), {"text": "ok"}],
    )
    events = omp_harness.run(session, "go")
    big = tool_results(events)["mcp__demo__big"][0]
    text = text_of(big)
    assert len(text.encode()) < 60 * 1024
    assert "cut at 51200 of 5242880 bytes" in text and seen["artifact"] in text
    read = text_of(tool_results(events)["read"][0])
    assert "x" * 1000 in read


def test_a_server_crashing_mid_call_is_reported_and_restarted_on_the_next_call(
    omp_harness,
) -> None:
    configure(omp_harness.agent_dir, {"demo": stdio_server()}, mcp={"startupGateMs": 20000})
    groups: list[list[int]] = []

    class Groups:
        import omp

        @omp.hookimpl
        def omp_tool_result(self, event):
            from omp import running_process_groups

            if event.tool_name == "mcp__demo__pid":
                groups.append(running_process_groups())

    session = omp_harness.session(
        [Groups()],
        script=[
            call("mcp__demo__pid"),
            call("mcp__demo__crash"),
            call("mcp__demo__pid"),
            {"text": "ok"},
        ],
    )
    events = omp_harness.run(session, "go")
    results = tool_results(events)
    first, second = (text_of(r) for r in results["mcp__demo__pid"])
    crash = results["mcp__demo__crash"][0]
    assert crash.is_error
    assert "crashing on purpose" in text_of(crash)
    assert first != second and second.isdigit()
    assert int(first) in groups[0] and int(second) in groups[1]  # killed with omp on SIGTERM
    warnings = [e.message for e in events.of("notice") if "demo failed" in e.message]
    assert len(warnings) == 1
    for pid in (int(first), int(second)):
        try:
            os.kill(pid, 0)
            alive = True
        except ProcessLookupError:
            alive = False
        assert not alive, f"server process {pid} outlived the session"


def test_sequential_thinking_enforcement_holds_mcp_tools_like_any_tool(omp_harness) -> None:
    configure(
        omp_harness.agent_dir,
        {"demo": stdio_server()},
        mcp={"startupGateMs": 20000},
        sequentialThinking={"forcedThoughts": 1},
    )
    thought = {
        "thought": "shout it",
        "thoughtNumber": 1,
        "totalThoughts": 1,
        "nextThoughtNeeded": False,
    }
    session = omp_harness.session(
        script=[
            call("mcp__demo__shout", text="early"),
            call("sequential_thinking", **thought),
            call("mcp__demo__shout", text="late"),
            {"text": "ok"},
        ]
    )
    events = omp_harness.run(session, "go")
    early, late = tool_results(events)["mcp__demo__shout"]
    assert early.is_error and "Sequential thinking is required" in text_of(early)
    assert text_of(late) == "LATE"


def test_stdio_servers_inherit_the_users_environment(omp_harness, monkeypatch) -> None:
    """As Claude Code, Cursor and Gemini CLI start them: a server configured without
    ``env`` still finds the token or proxy the user exported."""
    monkeypatch.setenv("MCP_TEST_EXPORTED", "from the shell")
    monkeypatch.setenv("MCP_TEST_OVERRIDDEN", "from the shell")
    configure(
        omp_harness.agent_dir,
        {"demo": stdio_server(env={"MCP_TEST_OVERRIDDEN": "from the config"})},
        mcp={"startupGateMs": 20000},
    )
    session = omp_harness.session(
        script=[
            {
                "tool_calls": [
                    {"name": "mcp__demo__getenv", "arguments": {"key": "MCP_TEST_EXPORTED"}},
                    {"name": "mcp__demo__getenv", "arguments": {"key": "MCP_TEST_OVERRIDDEN"}},
                ]
            },
            {"text": "ok"},
        ]
    )
    events = omp_harness.run(session, "go")
    values = sorted(text_of(r) for r in tool_results(events)["mcp__demo__getenv"])
    assert values == ["from the config", "from the shell"]


def test_an_aborted_mcp_call_ends_at_once_and_the_server_answers_the_next(omp_harness) -> None:
    import asyncio
    import time

    configure(omp_harness.agent_dir, {"demo": stdio_server()}, mcp={"startupGateMs": 20000})
    session = omp_harness.session(
        script=[
            call("mcp__demo__nap", seconds=60),
            call("mcp__demo__shout", text="after"),
            {"text": "ok"},
        ]
    )
    pending = [True]

    async def abort_the_first(session):
        if pending and pending.pop():
            await asyncio.sleep(1.5)
            session.abort()

    started = time.monotonic()
    events = omp_harness.run(session, "nap", "again", during=abort_the_first)
    assert time.monotonic() - started < 30
    results = tool_results(events)
    nap = results["mcp__demo__nap"][0]
    assert nap.is_error and "aborted" in text_of(nap)
    assert text_of(results["mcp__demo__shout"][0]) == "AFTER"


def test_a_server_that_died_between_calls_is_restarted_by_the_next_call(omp_harness) -> None:
    import signal
    import time

    configure(omp_harness.agent_dir, {"demo": stdio_server()}, mcp={"startupGateMs": 20000})

    class KillAfterPid:
        import omp

        @omp.hookimpl
        def omp_tool_result(self, event):
            if event.tool_name == "mcp__demo__pid":
                pid = int(event.content[0].text)
                os.kill(pid, signal.SIGKILL)
                for _ in range(100):  # until it is reaped
                    try:
                        os.kill(pid, 0)
                    except ProcessLookupError:
                        break
                    time.sleep(0.02)

    session = omp_harness.session(
        [KillAfterPid()],
        script=[call("mcp__demo__pid"), call("mcp__demo__shout", text="back"), {"text": "ok"}],
    )
    events = omp_harness.run(session, "go")
    assert text_of(tool_results(events)["mcp__demo__shout"][0]) == "BACK"
    warnings = [e.message for e in events.of("notice") if "demo" in e.message]
    assert len(warnings) == 1 and "exited" in warnings[0]


def test_the_servers_whole_process_group_ends_with_the_session(omp_harness) -> None:
    import time

    configure(omp_harness.agent_dir, {"demo": stdio_server()}, mcp={"startupGateMs": 20000})
    session = omp_harness.session(script=[call("mcp__demo__spawn_child"), {"text": "ok"}])
    events = omp_harness.run(session, "go")
    child = int(text_of(tool_results(events)["mcp__demo__spawn_child"][0]))
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(child, 9)
    raise AssertionError("a child the MCP server started outlived the session")
