"""What the parent gets back: long output cut with the full text at agent://<id> and the
transcript at history://<id> (read with ``read``), the children's usage in the parent's
totals, the spawn hook's veto, and the tool's shape under the settings."""

from __future__ import annotations

from typing import Any

import pytest
from omp import hookimpl
from taskkit import BUILTINS, results_of, task_call, task_text, use_settings, yield_step

BIG = "\n".join(f"line {n} of the report" for n in range(400))


def _read(path: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "read", "arguments": {"path": path}}]}


def _read_texts(events: Any) -> list[str]:
    ends = [e for e in events.of("tool_execution_end") if e.tool_name == "read"]
    return ["".join(block.text for block in e.result["content"]) for e in ends]


@pytest.mark.parametrize("on_disk", [False, True], ids=["in-memory", "session-file"])
def test_long_output_is_cut_and_readable_at_agent_and_history(omp_harness, on_disk) -> None:
    script = [
        {"choose": [yield_step("CHILD-BIG", BIG), task_call({"name": "Big", "task": "CHILD-BIG"})]},
        _read("agent://0-Big"),
        _read("history://0-Big"),
        {"text": "done"},
    ]
    options = {"no_session": False} if on_disk else {}
    session = omp_harness.session(script=script, builtins=BUILTINS, **options)
    events = omp_harness.run(session, "go")
    text = task_text(events)
    assert '<preview full-output="agent://0-Big">' in text
    assert "line 399 of the report" not in text
    assert '<meta lines="400" size="' in text
    full, history = _read_texts(events)
    assert "line 150 of the report" in full  # read pages the full output like a file
    assert "### user" in history and "CHILD-BIG" in history
    assert "#### tool call: yield" in history
    (result,) = results_of(events)
    if on_disk:
        folder = session.session_file.path.with_suffix("")
        assert (folder / "0-Big.md").read_text() == BIG
        assert (folder / "0-Big.jsonl").is_file()
        assert result["outputPath"] == str(folder / "0-Big.md")
    else:
        assert "outputPath" not in result


def test_unknown_ids_are_a_one_line_error(omp_harness) -> None:
    script = [_read("agent://9-Nope"), {"text": "done"}]
    session = omp_harness.session(script=script, builtins=BUILTINS)
    (text,) = _read_texts(omp_harness.run(session, "go"))
    assert text.startswith("Cannot read agent://9-Nope: ") and "\n" not in text


def test_children_usage_rolls_up_into_the_parents_totals(omp_harness) -> None:
    usage = {"input": 100, "output": 10}
    script = [
        {
            "choose": [
                {**yield_step("CHILD-1", "a"), "usage": usage},
                {**yield_step("CHILD-2", "b"), "usage": usage},
                {
                    **task_call({"task": "CHILD-1"}, {"task": "CHILD-2"}),
                    "usage": {"input": 5, "output": 1},
                },
            ]
        },
        {"text": "done", "usage": {"input": 5, "output": 1}},
    ]
    session = omp_harness.session(script=script, builtins=BUILTINS)
    events = omp_harness.run(session, "go")
    totals = session.usage_totals()
    assert totals["requests"] == 4
    assert totals["input"] == 210 and totals["output"] == 22
    ends = [e for e in events.of("tool_execution_end") if e.tool_name == "task"]
    assert ends[0].result["details"]["subagentUsage"]["input"] == 200


class Veto:
    @hookimpl
    def omp_subagent_spawn(self, event: Any) -> Any:
        if "CHILD-NO" in event.task:
            return {"block": True, "reason": "not this one"}
        return None


def test_a_spawn_hook_vetoes_one_child(omp_harness) -> None:
    script = [
        {
            "choose": [
                yield_step("CHILD-YES", "ran"),
                task_call({"name": "No", "task": "CHILD-NO"}, {"name": "Yes", "task": "CHILD-YES"}),
            ]
        },
        {"text": "done"},
    ]
    session = omp_harness.session([Veto()], script=script, builtins=BUILTINS)
    refused, ran = results_of(omp_harness.run(session, "go"))
    assert refused["exitCode"] == 1 and refused["output"] == "spawn blocked: not this one"
    assert ran["output"] == "ran"


def _task_spec(omp_harness) -> dict[str, Any]:
    import asyncio

    session = omp_harness.session(builtins=[*BUILTINS, "scripted"])

    async def spec() -> dict[str, Any]:
        await session.start()
        try:
            return session.tools.get("task").spec()
        finally:
            await session.shutdown()

    return asyncio.run(spec())


def test_the_tool_lists_the_agents_and_offers_isolation_only_with_worktrees(omp_harness) -> None:
    spec = _task_spec(omp_harness)
    assert "- task: " in spec["description"] and "- scout: " in spec["description"]
    item = spec["parameters"]["properties"]["tasks"]["items"]
    assert set(item["properties"]) == {"name", "agent", "task", "outputSchema", "schemaMode"}
    use_settings(omp_harness, isolation={"mode": "worktree"}, batch=False)
    flat = _task_spec(omp_harness)["parameters"]
    assert "context" not in flat["properties"] and "isolated" in flat["properties"]


def test_an_unknown_agent_is_a_one_line_error(omp_harness) -> None:
    script = [task_call({"task": "x", "agent": "wizard"}), {"text": "done"}]
    session = omp_harness.session(script=script, builtins=BUILTINS)
    text = task_text(omp_harness.run(session, "go"))
    assert text.startswith("unknown agent 'wizard' (available: ") and "\n" not in text


def test_with_batch_off_the_tool_takes_one_flat_task(omp_harness) -> None:
    use_settings(omp_harness, batch=False)
    script = [
        {
            "choose": [
                yield_step("CHILD-FLAT", "flat ok"),
                {
                    "tool_calls": [
                        {"name": "task", "arguments": {"task": "CHILD-FLAT", "name": "F"}}
                    ]
                },
            ]
        },
        {"text": "done"},
    ]
    session = omp_harness.session(script=script, builtins=BUILTINS)
    (result,) = results_of(omp_harness.run(session, "go"))
    assert result["id"] == "0-F" and result["output"] == "flat ok"


class Secret:
    @hookimpl
    def omp_session_start(self, api: Any) -> None:
        api.register_secret("hunter2-SECRET-value", "test password")


def test_secrets_never_reach_the_output_files(omp_harness) -> None:
    script = [
        {
            "choose": [
                yield_step("CHILD-S", "the key is hunter2-SECRET-value"),
                task_call({"name": "S", "task": "CHILD-S"}),
            ]
        },
        {"text": "done"},
    ]
    session = omp_harness.session([Secret()], script=script, builtins=BUILTINS, no_session=False)
    events = omp_harness.run(session, "go")
    folder = session.session_file.path.with_suffix("")
    assert "hunter2" not in (folder / "0-S.md").read_text()
    assert "hunter2" not in (folder / "0-S.jsonl").read_text()
    assert "hunter2" not in task_text(events)


def test_a_task_that_looks_like_a_command_is_still_a_task(omp_harness) -> None:
    script = [
        {
            "choose": [
                yield_step("!touch", "plain text"),
                task_call({"task": "!touch pwned"}, context=""),
            ]
        },
        {"text": "done"},
    ]
    session = omp_harness.session(script=script, builtins=BUILTINS)
    (result,) = results_of(omp_harness.run(session, "go"))
    assert result["output"] == "plain text"
    assert not (omp_harness.cwd / "pwned").exists()
