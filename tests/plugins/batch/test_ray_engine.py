"""`omp batch --engine ray` on a local Ray instance of 2 CPUs, over 10 scripted tasks.

Starting Ray takes seconds, so the batch runs once for the whole module (one fixture)
and the tests read what it left. Marked ``ray``: CI runs it once with the suite;
``-m "not ray"`` leaves it out of a quick local run."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.ray


@pytest.fixture(scope="module")
def ray_batch(tmp_path_factory, make_batch):
    batch = make_batch(tmp_path_factory.mktemp("ray"))
    ok = batch.script(
        {"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]}, {"text": "read it"}
    )
    failing = batch.script({"error": "provider exploded"})
    tasks = [
        {
            "id": f"r{n}",
            "prompt": "x",
            "cwd": "work",
            "flags": {"script": ok},
            "resources": {"num_cpus": 1},
        }
        for n in range(8)
    ]
    crasher = [batch.crasher()]
    tasks.append(
        {"id": "lost", "prompt": "x", "cwd": "work", "flags": {"script": ok}, "plugins": crasher}
    )
    tasks.append({"id": "bad", "prompt": "x", "cwd": "work", "flags": {"script": failing}})
    path = batch.tasks(tasks)
    proc = batch.run(
        str(path), "--out", "out", "--engine", "ray", "--jobs", "2", "--json", timeout=240
    )
    return batch, proc


def test_every_task_ran_as_a_ray_task_with_its_own_session(ray_batch):
    batch, proc = ray_batch
    assert proc.returncode == 1, proc.stderr  # one task failed
    results = {r["id"]: r for r in batch.results()}
    assert len(results) == 10 and len(batch.results()) == 10
    for n in range(8):
        assert results[f"r{n}"]["status"] == "done", results[f"r{n}"]
        assert results[f"r{n}"]["answer"] == "read it" and results[f"r{n}"]["turns"] == 2
        assert (batch.root / "out" / f"r{n}" / "session.jsonl").is_file()
    assert (batch.root / "crashed-once").exists()  # its first worker died, as with a lost node
    assert results["lost"]["status"] == "done"  # and Ray ran it again
    assert results["bad"]["status"] == "failed"
    assert "provider exploded" in results["bad"]["error"]


def test_results_stream_back_as_they_finish(ray_batch):
    batch, proc = ray_batch
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    finished = [e["result"]["id"] for e in events if e["event"] == "finished"]
    assert finished == [r["id"] for r in batch.results()]  # appended in the order reported
    assert events[-1]["event"] == "end" and events[-1]["counts"] == {"done": 9, "failed": 1}
