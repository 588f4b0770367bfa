"""An MCP server's credentials (its env and headers) are hidden like provider keys: the
MCP plugin registers them with ``api.register_secret`` (issue 24, item 8)."""

from __future__ import annotations

from mcp_helpers import configure, text_of, tool_results

TOKEN = "mcp-header-token-0123456789"


def test_a_servers_credential_header_never_reaches_a_tool_result(omp_harness, http_server):
    configure(
        omp_harness.agent_dir,
        {"web": {"type": "http", "url": http_server, "headers": {"X-Api-Key": TOKEN}}},
        mcp={"startupGateMs": 20000},
    )
    session = omp_harness.session(
        script=[
            {"tool_calls": [{"name": "mcp__web__header", "arguments": {"key": "X-Api-Key"}}]},
            {"text": "k"},
        ]
    )
    events = omp_harness.run(session, "go")
    [result] = tool_results(events)["mcp__web__header"]
    assert text_of(result) == "[REDACTED:mcp:web:X-Api-Key]"
    assert all(TOKEN not in event.model_dump_json() for event in events)
