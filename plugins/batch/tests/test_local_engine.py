"""`omp batch` on the local engine: statuses, results.jsonl, resumption, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

READ = {"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]}


def _thirty(batch):
    ok = batch.script(READ, {"text": "finished"})
    failing = batch.script({"error": "provider exploded"})
    slow = batch.script({"delay": 30, "text": "too late"})
    endless = batch.script({**READ, "repeat": True})
    wordy = batch.script({**READ, "usage": {"input": 400, "output": 400}, "repeat": True})
    tasks = [
        {"id": f"ok-{n}", "prompt": f"task {n}", "cwd": "work", "flags": {"script": ok}}
        for n in range(24)
    ]
    tasks += [
        {"id": f"bad-{n}", "prompt": "x", "cwd": "work", "flags": {"script": failing}}
        for n in range(3)
    ]
    tasks.append(
        {
            "id": "slow",
            "prompt": "x",
            "cwd": "work",
            "flags": {"script": slow},
            "budget": {"time": 1},
        }
    )
    tasks.append(
        {
            "id": "spender",
            "prompt": "x",
            "cwd": "work",
            "flags": {"script": endless},
            "budget": {"turns": 3},
        }
    )
    tasks.append(
        {
            "id": "talker",
            "prompt": "x",
            "cwd": "work",
            "flags": {"script": wordy},
            "budget": {"tokens": 2000},
        }
    )
    return batch.tasks(tasks)


def test_thirty_scripted_tasks_each_get_one_result_line_with_their_status(batch):
    tasks = _thirty(batch)
    proc = batch.run(str(tasks), "--out", "out", "--jobs", "2")
    assert proc.returncode == 1, proc.stderr  # not every task is done
    assert "Traceback" not in proc.stderr
    results = {r["id"]: r for r in batch.results()}
    assert len(results) == 30 and len(batch.results()) == 30
    for n in range(24):
        done = results[f"ok-{n}"]
        assert done["status"] == "done" and done["answer"] == "finished", done
        assert done["turns"] == 2 and done["tokens"]["total"] > 0 and done["error"] is None
        lines = Path(done["session"]).read_text().splitlines()
        session = [json.loads(line) for line in lines]
        assert session[0]["type"] == "session" and done["session"].endswith(
            f"ok-{n}/attempt-1/session.jsonl"
        )
    for n in range(3):
        assert results[f"bad-{n}"]["status"] == "failed"
        assert "provider exploded" in results[f"bad-{n}"]["error"]
    assert results["slow"]["status"] == "timed_out"
    assert 1 <= results["slow"]["wall_time"] < 10
    assert results["spender"]["status"] == "budget_exceeded"
    assert results["spender"]["turns"] == 3
    assert results["talker"]["status"] == "budget_exceeded"
    assert results["talker"]["error"] == "token budget of 2000 spent"
    assert results["talker"]["tokens"]["total"] == 2400  # stopped after the third answer
    assert "24 done" in proc.stderr.splitlines()[-1]

    again = batch.run(str(tasks), "--out", "out", "--json")
    events = [json.loads(line) for line in again.stdout.splitlines()]
    assert events[0] == {"event": "start", "total": 30, "skipped": 30}
    assert len(batch.results()) == 30  # nothing was run twice

    retried = batch.run(str(tasks), "--out", "out", "--retry-failed", "--json")
    events = [json.loads(line) for line in retried.stdout.splitlines()]
    finished = [e["result"]["id"] for e in events if e["event"] == "finished"]
    assert sorted(finished) == sorted(["bad-0", "bad-1", "bad-2", "slow", "spender", "talker"])


def test_a_sigkilled_runner_loses_no_finished_result_and_a_rerun_finishes_the_rest(batch):
    tasks = batch.scripted_tasks(12, {"delay": 0.3, "text": "ok"})
    argv = [str(tasks), "--out", "out", "--jobs", "2"]
    runner = batch.start(*argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = batch.root / "out" / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if results.exists() and len(results.read_bytes().splitlines()) >= 3:
            break
        time.sleep(0.05)
    os.kill(runner.pid, signal.SIGKILL)
    runner.wait()
    before = batch.results()
    assert 3 <= len(before) < 12
    assert all(r["status"] == "done" for r in before)
    assert results.read_bytes().endswith(b"\n")

    proc = batch.run(str(tasks), "--out", "out")
    assert proc.returncode == 0, proc.stderr
    after = batch.results()
    assert sorted(r["id"] for r in after) == sorted(f"t{n}" for n in range(12))
    assert after[: len(before)] == before


def test_ctrl_c_cancels_running_tasks_and_says_what_is_left(batch):
    tasks = batch.scripted_tasks(5, {"delay": 20, "text": "never"})
    argv = [str(tasks), "--out", "out", "--jobs", "2"]
    runner = batch.start(
        *argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    session = batch.root / "out" / "t1" / "attempt-1" / "session.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not session.exists():
        time.sleep(0.05)
    time.sleep(0.3)
    os.killpg(runner.pid, signal.SIGINT)  # as a terminal's Ctrl+C: the whole group
    _, stderr = runner.communicate(timeout=30)
    assert runner.returncode == 130, stderr
    assert "Traceback" not in stderr
    results = batch.results()
    assert sorted(r["id"] for r in results) == ["t0", "t1"]
    assert {r["status"] for r in results} == {"cancelled"}
    assert "interrupted: 0 finished, 2 cancelled, 5 left" in stderr


def test_ctrl_c_works_when_the_runner_started_with_sigint_ignored(batch):
    """A background job of a non-interactive shell (``omp batch ... &``) starts with
    SIGINT ignored; the runner still takes it as Ctrl+C, as print mode does."""
    tasks = batch.scripted_tasks(3, {"delay": 20, "text": "never"})
    runner = batch.start(
        str(tasks),
        "--out",
        "out",
        "--jobs",
        "1",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    session = batch.root / "out" / "t0" / "attempt-1" / "session.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not session.exists():
        time.sleep(0.05)
    assert session.exists()
    os.kill(runner.pid, signal.SIGINT)
    try:
        _, stderr = runner.communicate(timeout=30)
    finally:
        runner.kill()
    assert runner.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert [(r["id"], r["status"]) for r in batch.results()] == [("t0", "cancelled")]
    assert "interrupted: 0 finished, 1 cancelled, 3 left" in stderr


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["SIGTERM", "SIGHUP"]
)
def test_sigterm_and_sighup_cancel_running_tasks_as_ctrl_c_does(batch, signum, code):
    """A service manager's stop (SIGTERM) or a closed terminal (SIGHUP): each running
    task gets its ``cancelled`` line and keeps its session file, the summary says what
    is left, and the exit status is 128 + the signal's number."""
    tasks = batch.scripted_tasks(4, {"delay": 20, "text": "never"})
    runner = batch.start(
        str(tasks),
        "--out",
        "out",
        "--jobs",
        "2",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    sessions = [batch.root / "out" / f"t{n}" / "attempt-1" / "session.jsonl" for n in (0, 1)]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not all(s.exists() for s in sessions):
        time.sleep(0.05)
    assert all(s.exists() for s in sessions)
    os.kill(runner.pid, signum)
    try:
        _, stderr = runner.communicate(timeout=30)
    finally:
        runner.kill()
    assert runner.returncode == code, stderr
    assert "Traceback" not in stderr
    results = batch.results()
    assert sorted((r["id"], r["status"]) for r in results) == [
        ("t0", "cancelled"),
        ("t1", "cancelled"),
    ]
    assert all(s.exists() for s in sessions)
    name = signal.Signals(signum).name
    assert f"terminated by {name}: 0 finished, 2 cancelled, 4 left" in stderr


def test_an_id_the_out_folder_uses_is_refused_naming_its_line(batch):
    ok = {"prompt": "x", "cwd": "work"}
    for task_id in ("results.jsonl", "Results.JSONL", "attempt-2", ".lock", ".ratelimit",
                    "..", ".", "a/b", "a\\b", ""):  # fmt: skip
        tasks = batch.tasks([{"id": "fine", **ok}, {"id": task_id, **ok}], "ids.jsonl")
        proc = batch.run(str(tasks), "--out", "out")
        assert proc.returncode == 2, (task_id, proc.stderr)
        (line,) = proc.stderr.splitlines()
        assert line.startswith(f"omp: {tasks}:2: "), (task_id, line)
        assert "id" in line and "Traceback" not in line, line
        assert not (batch.root / "out" / "results.jsonl").exists()
    tasks = batch.tasks([{"id": "results.jsonl", **ok}], "ids.jsonl")
    line = batch.run(str(tasks), "--out", "out").stderr.strip()
    assert "'results.jsonl' is reserved" in line, line


def test_bad_input_is_one_line_and_a_nonzero_exit(batch):
    cases = {
        "missing.jsonl": "tasks file not found",
        batch.tasks([{"prompt": "x"}], "noid.jsonl"): "missing 'id'",
        batch.tasks([{"id": "a"}], "noprompt.jsonl"): "missing 'prompt'",
        batch.tasks([{"id": "a", "prompt": "x"}, {"id": "a", "prompt": "y"}], "dup.jsonl"): (
            "duplicate id 'a' (first on line 1)"
        ),
    }
    (batch.root / "broken.jsonl").write_text('{"id": "a", "prompt": \n')
    cases["broken.jsonl"] = "broken.jsonl:1: not JSON"
    for tasks, message in cases.items():
        proc = batch.run(str(tasks), "--out", "out")
        lines = proc.stderr.splitlines()
        assert proc.returncode == 2, (tasks, proc.stderr)
        assert len(lines) == 1 and message in lines[0], (tasks, proc.stderr)
    proc = batch.run("tasks.jsonl")
    assert proc.returncode == 2 and "--out DIR is required" in proc.stderr


def test_a_task_whose_worker_dies_fails_alone(batch):
    ok = batch.script({"text": "fine"})
    dies = {"id": "dies", "prompt": "x", "cwd": "work", "flags": {"script": ok}}
    dies["plugins"] = [batch.crasher()]
    others = [
        {"id": f"t{n}", "prompt": "x", "cwd": "work", "flags": {"script": ok}} for n in range(4)
    ]
    proc = batch.run(str(batch.tasks([dies, *others])), "--out", "out", "--jobs", "1")
    results = {r["id"]: r for r in batch.results()}
    assert proc.returncode == 1, proc.stderr
    assert results["dies"]["status"] == "failed"
    assert "worker process died (exit code 9)" in results["dies"]["error"]
    assert [results[f"t{n}"]["status"] for n in range(4)] == ["done"] * 4


def test_a_task_stuck_past_its_time_budget_is_stopped_and_the_rest_go_on(batch):
    """A plugin that blocks the session's event loop (a synchronous sleep) cannot be
    aborted from inside: its worker is killed a few seconds past the time budget."""
    stuck = batch.root / "stuck.py"
    stuck.write_text(
        "import time\nimport omp\n\n\n@omp.hookimpl\ndef omp_turn_start(event):\n"
        "    time.sleep(120)\n"
    )
    ok = batch.script({"text": "fine"})
    tasks = [
        {
            "id": "stuck",
            "prompt": "x",
            "cwd": "work",
            "flags": {"script": ok},
            "plugins": [str(stuck)],
            "budget": {"time": 1},
        }
    ]
    tasks += [
        {"id": f"t{n}", "prompt": "x", "cwd": "work", "flags": {"script": ok}} for n in range(3)
    ]
    began = time.monotonic()
    proc = batch.run(str(batch.tasks(tasks)), "--out", "out", "--jobs", "1")
    assert time.monotonic() - began < 60, proc.stderr
    assert proc.returncode == 1, proc.stderr
    results = {r["id"]: r for r in batch.results()}
    assert results["stuck"]["status"] == "timed_out", results["stuck"]
    assert "time budget of 1 s spent" in results["stuck"]["error"]
    assert 1 <= results["stuck"]["wall_time"] < 30
    assert [results[f"t{n}"]["status"] for n in range(3)] == ["done"] * 3


def test_a_task_line_sets_its_prompts_model_thinking_and_tools(batch):
    script = batch.script(
        {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]},
        {"text": "first done"},
        {"text": "second done"},
    )
    task = {"cwd": "work", "flags": {"script": script}}
    tasks = [
        {
            "id": "set",
            "prompts": ["one", "two"],
            "model": "scripted/demo",
            "thinking": "high",
            "tools": ["read"],
            **task,
        },
        {"id": "no-model", "prompt": "x", "model": "nope/x", **task},
        {"id": "no-level", "prompt": "x", "thinking": "extreme", **task},
    ]
    proc = batch.run(str(batch.tasks(tasks)), "--out", "out", "--jobs", "1")
    assert proc.returncode == 1, proc.stderr
    results = {r["id"]: r for r in batch.results()}
    done = results["set"]
    assert done["status"] == "done" and done["answer"] == "second done" and done["turns"] == 3
    entries = [json.loads(line) for line in Path(done["session"]).read_text().splitlines()]
    assert {"type": "thinking_level_change", "thinkingLevel": "high"}.items() <= next(
        e for e in entries if e["type"] == "thinking_level_change"
    ).items()
    users = [e["message"] for e in entries if e.get("message", {}).get("role") == "user"]
    assert [u["content"] for u in users] == ["one", "two"]
    tool = next(e["message"] for e in entries if e.get("message", {}).get("role") == "toolResult")
    assert tool["isError"] and "Tool 'bash' not found. Available tools: read" in str(tool)
    assert results["no-model"]["status"] == "failed"
    assert "model 'nope/x' is unknown" in results["no-model"]["error"]
    assert results["no-level"]["status"] == "failed"
    assert "unknown thinking level 'extreme'" in results["no-level"]["error"]


