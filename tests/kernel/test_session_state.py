"""Per-session plugin state and the per-session api: two sessions in one process never
see each other's state, and a tool reaches the api through ctx (issue 9, item 7)."""

from __future__ import annotations

import asyncio

import omp
from omp.tools import Tool
from pydantic import BaseModel


class Note(BaseModel):
    text: str


class Counter:
    """A stateful plugin with no module globals: a tool that counts its own calls per
    session and records each in that session's file through ctx.api."""

    @omp.hookimpl
    def omp_register_tools(self):
        def execute(call_id, params, signal, update, ctx):
            state = ctx.state.setdefault("counter", {"notes": []})
            state["notes"].append(params.text)
            ctx.api.append_entry("counter-note", {"text": params.text})
            return f"{len(state['notes'])} notes: {', '.join(state['notes'])}"

        return [Tool(name="note", description="Keep a note.", parameters=Note, execute=execute)]

    @omp.hookimpl
    def omp_session_start(self, ctx):
        ctx.state["counter"] = {"notes": []}


def _step(n: int) -> dict:
    """Request ``n`` of either session, told apart by the text since the model's last
    reply: the prompt ("go a"), then the tool's previous result ("... a1", "... a2")."""
    choices = []
    for word in ("a", "b"):
        when = f"go {word}" if n == 1 else f"{word}{n - 1}"
        if n < 3:
            call = {"name": "note", "arguments": {"text": f"{word}{n}"}}
            choices.append({"when": when, "tool_calls": [call], "delay": 0.05})
        else:
            choices.append({"when": when, "text": f"{word} done"})
    return {"choose": choices}


SCRIPT = [_step(1), _step(2), _step(3)]


def test_two_concurrent_sessions_keep_their_own_state_and_entries(omp_harness):
    runtime = omp_harness.runtime([Counter()])
    first = omp_harness.session(runtime=runtime, script=SCRIPT, no_session=False)
    second = omp_harness.session(runtime=runtime, script=SCRIPT, no_session=False)

    async def both():
        return await asyncio.gather(
            omp_harness.arun(first, "go a"), omp_harness.arun(second, "go b")
        )

    logs = asyncio.run(both())
    for word, log, session in (("a", logs[0], first), ("b", logs[1], second)):
        results = [
            "".join(b.text for b in e.result["content"]) for e in log.of("tool_execution_end")
        ]
        assert results == [f"1 notes: {word}1", f"2 notes: {word}1, {word}2"]
        entries = [
            e["data"]["text"]
            for e in session.session_file.entries
            if e.get("type") == "custom" and e.get("customType") == "counter-note"
        ]
        assert entries == [f"{word}1", f"{word}2"]
