"""Subagent frames (omp's §2.6 item 10): the ``subagent_lifecycle`` /
``subagent_progress`` events a spawning tool announces reach the client only after it
asked with ``set_subagent_subscription`` (default ``off``); ``get_subagents`` lists the
children still running."""

from __future__ import annotations

from typing import Any

from omp_mode_rpc.subagents import SubagentFrames


def _lifecycle(status: str, child: str = "0-Scout", call: str = "call_1") -> dict[str, Any]:
    payload = {"id": child, "agent": "scout", "agentSource": "bundled", "status": status}
    return {
        "type": "subagent_lifecycle",
        "payload": {**payload, "parentToolCallId": call, "index": 0},
    }


def _progress(status: str, child: str = "0-Scout", call: str = "call_1") -> dict[str, Any]:
    progress = {"index": 0, "id": child, "agent": "scout", "status": status, "currentTool": "read"}
    payload = {"index": 0, "agent": "scout", "agentSource": "bundled", "task": "look around"}
    return {
        "type": "subagent_progress",
        "payload": {**payload, "parentToolCallId": call, "progress": progress},
    }


def test_no_frames_until_the_client_subscribes_but_the_registry_knows():
    sent: list[dict[str, Any]] = []
    frames = SubagentFrames(sent.append)
    frames.on_frame(_lifecycle("started"))
    frames.on_frame(_progress("running"))
    assert sent == []
    [snapshot] = frames.snapshots()
    assert snapshot["id"] == "0-Scout" and snapshot["status"] == "running"
    assert snapshot["task"] == "look around" and snapshot["progress"]["currentTool"] == "read"
    assert snapshot["parentToolCallId"] == "call_1"


def test_subscribed_frames_follow_the_announcements_as_omp_filters_them():
    sent: list[dict[str, Any]] = []
    frames = SubagentFrames(sent.append)
    assert frames.set_level("progress") == {"level": "progress"}
    frames.on_frame(_progress("running", child="9-Early"))  # never started: dropped
    frames.on_frame(_lifecycle("started"))
    frames.on_frame(_progress("running"))
    frames.on_frame(_progress("running", call="call_2"))  # another call's child id: dropped
    frames.on_frame(_lifecycle("completed"))
    frames.on_frame(_lifecycle("completed"))  # ended already: dropped
    assert sent == [_lifecycle("started"), _progress("running"), _lifecycle("completed")]
    assert frames.snapshots() == []


def test_off_again_stops_the_frames():
    sent: list[dict[str, Any]] = []
    frames = SubagentFrames(sent.append)
    frames.set_level("events")
    frames.on_frame(_lifecycle("started"))
    frames.set_level("off")
    frames.on_frame(_progress("running"))
    assert sent == [_lifecycle("started")]


def test_subscription_commands_over_the_wire(rpc):
    assert rpc.ok("get_subagents") == {"subagents": []}
    assert rpc.ok("set_subagent_subscription", level="progress") == {"level": "progress"}
    answer = rpc.request("set_subagent_subscription", level="loud")
    assert answer["success"] is False
    assert answer["error"] == "Invalid subagent subscription level: loud"
    assert rpc.ok("set_subagent_subscription", level="off") == {"level": "off"}


def test_a_task_calls_children_reach_a_subscribed_client_only(rpc):
    assert rpc.ok("set_subagent_subscription", level="off") == {"level": "off"}
    quiet = rpc.run("SUBAGENTS")
    assert [f for f in quiet if f["type"].startswith("subagent_")] == []
    update = next(f for f in quiet if f["type"] == "tool_execution_update")
    assert [p["id"] for p in update["partialResult"]["details"]["progress"]] == ["0-One", "1-Two"]

    assert rpc.ok("set_subagent_subscription", level="progress") == {"level": "progress"}
    frames = rpc.run("SUBAGENTS")
    update = next(f for f in frames if f["type"] == "tool_execution_update")
    ids = [p["id"] for p in update["partialResult"]["details"]["progress"]]
    assert len(ids) == 2
    lifecycle = [
        (f["payload"]["id"], f["payload"]["status"])
        for f in frames
        if f["type"] == "subagent_lifecycle"
    ]
    assert sorted(lifecycle) == sorted(
        (child, status) for child in ids for status in ("started", "completed")
    )
    call = next(f for f in frames if f["type"] == "tool_execution_start")["toolCallId"]
    progress = [f["payload"] for f in frames if f["type"] == "subagent_progress"]
    assert progress and all(p["parentToolCallId"] == call for p in progress)
    assert {p["progress"]["id"] for p in progress} == set(ids)
    assert all(p["agent"] == "task" and p["task"].startswith("CHILD-WORK") for p in progress)
    # Ended children leave the registry.
    assert rpc.ok("get_subagents") == {"subagents": []}
    rpc.ok("set_subagent_subscription", level="off")
