"""Children of one task call run at once, each with its own context, and their results
come back in item order as omp's <task-result> envelopes."""

from __future__ import annotations

import time

from taskkit import (
    BUILTINS,
    init_recorder,
    results_of,
    task_call,
    task_text,
    use_settings,
    yield_step,
)


def test_three_slow_children_run_in_parallel(omp_harness) -> None:
    children = [{"name": f"Child{n}", "task": f"CHILD-{n} work"} for n in (1, 2, 3)]
    script = [
        {
            "choose": [
                yield_step("CHILD-1", "one", delay=2),
                yield_step("CHILD-2", "two", delay=2),
                yield_step("CHILD-3", "three", delay=2),
                task_call(*children),
            ]
        },
        {"text": "all done"},
    ]
    session = omp_harness.session(script=script, builtins=BUILTINS)
    began = time.monotonic()
    events = omp_harness.run(session, "split the work")
    elapsed = time.monotonic() - began
    assert elapsed < 4.5, f"three 2 s children took {elapsed:.1f}s"
    results = results_of(events)
    assert [r["id"] for r in results] == ["0-Child1", "1-Child2", "2-Child3"]
    assert [r["output"] for r in results] == ["one", "two", "three"]
    assert all(r["exitCode"] == 0 for r in results)
    text = task_text(events)
    assert '<task-result id="0-Child1" agent="task" status="completed"' in text
    assert "<output>\none\n</output>" in text
    assert events.final_text() == "all done"
    updates = [
        e.partial_result for e in events.of("tool_execution_update") if e.tool_name == "task"
    ]
    assert 1 <= len(updates) <= elapsed / 0.25 + 2  # throttled to about four a second
    last = updates[-1]["details"]["progress"]
    assert [p["id"] for p in last] == ["0-Child1", "1-Child2", "2-Child3"]
    assert {p["status"] for p in last} == {"completed"}
    assert all(p["requests"] == 1 and p["toolCount"] == 1 for p in last)
    lifecycle = [e.payload["status"] for e in events.of("subagent_lifecycle")]
    assert sorted(lifecycle) == ["completed"] * 3 + ["started"] * 3


def test_max_concurrency_one_runs_them_in_turn(omp_harness) -> None:
    children = [{"name": f"C{n}", "task": f"CHILD-{n}"} for n in (1, 2, 3)]
    script = [
        {
            "choose": [
                *(yield_step(f"CHILD-{n}", n, delay=0.3) for n in (1, 2, 3)),
                task_call(*children),
            ]
        },
        {"text": "done"},
    ]
    use_settings(omp_harness, maxConcurrency=1)
    session = omp_harness.session(script=script, builtins=BUILTINS)
    began = time.monotonic()
    events = omp_harness.run(session, "go")
    assert time.monotonic() - began >= 0.9
    assert [r["output"] for r in results_of(events)] == ["1", "2", "3"]


def test_child_gets_context_then_task_and_generated_names_are_unique(omp_harness) -> None:
    script = [
        {
            "choose": [
                yield_step("CHILD-A"),
                yield_step("CHILD-B"),
                task_call(
                    {"task": "CHILD-A"},
                    {"task": "CHILD-B", "name": "Dup"},
                    {"task": "CHILD-B", "name": "Dup"},
                    context="CTX",
                ),
            ]
        },
        {"text": "done"},
    ]
    recorder = init_recorder()
    session = omp_harness.session([recorder], script=script, builtins=BUILTINS)
    events = omp_harness.run(session, "go")
    ids = [r["id"] for r in results_of(events)]
    assert ids[1:] == ["1-Dup", "2-Dup2"]
    assert ids[0].startswith("0-") and len(ids[0]) > 3
    tasks = sorted(e.entry["task"] for e in recorder.events)
    assert tasks == ["CTX\n\nCHILD-A", "CTX\n\nCHILD-B", "CTX\n\nCHILD-B"]