def test_a_torn_last_line_does_not_swallow_the_next_result(batch):
    """A line cut short (a crash mid-write where appends are not atomic) is skipped,
    and the next result starts on a line of its own, so it is read back."""
    tasks = batch.scripted_tasks(2, {"text": "ok"})
    out = batch.root / "out"
    out.mkdir()
    done = {"id": "t0", "status": "done", "answer": "ok"}
    (out / "results.jsonl").write_text(json.dumps(done) + '\n{"id": "t1", "sta')
    proc = batch.run(str(tasks), "--out", "out")
    assert proc.returncode == 0, proc.stderr
    again = batch.run(str(tasks), "--out", "out", "--json")
    events = [json.loads(line) for line in again.stdout.splitlines()]
    assert events[0] == {"event": "start", "total": 2, "skipped": 2}, events


def test_a_second_runner_on_the_same_folder_is_refused_in_one_line(batch):
    script = batch.script({"delay": 20, "text": "late"})
    tasks = batch.tasks([{"id": "t", "prompt": "x", "cwd": "work", "flags": {"script": script}}])
    first = batch.start(
        str(tasks), "--out", "out", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        session = batch.root / "out" / "t" / "attempt-1" / "session.jsonl"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not session.exists():
            time.sleep(0.05)
        proc = batch.run(str(tasks), "--out", "out")
        assert proc.returncode == 1
        assert proc.stderr.splitlines() == [
            f"omp: another omp batch (pid {first.pid}) is running on {batch.root / 'out'}"
        ]
    finally:
        first.kill()
        first.wait()
