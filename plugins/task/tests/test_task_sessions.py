"""Children's session files in listings and lookups, and an agent's model role resolved
through ``modelRoles``: what a user sees after a task call."""

from __future__ import annotations

import json

import omp
from taskkit import BUILTINS, InitRecorder, results_of, task_call, yield_step


def test_children_are_listed_under_the_parent_and_open_by_id(omp_harness) -> None:
    script = [
        {
            "choose": [
                yield_step("CHILD-A", "found it"),
                yield_step("CHILD-B", "looked"),
                task_call({"name": "A", "task": "CHILD-A"}, {"name": "B", "task": "CHILD-B"}),
            ]
        },
        {"text": "done"},
    ]
    session = omp_harness.session(script=script, builtins=BUILTINS, no_session=False)
    omp_harness.run(session, "go")
    parent = session.session_file.path
    listed = omp.list_sessions(parent.parent, children=True)
    assert [(i.path.name, i.depth) for i in listed] == [
        (parent.name, 0),
        ("0-A.jsonl", 1),
        ("1-B.jsonl", 1),
    ]
    assert {i.parent_session for i in listed[1:]} == {str(parent)}
    assert {i.parent_session_id for i in listed[1:]} == {session.session_id}
    assert [i.path.name for i in omp.list_sessions(parent.parent)] == [parent.name]
    child = omp.find_session(parent.parent, listed[2].id)
    assert child == parent.with_suffix("") / "1-B.jsonl"
    reopened = omp_harness.session(session_path=listed[2].id, builtins=BUILTINS, script=[{}])
    assert reopened.session_file.path == child
    assert reopened.session_depth == 1
    reopened.session_file.close()


def _scout_run(omp_harness, roles: dict[str, str]):
    (omp_harness.agent_dir / "settings.json").write_text(json.dumps({"modelRoles": roles}))
    script = [
        {
            "choose": [
                yield_step("CHILD-S", "mapped"),
                task_call({"name": "S", "agent": "scout", "task": "CHILD-S"}),
            ]
        },
        {"text": "done"},
    ]
    inits = InitRecorder()
    session = omp_harness.session([inits], script=script, builtins=BUILTINS)
    return omp_harness.run(session, "go"), inits


def test_a_scouts_smol_role_is_resolved_through_model_roles(omp_harness) -> None:
    events, inits = _scout_run(omp_harness, {"smol": "scripted/demo:low"})
    (result,) = results_of(events)
    assert result["exitCode"] == 0
    (init,) = inits.events
    assert init.entry["resolvedModel"] == "scripted/demo"
    assert init.entry["thinkingLevel"] == "medium"  # the agent's own level wins


def test_a_role_naming_no_model_fails_that_child_in_one_line(omp_harness) -> None:
    events, _ = _scout_run(omp_harness, {"smol": "no-such-model-xyz"})
    (result,) = results_of(events)
    assert result["exitCode"] != 0
    assert "no-such-model-xyz" in result["output"]
