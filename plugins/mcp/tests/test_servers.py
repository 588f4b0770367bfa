"""Transports, the startup gate, servers that never start, deferral, resources, prompts."""

from __future__ import annotations

import re
import sys
import time

from mcp_helpers import DEMO_TOOLS, configure, stdio_server, text_of, tool_results


def call(name: str, **arguments: object) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_streamable_http_server_with_headers(omp_harness, http_server: str) -> None:
    configure(
        omp_harness.agent_dir,
        {"web": {"type": "http", "url": http_server, "headers": {"X-Test": "1"}}},
        mcp={"startupGateMs": 20000},
    )
    session = omp_harness.session(
        script=[
            call("mcp__web__shout", text="over http"),
            call("mcp__web__header", key="X-Test"),
            {"text": "k"},
        ]
    )
    events = omp_harness.run(session, "go")
    assert text_of(tool_results(events)["mcp__web__shout"][0]) == "OVER HTTP"
    assert text_of(tool_results(events)["mcp__web__header"][0]) == "1"


def test_sse_server(omp_harness, sse_server: str) -> None:
    configure(
        omp_harness.agent_dir,
        {"old": {"type": "sse", "url": sse_server}},
        mcp={"startupGateMs": 20000},
    )
    session = omp_harness.session(script=[call("mcp__old__shout", text="sse"), {"text": "k"}])
    events = omp_harness.run(session, "go")
    assert text_of(tool_results(events)["mcp__old__shout"][0]) == "SSE"


def test_a_call_slower_than_the_server_timeout_fails_and_the_server_stays(omp_harness) -> None:
    configure(
        omp_harness.agent_dir,
        {"demo": stdio_server(timeout=500)},
        mcp={"startupGateMs": 20000},
    )
    session = omp_harness.session(
        script=[
            call("mcp__demo__nap", seconds=3),
            call("mcp__demo__shout", text="a"),
            {"text": "k"},
        ]
    )
    events = omp_harness.run(session, "go")
    nap = tool_results(events)["mcp__demo__nap"][0]
    assert nap.is_error and "did not answer nap within 0.5 s" in text_of(nap)
    assert text_of(tool_results(events)["mcp__demo__shout"][0]) == "A"


def test_approval_settings_apply_to_mcp_tools(omp_harness) -> None:
    configure(
        omp_harness.agent_dir,
        {"demo": stdio_server()},
        mcp={"startupGateMs": 20000},
        tools={"approval": {"mcp__demo__shout": "deny"}},
    )
    session = omp_harness.session(script=[call("mcp__demo__shout", text="a"), {"text": "k"}])
    events = omp_harness.run(session, "go")
    result = tool_results(events)["mcp__demo__shout"][0]
    assert text_of(result) == "Tool call mcp__demo__shout was denied by the tools.approval setting"


def test_a_slow_server_does_not_hold_the_first_prompt_and_joins_when_ready(omp_harness) -> None:
    configure(
        omp_harness.agent_dir, {"slow": stdio_server("--slow", "1.5")}, mcp={"startupGateMs": 100}
    )
    offered: list[tuple[float, list[str]]] = []

    class Spy:
        import omp

        @omp.hookimpl
        def omp_context(self, api):
            offered.append((time.monotonic(), api.get_active_tools()))

    waits = [True]

    async def first_prompt_only(session):
        """Hold the first prompt until the slow server's tools joined (at most 30 s;
        the server sleeps 1.5 s, then the SDK starts: longer on a loaded machine)."""
        import asyncio

        if not waits:
            return
        waits.pop()
        for _ in range(600):
            manager = session.plugin_state.get("omp-mcp")
            if manager is not None and "mcp__slow__shout" in manager.tools:
                return
            await asyncio.sleep(0.05)

    session = omp_harness.session([Spy()], script=[{"text": "first"}, {"text": "second"}])
    started = time.monotonic()
    omp_harness.run(session, "one", "two", during=first_prompt_only)
    (first_at, first), (_, second) = offered
    assert first_at - started < 1.2
    assert "mcp__slow__shout" not in first
    assert "mcp__slow__shout" in second


