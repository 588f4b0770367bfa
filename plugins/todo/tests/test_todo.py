"""The built-in ``todo_write`` tool and ``/todos`` command (plugins/todo)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from typing import Any

from omp import AbortSignal, ToolResult
from omp_tool_todo.state import current_todos, render
from omp_tool_todo.tool import TodoWriteParams, TodoWriteTool

PLAN = [
    {"content": "Read the code", "status": "completed"},
    {"content": "Fix the bug", "activeForm": "Fixing the bug", "status": "in_progress"},
    {"id": "t", "content": "Run the tests", "status": "pending"},
]
PLAN_TEXT = (
    "Todos: 1/3 completed, 1 in progress, 1 pending\n"
    "[x] Read the code\n[>] Fix the bug\n[ ] Run the tests"
)


def write(todos: list[dict[str, Any]]) -> ToolResult:
    params = TodoWriteParams(todos=todos)
    return TodoWriteTool().execute("c1", params, AbortSignal(), lambda p: None, None)


def todo_call(todos: list[dict[str, Any]]) -> dict[str, Any]:
    return {"tool_calls": [{"name": "todo_write", "arguments": {"todos": todos}}]}


def test_replaces_the_list_and_renders_it() -> None:
    result = write(PLAN)
    assert not result.is_error
    assert result.content[0].text == PLAN_TEXT
    assert result.details == {
        "todos": [
            {"id": "1", "content": "Read the code", "status": "completed"},
            {
                "id": "2",
                "content": "Fix the bug",
                "status": "in_progress",
                "activeForm": "Fixing the bug",
            },
            {"id": "t", "content": "Run the tests", "status": "pending"},
        ]
    }


def test_an_empty_list_clears_it() -> None:
    result = write([])
    assert not result.is_error
    assert result.content[0].text == "Todo list is empty."
    assert result.details == {"todos": []}


def test_two_in_progress_is_an_error() -> None:
    result = write(
        [
            {"content": "a", "status": "in_progress"},
            {"content": "b", "status": "in_progress"},
        ]
    )
    assert result.is_error
    assert result.content[0].text.startswith(
        'Only one todo may be in_progress at a time, but 2 are: "a"; "b".'
    )


def test_blank_content_and_duplicate_ids_are_errors() -> None:
    blank = write([{"content": "ok", "status": "pending"}, {"content": "  ", "status": "pending"}])
    assert blank.is_error
    assert blank.content[0].text.startswith("Todo item(s) 2 have no content")
    twice = write([{"id": "x", "content": "a", "status": "pending"}] * 2)
    assert twice.is_error
    assert "repeated: x" in twice.content[0].text


def test_current_todos_takes_the_last_successful_write() -> None:
    def result(details: Any, is_error: bool = False, tool: str = "todo_write") -> dict:
        message = {"role": "toolResult", "toolName": tool, "details": details, "isError": is_error}
        return {"type": "message", "message": message}

    first = [{"id": "1", "content": "one", "status": "pending"}]
    second = [{"id": "1", "content": "one", "status": "completed"}]
    entries = [
        {"type": "model_change", "model": "x"},
        result({"todos": first}),
        result({"todos": second}),
        result({"todos": "garbage"}, tool="other"),
        result(None, is_error=True),
        {"type": "message", "message": {"role": "user", "content": "hi"}},
    ]
    assert current_todos(entries) == second
    assert current_todos(entries[:2]) == first
    assert current_todos([]) == []
    assert render(second) == "Todos: 1/1 completed, 0 in progress, 0 pending\n[x] one"


def test_tool_spec_and_plugin() -> None:
    from omp_tool_todo import plugin

    tool = TodoWriteTool()
    assert tool.exclusive is True
    schema = tool.spec()["parameters"]
    assert schema["required"] == ["todos"]
    [registered] = plugin.omp_register_tools(api=None)
    assert registered.name == "todo_write"
    [command] = plugin.omp_register_commands(api=None)
    assert command.name == "todos"
    code = (
        "import sys, omp_tool_todo.plugin; "
        "sys.exit(1 if 'pydantic' in sys.modules or 'omp_tool_todo.tool' in sys.modules "
        "else 0)"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    assert subprocess.run([sys.executable, "-c", code], env=env, check=False).returncode == 0


def test_list_survives_resume_and_follows_branches(omp_harness) -> None:
    path = str(omp_harness.root / "todo-session.jsonl")
    done = [dict(t, status="completed") for t in PLAN]
    script = [
        todo_call(PLAN),
        todo_call(done),
        todo_call([{"content": "x", "status": "in_progress"}] * 2),  # refused
        {"text": "all done"},
    ]
    session = omp_harness.session(session_path=path, script=script)
    events = omp_harness.run(session, "work")
    ends = events.of("tool_execution_end")
    assert [e.is_error for e in ends] == [False, False, True]
    assert ends[0].result["content"][0].text == PLAN_TEXT
    assert events.final_text() == "all done"

    # A new process resuming the file: the list is rebuilt from the session.
    resumed = omp_harness.session(session_path=path)
    todos = current_todos(resumed.session_view.branch_entries())
    assert [t["status"] for t in todos] == ["completed"] * 3
    assert [t["content"] for t in todos] == [t["content"] for t in PLAN]
    shown = omp_harness.run(resumed, "/todos")
    assert shown.of("notice")[-1].message == (  # after the session's own start notices
        "Todos: 3/3 completed, 0 in progress, 0 pending\n"
        "[x] Read the code\n[x] Fix the bug\n[x] Run the tests"
    )
    assert not shown.of("message_end")  # a command: the model was not asked

    # Branching back to the first write brings its list back.
    entries = resumed.session_view.entries()
    first_result = next(
        e
        for e in entries
        if e.get("type") == "message" and e["message"].get("role") == "toolResult"
    )
    asyncio.run(resumed.branch(first_result["id"]))
    assert render(current_todos(resumed.session_view.branch_entries())) == PLAN_TEXT


def test_todos_command_with_no_list(omp_harness) -> None:
    session = omp_harness.session()
    events = omp_harness.run(session, "/todos")
    assert events.of("notice")[-1].message == "No todos yet."


def test_a_hosts_list_set_on_the_event_bus_is_shown_and_kept(omp_harness) -> None:
    """What RPC's set_todos does: ``todos.set`` on the bus; ``todos.get`` reads it back."""
    path = str(omp_harness.root / "host-todos.jsonl")
    phases = [{"name": "Plan", "tasks": [{"content": "Sketch", "status": "in_progress"}]}]
    answers: list[dict[str, Any]] = []

    def host(session) -> None:  # runs before the /todos prompt's task does
        if answers:  # and again before "hi"
            return
        for request in ({"set": "nope"}, {"set": phases}, {}):
            session.api.events.emit("todos.set" if request else "todos.get", request)
            answers.append(request)

    session = omp_harness.session(session_path=path, script=[{"text": "ok"}])
    # the file is written with the first prompt, then holds the host's list too
    shown = omp_harness.run(session, "/todos", "hi", during=host)
    bad, good, read = answers
    assert bad["error"] == "phases must be a list of {name, tasks}"
    assert good["phases"] == read["phases"] == phases
    assert "Todos: 0/1 completed, 1 in progress, 0 pending\n[>] Sketch" in [
        n.message for n in shown.of("notice")
    ]
    resumed = omp_harness.session(session_path=path)
    assert current_todos(resumed.session_view.branch_entries()) == phases[0]["tasks"]
