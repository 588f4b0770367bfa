"""`omp batch --engine ray` on a local Ray instance of 2 CPUs, over 10 scripted tasks.

Starting Ray takes seconds, so the batch runs once for the whole module (one fixture)
and the tests read what it left. Marked ``ray``: CI runs it once with the suite;
``-m "not ray"`` leaves it out of a quick local run. The unreachable address needs no
instance and is not marked."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time

import pytest


@pytest.fixture(scope="module")
def ray_batch(tmp_path_factory, make_batch):
    from replay import ReplayServer, chat_stream

    batch = make_batch(tmp_path_factory.mktemp("ray"))
    server = ReplayServer()
    for n in range(2):
        server.add(chat_stream(f"limited {n}"), headers={"content-type": "text/event-stream"})
    batch.proxy_model(
        server.url,
        {"id": "coder"},
        requestsPerMinute={"proxy": 100},
        tokensPerMinute={"*": 10_000_000},
    )
    ok = batch.script(
        {"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]}, {"text": "read it"}
    )
    failing = batch.script({"error": "provider exploded"})
    slow = batch.script({"delay": 3, "text": "slowly"})
    tasks = [{"id": "slow", "prompt": "x", "cwd": "work", "flags": {"script": slow}}]
    tasks += [
        {
            "id": f"r{n}",
            "prompt": "x",
            "cwd": "work",
            "flags": {"script": ok},
            "resources": {"num_cpus": 1},
        }
        for n in range(4)
    ]
    tasks += [
        {"id": f"limited-{n}", "prompt": "x", "cwd": "work", "model": "proxy/coder"}
        for n in range(2)
    ]
    crasher = [batch.crasher()]
    tasks.append(
        {"id": "lost", "prompt": "x", "cwd": "work", "flags": {"script": ok}, "plugins": crasher}
    )
    tasks.append({"id": "bad", "prompt": "x", "cwd": "work", "flags": {"script": failing}})
    tasks.append(
        {
            "id": "too-big",
            "prompt": "x",
            "cwd": "work",
            "flags": {"script": ok},
            "resources": {"num_gpus": 1},
        }
    )
    path = batch.tasks(tasks)
    try:
        proc = batch.run(
            str(path), "--out", "out", "--engine", "ray", "--jobs", "2", "--json", timeout=240
        )
    finally:
        server.close()
    return batch, proc


@pytest.mark.ray
def test_every_task_ran_as_a_ray_task_with_its_own_session(ray_batch):
    batch, proc = ray_batch
    assert proc.returncode == 1, proc.stderr  # two tasks failed
    results = {r["id"]: r for r in batch.results()}
    assert len(results) == 10 and len(batch.results()) == 10
    assert results["slow"]["status"] == "done" and results["slow"]["answer"] == "slowly"
    for n in range(4):
        assert results[f"r{n}"]["status"] == "done", results[f"r{n}"]
        assert results[f"r{n}"]["answer"] == "read it" and results[f"r{n}"]["turns"] == 2
        assert (batch.root / "out" / f"r{n}" / "attempt-1" / "session.jsonl").is_file()
    assert (batch.root / "crashed-once").exists()  # its first worker died, as with a lost node
    assert results["lost"]["status"] == "done"  # and Ray ran it again
    assert results["bad"]["status"] == "failed"
    assert "provider exploded" in results["bad"]["error"]


@pytest.mark.ray
def test_requests_to_a_limited_provider_go_through_the_shared_actor(ray_batch):
    batch, _ = ray_batch
    results = {r["id"]: r for r in batch.results()}
    for n in range(2):
        assert results[f"limited-{n}"]["status"] == "done", results[f"limited-{n}"]
        assert results[f"limited-{n}"]["answer"] in ("limited 0", "limited 1")
        log = batch.root / "out" / f"limited-{n}" / "attempt-1" / "log.txt"
        assert not log.exists() or "failed in" not in log.read_text()  # the limiter's hooks


@pytest.mark.ray
def test_a_task_asking_for_more_than_the_instance_has_fails_alone_at_once(ray_batch):
    batch, _ = ray_batch
    results = {r["id"]: r for r in batch.results()}
    assert results["too-big"]["status"] == "failed"
    assert "needs CPU 1, GPU 1," in results["too-big"]["error"], results["too-big"]
    assert "no node of the Ray cluster has that much" in results["too-big"]["error"]


@pytest.mark.ray
def test_results_stream_back_as_they_finish(ray_batch):
    batch, proc = ray_batch
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    finished = [e["result"]["id"] for e in events if e["event"] == "finished"]
    assert finished == [r["id"] for r in batch.results()]  # appended in the order reported
    # The first task submitted takes 3 s; the quick ones came back while it ran.
    assert finished.index("slow") > finished.index("r3"), finished
    assert events[-1]["event"] == "end" and events[-1]["counts"] == {"done": 8, "failed": 2}


def test_an_address_where_no_cluster_listens_is_one_line_at_once(batch):
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    tasks = batch.tasks([{"id": "a", "prompt": "x", "cwd": "work"}])
    began = time.monotonic()
    proc = batch.run(
        str(tasks), "--out", "out", "--engine", "ray", "--address", f"127.0.0.1:{port}"
    )
    assert time.monotonic() - began < 30
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and f"cannot reach a Ray cluster at 127.0.0.1:{port}" in lines[0], lines
    proc = batch.run(str(tasks), "--out", "out", "--engine", "ray", "--address", "nowhere")
    assert proc.returncode == 2 and "--address takes HOST:PORT" in proc.stderr, proc.stderr


@pytest.mark.ray
def test_ctrl_c_cancels_the_running_ray_tasks_cleanly_and_says_what_is_left(batch):
    tasks = batch.scripted_tasks(4, {"delay": 30, "text": "never"})
    argv = [str(tasks), "--out", "out", "--engine", "ray", "--jobs", "2"]
    runner = batch.start(
        *argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    out = batch.root / "out"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(out.glob("*/attempt-1/session.jsonl"))) < 2:
        time.sleep(0.05)
    running = sorted(p.parent.parent.name for p in out.glob("*/attempt-1/session.jsonl"))
    assert len(running) == 2
    time.sleep(0.3)
    os.killpg(runner.pid, signal.SIGINT)  # as a terminal's Ctrl+C: the whole group
    began = time.monotonic()
    _, stderr = runner.communicate(timeout=60)
    assert time.monotonic() - began < 8, stderr  # not the 10 s grace, then a kill
    assert runner.returncode == 130, stderr
    assert "Traceback" not in stderr
    results = {r["id"]: r for r in batch.results()}
    assert {r["status"] for r in results.values()} == {"cancelled"}
    for task_id in running:  # stopped by the session itself, its file complete
        assert results[task_id]["error"] == "cancelled before it finished", results[task_id]
        assert results[task_id]["session"].endswith(f"{task_id}/attempt-1/session.jsonl")
    assert "interrupted: 0 finished, 4 cancelled, 4 left" in stderr


@pytest.mark.ray
def test_sigterm_cancels_the_running_ray_tasks_although_ray_init_sets_its_own_handler(batch):
    """``ray.init`` makes SIGTERM end the driver at once; the runner keeps its own
    handler, so a SIGTERM cancels as Ctrl+C does and exits 143."""
    tasks = batch.scripted_tasks(3, {"delay": 30, "text": "never"})
    argv = [str(tasks), "--out", "out", "--engine", "ray", "--jobs", "1"]
    runner = batch.start(
        *argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    session = batch.root / "out" / "t0" / "attempt-1" / "session.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not session.exists():
        time.sleep(0.05)
    assert session.exists()
    os.kill(runner.pid, signal.SIGTERM)  # the runner alone, as a service manager would
    try:
        _, stderr = runner.communicate(timeout=60)
    finally:
        runner.kill()
    assert runner.returncode == 143, stderr
    assert "Traceback" not in stderr
    results = {r["id"]: r for r in batch.results()}
    assert {r["status"] for r in results.values()} == {"cancelled"}
    assert results["t0"]["session"].endswith("t0/attempt-1/session.jsonl")
    assert "terminated by SIGTERM: 0 finished, 3 cancelled, 3 left" in stderr