def test_the_gate_runs_from_the_sessions_start_beside_other_plugins_start_up(
    omp_harness,
) -> None:
    """Another plugin's slow session start is not added to the gate: the first request
    goes out when the gate (counted from the session's start) is over."""
    configure(
        omp_harness.agent_dir, {"slow": stdio_server("--slow", "5")}, mcp={"startupGateMs": 600}
    )
    marks: dict[str, float] = {}

    class SlowStart:
        import omp

        @omp.hookimpl
        async def omp_session_start(self, event):
            import asyncio

            marks["start"] = time.monotonic()
            await asyncio.sleep(0.6)

        @omp.hookimpl
        def omp_context(self, event):
            marks.setdefault("first", time.monotonic())

    session = omp_harness.session([SlowStart()], script=[{"text": "k"}])
    omp_harness.run(session, "go")
    waited = marks["first"] - marks["start"]
    assert waited < 0.95, f"the first request waited {waited:.2f} s (gate 0.6 s, start-up 0.6 s)"


def test_a_server_that_never_starts_is_reported_once_and_the_run_goes_on(omp_harness) -> None:
    configure(
        omp_harness.agent_dir,
        {
            "gone": {"command": sys.executable, "args": ["-c", "import sys; sys.exit('no db')"]},
            "demo": stdio_server(),
        },
        mcp={"startupGateMs": 20000},
    )
    session = omp_harness.session(
        script=[call("mcp__gone__x"), call("mcp__demo__shout", text="ok"), {"text": "fine"}]
    )
    events = omp_harness.run(session, "go")
    warnings = [e.message for e in events.of("notice") if "gone" in e.message]
    assert len(warnings) == 1 and "no db" in warnings[0]
    assert "not found" in text_of(tool_results(events)["mcp__gone__x"][0])
    assert text_of(tool_results(events)["mcp__demo__shout"][0]) == "OK"
    assert events.final_text() == "fine"


def test_two_hundred_tools_are_deferred_behind_one_search_tool(omp_harness) -> None:
    configure(
        omp_harness.agent_dir,
        {"many": stdio_server("--tools", "200")},
        mcp={"startupGateMs": 20000},
    )
    offered: list[list[str]] = []

    class Spy:
        import omp

        @omp.hookimpl
        def omp_context(self, api):
            offered.append(api.get_active_tools())

    session = omp_harness.session(
        [Spy()],
        script=[
            call("mcp_tool_search", query="numbered tool 7", limit=1),
            call("mcp__many__t007", value="hi"),
            {"text": "done"},
        ],
    )
    events = omp_harness.run(session, "go")
    first, second = offered[0], offered[1]
    assert "mcp_tool_search" in first
    assert not [n for n in first if n.startswith("mcp__")]
    assert "mcp__many__t007" in second
    assert len([n for n in second if n.startswith("mcp__")]) == 1
    assert text_of(tool_results(events)["mcp__many__t007"][0]) == "tool 7: hi"


def test_eager_mode_offers_every_tool(omp_harness) -> None:
    configure(
        omp_harness.agent_dir,
        {"many": stdio_server("--tools", "50")},
        mcp={"startupGateMs": 20000, "toolMode": "eager"},
    )
    offered: list[list[str]] = []

    class Spy:
        import omp

        @omp.hookimpl
        def omp_context(self, api):
            offered.append(api.get_active_tools())

    omp_harness.run(omp_harness.session([Spy()], script=[{"text": "x"}]), "go")
    assert len([n for n in offered[0] if n.startswith("mcp__many__t")]) == 50
    assert "mcp_tool_search" not in offered[0]


