"""Servers that stop answering and servers that print garbage: a call that times out is
cancelled at the server, the server is pinged and restarted when it does not answer,
other servers are never held up, and malformed output is one line per problem."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcp_helpers import configure, run_omp, text_of, tool_results

SERVER = Path(__file__).with_name("misbehaving_server.py")


def call(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": args} for name, args in calls]}


def server(log: Path, *extra: str, timeout_ms: int = 500) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": [str(SERVER), str(log), *extra],
        "timeout": timeout_ms,
    }


def received(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def test_a_busy_server_is_told_to_cancel_and_kept_when_it_answers_a_ping(
    omp_harness, tmp_path: Path
) -> None:
    log = tmp_path / "busy.log"
    configure(omp_harness.agent_dir, {"busy": server(log)}, mcp={"startupGateMs": 20000})
    session = omp_harness.session(
        script=[
            call(("mcp__busy__pid", {})),
            call(("mcp__busy__hang", {})),
            call(("mcp__busy__pid", {})),
            {"text": "k"},
        ]
    )
    events = omp_harness.run(session, "go")
    results = tool_results(events)
    hang = results["mcp__busy__hang"][0]
    assert hang.is_error and "did not answer hang within 0.5 s" in text_of(hang)
    before, after = (text_of(r) for r in results["mcp__busy__pid"])
    assert before == after  # answered the ping: not restarted
    messages = received(log)
    hang_call = next(
        m for m in messages if m.get("method") == "tools/call" and m["params"]["name"] == "hang"
    )
    cancels = [m for m in messages if m.get("method") == "notifications/cancelled"]
    assert [c["params"]["requestId"] for c in cancels] == [hang_call["id"]]
    methods = [m.get("method") for m in messages]
    assert methods.index("notifications/cancelled") < methods.index("ping")


def test_a_frozen_server_is_restarted_and_the_next_call_is_answered(
    omp_harness, tmp_path: Path
) -> None:
    log = tmp_path / "frozen.log"
    configure(
        omp_harness.agent_dir,
        {"stuck": server(log, "--hang", "frozen")},
        mcp={"startupGateMs": 20000},
    )
    session = omp_harness.session(
        script=[
            call(("mcp__stuck__pid", {})),
            call(("mcp__stuck__hang", {})),
            call(("mcp__stuck__pid", {})),
            call(("mcp__stuck__shout", {"text": "still here"})),
            {"text": "k"},
        ]
    )
    events = omp_harness.run(session, "go")
    results = tool_results(events)
    assert results["mcp__stuck__hang"][0].is_error
    first, second = results["mcp__stuck__pid"]
    assert not second.is_error, text_of(second)
    assert text_of(first) != text_of(second)  # a new process
    assert text_of(results["mcp__stuck__shout"][0]) == "STILL HERE"
    notices = [e.message for e in events.of("notice") if "stuck" in e.message]
    assert len(notices) == 1 and "restarting it" in notices[0], notices
    pids = {m["pid"] for m in received(log)}
    assert pids == {int(text_of(first)), int(text_of(second))}


def test_a_call_to_another_server_is_not_held_by_a_hung_one(omp_harness, tmp_path: Path) -> None:
    configure(
        omp_harness.agent_dir,
        {
            "stuck": server(tmp_path / "stuck.log", "--hang", "frozen", timeout_ms=3000),
            "fine": server(tmp_path / "fine.log"),
        },
        mcp={"startupGateMs": 20000},
    )
    session = omp_harness.session(
        script=[
            call(("mcp__stuck__hang", {}), ("mcp__fine__shout", {"text": "beside"})),
            call(("mcp__stuck__pid", {}), ("mcp__fine__shout", {"text": "after"})),
            {"text": "k"},
        ]
    )
    events = omp_harness.run(session, "go")
    ends = [e.tool_name for e in events.of("tool_execution_end")]
    assert ends[:2] == ["mcp__fine__shout", "mcp__stuck__hang"]
    results = tool_results(events)
    assert [text_of(r) for r in results["mcp__fine__shout"]] == ["BESIDE", "AFTER"]
    assert not results["mcp__stuck__pid"][0].is_error


def test_malformed_server_output_is_one_line_per_problem_without_a_traceback(
    tmp_path: Path,
) -> None:
    (tmp_path / "agent").mkdir()
    configure(
        tmp_path / "agent",
        {"noisy": server(tmp_path / "noisy.log", "--garbage", "4", timeout_ms=10000)},
        mcp={"startupGateMs": 20000},
    )
    script = tmp_path / "script.jsonl"
    steps = [call(("mcp__noisy__shout", {"text": "hi"})), {"text": "done"}]
    script.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    proc = run_omp(tmp_path, "-p", "--script", str(script), "go")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "done"
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "noisy" in line]
    assert len(lines) == 4, proc.stderr
    assert all("not JSON-RPC" in line for line in lines), lines
