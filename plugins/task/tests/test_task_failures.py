"""A child's failure, its time limit and the parent's abort are per child: the other
children's results are kept."""

from __future__ import annotations

import asyncio
import time

from taskkit import BUILTINS, results_of, task_call, task_text, use_settings, yield_step


def test_a_failing_child_keeps_the_others(omp_harness) -> None:
    script = [
        {
            "choose": [
                {"when": "CHILD-BAD", "error": "boom"},
                yield_step("CHILD-GOOD", "fine"),
                task_call(
                    {"name": "Bad", "task": "CHILD-BAD"}, {"name": "Good", "task": "CHILD-GOOD"}
                ),
            ]
        },
        {"text": "done"},
    ]
    session = omp_harness.session(script=script, builtins=BUILTINS)
    events = omp_harness.run(session, "go")
    bad, good = results_of(events)
    assert bad["exitCode"] == 1 and "boom" in bad["output"]
    assert good["exitCode"] == 0 and good["output"] == "fine"
    text = task_text(events)
    assert '<task-result id="0-Bad" agent="task" status="failed (exit 1)"' in text
    assert '<task-result id="1-Good" agent="task" status="completed"' in text


def test_a_timed_out_child_is_cancelled_and_the_others_kept(omp_harness) -> None:
    use_settings(omp_harness, maxRuntimeMs=300)
    script = [
        {
            "choose": [
                yield_step("CHILD-SLOW", "late", delay=5),
                yield_step("CHILD-FAST", "quick"),
                task_call(
                    {"name": "Slow", "task": "CHILD-SLOW"}, {"name": "Fast", "task": "CHILD-FAST"}
                ),
            ]
        },
        {"text": "done"},
    ]
    session = omp_harness.session(script=script, builtins=BUILTINS)
    began = time.monotonic()
    events = omp_harness.run(session, "go")
    assert time.monotonic() - began < 3
    slow, fast = results_of(events)
    assert slow["aborted"] is True and slow["abortReason"] == "timed out after 300ms"
    assert fast["exitCode"] == 0 and fast["output"] == "quick"
    text = task_text(events)
    assert 'status="cancelled"' in text
    assert "<abort-reason>timed out after 300ms</abort-reason>" in text
    assert events.final_text() == "done"


def test_parent_abort_stops_the_children_and_keeps_what_finished(omp_harness) -> None:
    script = [
        {
            "choose": [
                yield_step("CHILD-SLOW", "late", delay=30),
                yield_step("CHILD-FAST", "quick"),
                task_call(
                    {"name": "Slow", "task": "CHILD-SLOW"}, {"name": "Fast", "task": "CHILD-FAST"}
                ),
            ]
        },
        {"text": "never"},
    ]
    session = omp_harness.session(script=script, builtins=BUILTINS)

    async def abort_after_first_child(session) -> None:
        finished = asyncio.Event()

        def watch(event) -> None:
            if event.type == "subagent_lifecycle" and event.payload["status"] == "completed":
                finished.set()

        session.subscribe(watch)
        await finished.wait()
        session.abort()

    began = time.monotonic()
    events = omp_harness.run(session, "go", during=abort_after_first_child)
    assert time.monotonic() - began < 10
    slow, fast = results_of(events)
    assert fast["exitCode"] == 0 and fast["output"] == "quick"
    assert slow["aborted"] is True and slow["abortReason"] == "cancelled by the parent"
    assert 'id="0-Slow" agent="task" status="cancelled"' in task_text(events)