def test_resources_are_listed_and_read_through_read(omp_harness) -> None:
    configure(omp_harness.agent_dir, {"demo": stdio_server()}, mcp={"startupGateMs": 20000})
    session = omp_harness.session(
        script=[call("read", path="mcp://demo/demo://readme", offset=2), {"text": "ok"}]
    )
    events = omp_harness.run(session, "go")
    assert "line two" in text_of(tool_results(events)["read"][0])
    assert "line one" not in text_of(tool_results(events)["read"][0])
    assert any("mcp://demo/demo://readme" in s for s in session.effective_system_prompt)


def test_prompts_are_slash_commands_with_arguments(omp_harness) -> None:
    configure(omp_harness.agent_dir, {"demo": stdio_server()}, mcp={"startupGateMs": 20000})
    session = omp_harness.session(
        script=[{"choose": [{"when": "looking for speed", "text": "reviewed"}, {"text": "?"}]}]
    )
    events = omp_harness.run(session, "/mcp__demo__review src/a.py focus=speed")
    users = [e.message for e in events.of("message_end") if e.message.role == "user"]
    assert "Please review src/a.py, looking for speed." in str(users[0].content)
    assert events.final_text() == "reviewed"


def test_a_server_that_crashes_again_after_its_restart_waits_out_a_backoff(omp_harness) -> None:
    configure(omp_harness.agent_dir, {"demo": stdio_server()}, mcp={"startupGateMs": 20000})
    session = omp_harness.session(
        script=[
            call("mcp__demo__crash"),
            call("mcp__demo__crash"),  # restarted at once after the first failure
            call("mcp__demo__crash"),  # a second failure in a row: 1 s of backoff
            {"text": "ok"},
        ]
    )
    events = omp_harness.run(session, "go")
    first, second, third = tool_results(events)["mcp__demo__crash"]
    for crashed in (first, second):
        assert crashed.is_error and "crashing on purpose" in text_of(crashed)
    assert third.is_error
    assert re.search(r"MCP server demo is down .*; it restarts on a call in [01] s", text_of(third))
    warnings = [e.message for e in events.of("notice") if "demo failed" in e.message]
    assert len(warnings) == 2  # once per crash; the refused call adds none


def test_two_servers_whose_tool_names_collide_keep_the_first_and_say_so(omp_harness) -> None:
    configure(
        omp_harness.agent_dir,
        {"x.y": stdio_server(), "x_y": stdio_server("--tools", "1")},
        mcp={"startupGateMs": 20000},
    )
    session = omp_harness.session(
        script=[call("mcp__x_y__shout", text="a"), call("mcp__x_y__t000"), {"text": "ok"}]
    )
    events = omp_harness.run(session, "go")
    manager_tools = tool_results(events)
    assert text_of(manager_tools["mcp__x_y__shout"][0]) == "A"
    assert text_of(manager_tools["mcp__x_y__t000"][0]) == "tool 0: "
    notices = [e.message for e in events.of("notice") if "have the names of" in e.message]
    assert len(notices) == 1
    assert "x_y" in notices[0] and "x.y" in notices[0] and "mcp__x_y__shout" in notices[0]


def test_the_default_threshold_defers_above_40_mcp_tools(omp_harness) -> None:
    """The demo server's own tools and enough more to make 40 (offered), then 41."""
    offered: list[list[str]] = []

    class Spy:
        import omp

        @omp.hookimpl
        def omp_context(self, api):
            offered.append(api.get_active_tools())

    configure(
        omp_harness.agent_dir,
        {"at": stdio_server("--tools", str(40 - DEMO_TOOLS))},
        mcp={"startupGateMs": 20000},
    )
    omp_harness.run(omp_harness.session([Spy()], script=[{"text": "x"}]), "go")
    configure(
        omp_harness.agent_dir,
        {"over": stdio_server("--tools", str(41 - DEMO_TOOLS))},
        mcp={"startupGateMs": 20000},
    )
    omp_harness.run(omp_harness.session([Spy()], script=[{"text": "x"}]), "go")
    at, over = offered
    assert len([n for n in at if n.startswith("mcp__at__")]) == 40
    assert "mcp_tool_search" not in at
    assert not [n for n in over if n.startswith("mcp__")] and "mcp_tool_search" in over
