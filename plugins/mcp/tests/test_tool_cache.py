"""A server still starting when the startup gate closes is offered from the first
request with the tools it listed in an earlier session (as omp does): a call waits for
it, and its live list replaces the cached one when it joins."""

from __future__ import annotations

import json
import time
from pathlib import Path

import omp
from mcp_helpers import configure, stdio_server, text_of, tool_results


def call(name: str, **arguments: object) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


class Offered:
    """The tools each model request offered, with when it was made."""

    def __init__(self) -> None:
        self.requests: list[tuple[float, list[str]]] = []

    @omp.hookimpl
    def omp_context(self, api):
        self.requests.append((time.monotonic(), api.get_active_tools()))


def cache_files(agent_dir: Path) -> list[Path]:
    return sorted((agent_dir / "cache" / "mcp-tools").glob("*.json"))


def slow_once_joined(omp_harness, tmp_path: Path, **settings: object) -> Path:
    """Configure a server that is slow only while ``slow`` exists, and let one session
    see it join (which keeps its tools); the ``slow`` file's path."""
    slow = tmp_path / "slow"
    server = stdio_server("--slow", "2", "--slow-if", str(slow))
    configure(omp_harness.agent_dir, {"demo": server}, mcp={"startupGateMs": 20000, **settings})
    omp_harness.run(omp_harness.session(script=[{"text": "k"}]), "warm up")
    slow.touch()
    return slow


def test_a_server_missing_the_gate_is_offered_from_its_last_tool_list(
    omp_harness, tmp_path: Path
) -> None:
    slow_once_joined(omp_harness, tmp_path)
    (entry,) = cache_files(omp_harness.agent_dir)
    assert "mcp__demo__shout" not in entry.read_text()  # the server's own names are kept
    assert '"shout"' in entry.read_text()
    assert entry.stat().st_mode & 0o777 == 0o600
    configure(
        omp_harness.agent_dir,
        {"demo": stdio_server("--slow", "2", "--slow-if", str(tmp_path / "slow"))},
        mcp={"startupGateMs": 100},
    )
    offered = Offered()
    session = omp_harness.session(
        [offered], script=[call("mcp__demo__shout", text="cached"), {"text": "done"}]
    )
    started = time.monotonic()
    events = omp_harness.run(session, "go")
    first_at, first = offered.requests[0]
    assert first_at - started < 1.5, "the first request waited for the slow server"
    assert "mcp__demo__shout" in first
    (result,) = tool_results(events)["mcp__demo__shout"]
    assert not result.is_error and text_of(result) == "CACHED"  # the call waited for it


def test_a_cache_made_for_another_configuration_is_not_used(omp_harness, tmp_path: Path) -> None:
    slow = slow_once_joined(omp_harness, tmp_path)
    other = stdio_server("--slow", "2", "--slow-if", str(slow), "--tools", "1")
    configure(omp_harness.agent_dir, {"demo": other}, mcp={"startupGateMs": 100})
    offered = Offered()
    omp_harness.run(omp_harness.session([offered], script=[{"text": "k"}]), "go")
    assert not any(n.startswith("mcp__demo__") for n in offered.requests[0][1])


def test_the_live_list_replaces_the_cached_one_when_the_server_joins(
    omp_harness, tmp_path: Path
) -> None:
    slow = slow_once_joined(omp_harness, tmp_path)
    (entry,) = cache_files(omp_harness.agent_dir)
    kept = json.loads(entry.read_text())
    kept["tools"].append({"name": "retired", "description": "gone since", "inputSchema": {}})
    entry.write_text(json.dumps(kept))
    configure(
        omp_harness.agent_dir,
        {"demo": stdio_server("--slow", "2", "--slow-if", str(slow))},
        mcp={"startupGateMs": 100},
    )
    offered = Offered()
    waits = [True]

    async def second_prompt_after_the_join(session):
        import asyncio

        if not waits:
            return
        waits.pop()
        manager = session.plugin_state["omp-mcp"]
        for _ in range(600):
            if manager.connections["demo"].state == "ready":
                return
            await asyncio.sleep(0.05)

    session = omp_harness.session([offered], script=[{"text": "one"}, {"text": "two"}])
    omp_harness.run(session, "one", "two", during=second_prompt_after_the_join)
    (_, first), (_, second) = offered.requests
    assert "mcp__demo__retired" in first and "mcp__demo__shout" in first
    assert "mcp__demo__retired" not in second and "mcp__demo__shout" in second
    assert "retired" not in entry.read_text()  # and the cache now says so


def test_no_secret_reaches_the_cache(omp_harness, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("DEMO_TOKEN", "s3cret-token-value")
    server = stdio_server(
        "--slow", "0", env={"TOKEN": "${DEMO_TOKEN}", "PLAIN": "literal-secret-value"}
    )
    configure(omp_harness.agent_dir, {"demo": server}, mcp={"startupGateMs": 20000})
    omp_harness.run(omp_harness.session(script=[{"text": "k"}]), "go")
    (entry,) = cache_files(omp_harness.agent_dir)
    text = entry.read_text()
    assert "s3cret-token-value" not in text and "literal-secret-value" not in text
