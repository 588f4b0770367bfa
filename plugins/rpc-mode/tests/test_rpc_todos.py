"""The todo list in ``get_state`` (omp's ``todoPhases``) and ``set_todos``: the host
sets the list, the model's next ``todo_write`` replaces it, and it is kept in the
session file like the model's."""

from __future__ import annotations

import json

MODEL_LIST = [
    {
        "name": "Todos",
        "tasks": [
            {"content": "Read the code", "status": "completed"},
            {"content": "Fix the bug", "status": "in_progress"},
            {"content": "Run the tests", "status": "pending"},
        ],
    }
]
HOST_PHASES = [
    {"name": "Plan", "tasks": [{"content": "Sketch the fix", "status": "completed"}]},
    {
        "name": "Build",
        "tasks": [
            {"content": "Write the test", "status": "in_progress"},
            {"content": "Ship it", "status": "pending", "blocker": "review"},
        ],
    },
]


def test_get_state_reports_the_todo_list_as_omp_phases(fresh_rpc):
    rpc = fresh_rpc()
    assert rpc.ok("get_state")["todoPhases"] == []
    rpc.run("TODOS")
    assert rpc.ok("get_state")["todoPhases"] == MODEL_LIST


def test_set_todos_replaces_the_list_until_the_model_writes_one(fresh_rpc):
    rpc = fresh_rpc()
    assert rpc.ok("set_todos", phases=HOST_PHASES) == {"todoPhases": HOST_PHASES}
    state = rpc.ok("get_state")
    assert state["todoPhases"] == HOST_PHASES
    session_file = state["sessionFile"]
    rpc.run("TODOS")
    assert rpc.ok("get_state")["todoPhases"] == MODEL_LIST
    assert rpc.ok("set_todos", phases=[]) == {"todoPhases": []}
    assert rpc.ok("get_state")["todoPhases"] == []
    rpc.close()
    with open(session_file, encoding="utf-8") as lines:
        kinds = [json.loads(line).get("customType") for line in lines if '"custom"' in line]
    assert kinds.count("todos") == 2  # both host lists are on disk


def test_set_todos_refuses_a_malformed_list_in_one_line(fresh_rpc):
    rpc = fresh_rpc()
    for phases in ("todo", [{"name": "x", "tasks": [{"status": "pending"}]}], [{"tasks": []}]):
        answer = rpc.request("set_todos", phases=phases)
        assert answer["success"] is False, answer
        assert "\n" not in answer["error"] and "phases" in answer["error"], answer
    bad_status = [{"name": "x", "tasks": [{"content": "a", "status": "someday"}]}]
    assert "someday" in rpc.request("set_todos", phases=bad_status)["error"]
    assert rpc.ok("get_state")["todoPhases"] == []


def test_without_the_todo_plugin_set_todos_names_what_is_missing(fresh_rpc):
    rpc = fresh_rpc(env={"OMP_DISABLED_PLUGINS": "todo"})
    answer = rpc.request("set_todos", phases=HOST_PHASES)
    assert answer["success"] is False
    assert "todo" in answer["error"] and answer["code"] == "unsupported"
