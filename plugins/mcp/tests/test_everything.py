"""The MCP reference server, @modelcontextprotocol/server-everything (pinned; installed
into build/mcp-everything by scripts/setup), over stdio."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mcp_helpers import configure, text_of, tool_results

ROOT = Path(__file__).resolve().parents[3]
SERVER = ROOT / "build" / "mcp-everything" / "node_modules" / ".bin" / "mcp-server-everything"


@pytest.fixture
def everything() -> dict:
    """Never a skip: scripts/setup installs node, npm and the server, and CI runs it."""
    node = shutil.which("node")
    if node is None or not SERVER.exists():
        pytest.fail(
            f"{'node is not installed' if node is None else f'{SERVER} is missing'}: "
            "run scripts/setup (it installs node, npm and server-everything)"
        )
    return {"command": node, "args": [str(SERVER), "stdio"]}


def call(name: str, **arguments: object) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_the_reference_server_tools_resources_and_prompts(omp_harness, everything) -> None:
    configure(omp_harness.agent_dir, {"ev": everything}, mcp={"startupGateMs": 20000})
    session = omp_harness.session(
        script=[
            {
                "tool_calls": [
                    {"name": "mcp__ev__echo", "arguments": {"message": "ping"}},
                    {"name": "mcp__ev__get-sum", "arguments": {"a": 2, "b": 3}},
                    {"name": "mcp__ev__get-tiny-image", "arguments": {}},
                    {
                        "name": "mcp__ev__get-structured-content",
                        "arguments": {"location": "New York"},
                    },
                    {
                        "name": "mcp__ev__get-resource-reference",
                        "arguments": {"resourceType": "Text", "resourceId": 1},
                    },
                ]
            },
            call("read", path="mcp://ev/demo://resource/static/document/features.md", limit=3),
            {"text": "done"},
        ]
    )
    events = omp_harness.run(session, "go")
    results = tool_results(events)
    assert "ping" in text_of(results["mcp__ev__echo"][0])
    assert "5" in text_of(results["mcp__ev__get-sum"][0])
    images = [
        b
        for b in results["mcp__ev__get-tiny-image"][0].result["content"]
        if hasattr(b, "mime_type")
    ]
    assert images and images[0].mime_type == "image/png"
    structured = results["mcp__ev__get-structured-content"][0].result["details"]
    assert "temperature" in structured["structuredContent"]
    assert not results["mcp__ev__get-resource-reference"][0].is_error
    read = results["read"][0]
    assert not read.is_error, text_of(read)
    assert events.final_text() == "done"


def test_the_reference_servers_prompt_is_a_slash_command(omp_harness, everything) -> None:
    configure(omp_harness.agent_dir, {"ev": everything}, mcp={"startupGateMs": 20000})
    session = omp_harness.session(script=[{"text": "sunny"}])
    events = omp_harness.run(session, "/mcp__ev__args-prompt city=Paris")
    users = [e.message for e in events.of("message_end") if e.message.role == "user"]
    assert "Paris" in str(users[0].content)
    assert events.final_text() == "sunny"
