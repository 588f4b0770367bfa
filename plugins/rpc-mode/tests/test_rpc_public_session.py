"""The rpc modes run on the public ``omp.AgentSession`` (as the SDK hands it out), never
on the kernel's own session object: a server given one answers a short conversation."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import omp
from omp_mode_rpc.plugin import omp_register_modes
from omp_mode_rpc.server import RpcServer


class Frames(list[dict[str, Any]]):
    """Stands in for the stdout frame channel: what a client would read."""

    protocol_version = 1
    redact = None

    def write(self, frame: dict[str, Any]) -> None:
        self.append(frame)

    def write_encoded(self, data: bytes, frame: Any) -> None:
        self.append(json.loads(data))

    def response(self, request_id: str) -> dict[str, Any]:
        return next(f for f in self if f.get("type") == "response" and f.get("id") == request_id)


def test_both_rpc_modes_ask_for_the_public_session():
    modes = {mode.name: mode for mode in omp_register_modes(None)}
    assert set(modes) == {"rpc", "rpc-ui"}
    assert all(mode.public_session for mode in modes.values())


def test_a_server_on_an_sdk_session_answers_a_prompt_and_reports_its_state(omp_harness):
    script = omp_harness.script([{"text": "hello from the model"}])

    async def main() -> Frames:
        session = await omp.create_session(
            cwd=omp_harness.cwd, session="memory", flags={"script": str(script)}
        )
        assert isinstance(session, omp.AgentSession)
        frames = Frames()
        server = RpcServer(session, frames)  # type: ignore[arg-type]
        session.subscribe(server._on_event)
        await session.start()
        for frame in [
            {"id": "1", "type": "set_steering_mode", "mode": "all"},
            {"id": "2", "type": "prompt", "message": "hi"},
        ]:
            await server._execute(frame)
        await asyncio.gather(*server._prompts)  # the prompt runs in the background
        await session.wait_for_idle()
        for frame in [
            {"id": "3", "type": "get_state"},
            {"id": "4", "type": "get_last_assistant_text"},
            {"id": "5", "type": "get_branch_messages"},
        ]:
            await server._execute(frame)
        await session.dispose()
        return frames

    frames = asyncio.run(main())
    assert frames.response("2")["success"] is True
    assert [f["type"] for f in frames if f["type"] in ("agent_start", "agent_end")] == [
        "agent_start",
        "agent_end",
    ]
    state = frames.response("3")["data"]
    assert state["messageCount"] == 2 and state["steeringMode"] == "all"
    assert state["isStreaming"] is False and "sessionFile" not in state  # in memory
    assert frames.response("4")["data"] == {"text": "hello from the model"}
    assert [m["text"] for m in frames.response("5")["data"]["messages"]] == ["hi"]
