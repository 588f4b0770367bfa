"""Server notifications: tools re-listed on list_changed, and omp_mcp_notification fired."""

from __future__ import annotations

import asyncio
import time

import omp
from mcp_helpers import configure, stdio_server, text_of, tool_results


def test_list_changed_relists_tools_and_plugins_hear_every_notification(omp_harness) -> None:
    configure(omp_harness.agent_dir, {"demo": stdio_server()}, mcp={"startupGateMs": 20000})
    heard: list[tuple[str, str, dict]] = []

    class Listener:
        @omp.hookimpl
        def omp_mcp_notification(self, event):
            heard.append((event.server, event.method, event.params))

    script = [
        {"tool_calls": [{"name": "mcp__demo__grow", "arguments": {"name": "sprout"}}]},
        {"tool_calls": [{"name": "mcp__demo__sprout", "arguments": {}}]},
        {"text": "done"},
    ]
    session = omp_harness.session([Listener()], script=script)
    events = omp_harness.run(session, "go")
    methods = [m for _, m, _ in heard]
    assert "notifications/tools/list_changed" in methods
    assert ("demo", "notifications/resources/updated", {"uri": "demo://readme"}) in heard
    assert text_of(tool_results(events)["mcp__demo__sprout"][0]) == "sprout says hi"
    assert any(e.type == "mcp_notification" for e in events)


def test_a_prompt_the_server_drops_is_no_longer_a_slash_command(omp_harness) -> None:
    configure(omp_harness.agent_dir, {"demo": stdio_server()}, mcp={"startupGateMs": 20000})
    drop = {"name": "mcp__demo__drop_prompt", "arguments": {"name": "review"}}
    script = [{"text": "hello"}, {"tool_calls": [drop]}, {"text": "dropped"}]
    session = omp_harness.session(script=script)

    async def scenario() -> tuple[bool, bool]:
        await session.prompt("hi")  # past the startup gate: the server's prompts are in
        offered = "mcp__demo__review" in session.commands
        await session.prompt("go")
        await session.wait_for_idle()
        deadline = time.monotonic() + 10
        while "mcp__demo__review" in session.commands and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        kept = "mcp__demo__review" in session.commands
        await session.shutdown()
        return offered, kept

    offered, kept = asyncio.run(scenario())
    assert offered
    assert not kept
