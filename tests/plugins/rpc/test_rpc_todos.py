"""The todo list in ``get_state`` (omp's ``todoPhases``), and ``set_todos``, which this
project cannot honour: the list is written by the model's ``todo_write`` tool only (the
todo plugin offers no public way to set it)."""

from __future__ import annotations


def test_get_state_reports_the_todo_list_as_omp_phases(fresh_rpc):
    rpc = fresh_rpc()
    assert rpc.ok("get_state")["todoPhases"] == []
    rpc.run("TODOS")
    phases = rpc.ok("get_state")["todoPhases"]
    assert phases == [
        {
            "name": "Todos",
            "tasks": [
                {"content": "Read the code", "status": "completed"},
                {"content": "Fix the bug", "status": "in_progress"},
                {"content": "Run the tests", "status": "pending"},
            ],
        }
    ]
    refused = rpc.request("set_todos", phases=[{"name": "Mine", "tasks": []}])
    assert refused["success"] is False and refused["command"] == "set_todos"
    assert "todo_write" in refused["error"] and refused["code"] == "unsupported"
    assert rpc.ok("get_state")["todoPhases"] == phases
