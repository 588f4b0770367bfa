"""Every run of a task keeps its own folder, DIR/<id>/attempt-N/: a re-run never
deletes an earlier session, results.jsonl links them, and a worker that died is
reported with the time it really ran and the turns its session file holds."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

READ = {"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]}


def _entries(path: str) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def test_a_rerun_keeps_the_failed_attempt_and_links_it(batch):
    failing = batch.script(READ, {"error": "provider exploded"})
    task = {"id": "t", "prompt": "x", "cwd": "work"}
    first = batch.run(str(batch.tasks([{**task, "flags": {"script": failing}}])), "--out", "out")
    assert first.returncode == 1, first.stderr
    (failed,) = batch.results()
    out = batch.root / "out"
    assert failed["attempt"] == 1 and failed["earlier_attempts"] == []
    assert failed["session"] == str(out / "t" / "attempt-1" / "session.jsonl")
    kept = Path(failed["session"]).read_bytes()
    assert b"provider exploded" in kept

    ok = batch.script({"text": "fine"})
    tasks = batch.tasks([{**task, "flags": {"script": ok}}])
    again = batch.run(str(tasks), "--out", "out", "--retry-failed")
    assert again.returncode == 0, again.stderr
    done = batch.results()[-1]
    assert done["status"] == "done" and done["attempt"] == 2
    assert done["session"] == str(out / "t" / "attempt-2" / "session.jsonl")
    assert done["earlier_attempts"] == [failed["session"]]
    assert Path(failed["session"]).read_bytes() == kept  # the earlier session untouched
    assert _entries(done["session"])[-1]["message"]["content"][0]["text"] == "fine"
    line = next(x for x in again.stderr.splitlines() if x.startswith("omp batch: [1/1]"))
    assert "t done in" in line and "attempt 2" in line and "earlier: attempt-1" in line, line


def test_a_rerun_after_ctrl_c_keeps_the_cancelled_session(batch):
    slow = batch.script(READ, {"delay": 30, "text": "never"})
    task = {"id": "t", "prompt": "x", "cwd": "work"}
    tasks = batch.tasks([{**task, "flags": {"script": slow}}])
    runner = batch.start(
        str(tasks),
        "--out",
        "out",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    session = batch.root / "out" / "t" / "attempt-1" / "session.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and b"toolResult" not in _bytes(session):
        time.sleep(0.05)
    assert b"toolResult" in _bytes(session)
    os.killpg(runner.pid, signal.SIGINT)
    _, stderr = runner.communicate(timeout=30)
    assert runner.returncode == 130, stderr
    (cancelled,) = batch.results()
    assert cancelled["status"] == "cancelled" and cancelled["session"] == str(session)
    assert cancelled["turns"] == 2 and cancelled["attempt"] == 1  # the second one cut short
    kept = session.read_bytes()

    tasks = batch.tasks([{**task, "flags": {"script": batch.script({"text": "fine"})}}])
    again = batch.run(str(tasks), "--out", "out")
    assert again.returncode == 0, again.stderr
    done = batch.results()[-1]
    assert done["attempt"] == 2 and done["earlier_attempts"] == [str(session)]
    assert session.read_bytes() == kept


def test_a_killed_worker_is_reported_with_its_real_time_and_turns(batch):
    """A worker SIGKILLed in the middle of its third turn (an OOM kill, say): its
    result says how long it really ran and the two turns its session file holds."""
    killer = batch.root / "killer.py"
    killer.write_text(
        "import os, signal, time\nimport omp\n\nturns = 0\n\n\n@omp.hookimpl\n"
        "def omp_turn_end(event):\n    global turns\n    turns += 1\n"
        "    if turns == 2:\n        time.sleep(1.0)\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    endless = batch.script({**READ, "usage": {"input": 10, "output": 5}, "repeat": True})
    task = {"id": "k", "prompt": "x", "cwd": "work", "flags": {"script": endless}}
    proc = batch.run(str(batch.tasks([{**task, "plugins": [str(killer)]}])), "--out", "out")
    assert proc.returncode == 1, proc.stderr
    (result,) = batch.results()
    assert result["status"] == "failed", result
    assert "worker process died (signal 9)" in result["error"]
    assert result["turns"] == 2 and result["tokens"]["total"] == 30, result
    assert 1.0 <= result["wall_time"] < 30, result
    assert result["attempt"] == 1 and Path(result["session"]).is_file()
    line = next(x for x in proc.stderr.splitlines() if x.startswith("omp batch: [1/1]"))
    assert "(2 turns," in line and " in 0.0 s" not in line, line


def _bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""


def test_a_folder_from_before_attempts_is_kept_as_an_earlier_attempt(batch):
    """An out folder written by an earlier omp (DIR/<id>/session.jsonl): the re-run
    skips what is done, leaves the old session where it was and links it."""
    tasks = batch.scripted_tasks(2, {"text": "fine"})
    out = batch.root / "out"
    (out / "t1").mkdir(parents=True)
    old = out / "t1" / "session.jsonl"
    old.write_text('{"type": "session", "version": 3, "id": "old", "cwd": "."}\n')
    lines = [{"id": "t0", "status": "done", "session": str(out / "t0" / "session.jsonl")},
             {"id": "t1", "status": "cancelled", "session": str(old)}]  # fmt: skip
    (out / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    proc = batch.run(str(tasks), "--out", "out")
    assert proc.returncode == 0, proc.stderr
    rerun = batch.results()[-1]
    assert rerun["id"] == "t1" and rerun["status"] == "done" and rerun["attempt"] == 1
    assert rerun["earlier_attempts"] == [str(old)] and old.is_file()
    assert len(batch.results()) == 3  # t0 was done: not run again
    assert "earlier: t1/session.jsonl" in proc.stderr
