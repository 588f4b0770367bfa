"""Children may spawn children while their depth is below task.maxRecursionDepth; at the
limit the task tool is not offered. Each child's session_init names its parent."""

from __future__ import annotations

from typing import Any

from omp import hookimpl
from taskkit import (
    BUILTINS,
    add_user_agent,
    init_recorder,
    results_of,
    task_call,
    use_settings,
    yield_step,
)


class ToolsSeen:
    """The tools each session offers when its run starts, by depth."""

    def __init__(self) -> None:
        self.by_depth: dict[int, list[str]] = {}

    @hookimpl
    def omp_agent_start(self, ctx: Any, api: Any) -> None:
        self.by_depth[ctx.session_depth] = api.get_active_tools()


NESTED = [
    {
        "choose": [
            yield_step("CHILD-L2", "deep"),
            {
                **task_call({"name": "Inner", "task": "CHILD-L2", "agent": "nester"}, context="c2"),
                "when": "CHILD-L1",
            },
            task_call({"name": "Outer", "task": "CHILD-L1", "agent": "nester"}),
        ]
    },
    {"choose": [{"when": "MIDDLE", "text": "done"}, yield_step("deep", "MIDDLE")]},
]


def test_children_spawn_children_up_to_the_limit(omp_harness) -> None:
    add_user_agent(omp_harness)
    seen, inits = ToolsSeen(), init_recorder()
    session = omp_harness.session([seen, inits], script=NESTED, builtins=BUILTINS)
    events = omp_harness.run(session, "go")
    (outer,) = results_of(events)
    assert outer["id"] == "0-Outer" and outer["output"] == "MIDDLE"
    assert "task" in seen.by_depth[0] and "task" in seen.by_depth[1]
    assert "task" not in seen.by_depth[2] and "yield" in seen.by_depth[2]
    assert "yield" not in seen.by_depth[0]
    depths = {e.depth: e for e in inits.events}
    assert sorted(depths) == [1, 2]
    assert depths[1].parent_session_id == session.session_file.session_id
    assert depths[2].parent_session_id == depths[1].session_id
    assert depths[2].entry["taskId"] == "0-Outer.0-Inner"
    assert "task" not in depths[2].entry["tools"]


def test_at_depth_limit_one_children_get_no_task_tool(omp_harness) -> None:
    use_settings(omp_harness, maxRecursionDepth=1)
    add_user_agent(omp_harness)
    seen = ToolsSeen()
    script = [
        {
            "choose": [
                yield_step("CHILD-L1", "leaf"),
                task_call({"task": "CHILD-L1", "agent": "nester"}),
            ]
        },
        {"text": "done"},
    ]
    session = omp_harness.session([seen], script=script, builtins=BUILTINS)
    omp_harness.run(session, "go")
    assert "task" in seen.by_depth[0]
    assert "task" not in seen.by_depth[1]


def test_an_agent_without_spawns_cannot_spawn(omp_harness) -> None:
    seen = ToolsSeen()
    script = [
        {
            "choose": [
                yield_step("CHILD-L1", "leaf"),
                task_call({"task": "CHILD-L1", "agent": "scout"}),
            ]
        },
        {"text": "done"},
    ]
    session = omp_harness.session([seen], script=script, builtins=BUILTINS)
    events = omp_harness.run(session, "go")
    assert results_of(events)[0]["exitCode"] == 0
    assert seen.by_depth[1] == ["read", "yield"]  # scout's tools the parent has, and yield


ROLE_AGENT = """---
name: quick
description: Uses the fast model
model: "@smol"
---
Be quick.
"""


def test_an_agents_model_role_is_resolved_through_the_settings(omp_harness) -> None:
    import json

    add_user_agent(omp_harness, ROLE_AGENT, "quick")
    settings = {"modelRoles": {"smol": "scripted/demo:high"}}
    (omp_harness.agent_dir / "settings.json").write_text(json.dumps(settings))
    inits = init_recorder()
    script = [
        {
            "choose": [
                yield_step("CHILD-Q", "fast"),
                task_call({"task": "CHILD-Q", "agent": "quick"}, {"task": "CHILD-Q plain"}),
            ]
        },
        {"text": "done"},
    ]
    session = omp_harness.session([inits], script=script, builtins=BUILTINS)
    omp_harness.run(session, "go")
    by_agent = {e.entry["agent"]: e.entry for e in inits.events}
    assert by_agent["quick"]["resolvedModel"] == "scripted/demo"
    assert by_agent["quick"]["thinkingLevel"] == "high"
    assert by_agent["quick"]["modelRole"] == "@smol"
    assert by_agent["task"]["thinkingLevel"] == session.agent.thinking_level
