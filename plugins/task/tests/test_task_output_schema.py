"""A child returns through ``yield``: its data is checked against the task's
outputSchema (strict or permissive, three retries as omp), and a child that never yields
is reminded three times, then reported with its last text."""

from __future__ import annotations

import json

from taskkit import BUILTINS, results_of, task_call, task_text, yield_step

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def _item(**extra):
    return {"name": "Typed", "task": "CHILD-TYPED", "outputSchema": SCHEMA, **extra}


def _retrying(child_step: dict, retries: int = 3) -> list[dict]:
    """Step 0: the child's first answer or the parent's task call; then ``retries``
    more child answers (after its yield error or a reminder), the parent ending last."""
    first = {"choose": [{**child_step, "when": "CHILD-TYPED"}, task_call(_item())]}
    again = {"choose": [{**child_step, "unless": "<task-result"}, {"text": "done"}]}
    return [first, *([again] * retries)]


def _run(omp_harness, script):
    session = omp_harness.session(script=script, builtins=BUILTINS)
    events = omp_harness.run(session, "go")
    return results_of(events)[0], events


def test_valid_data_is_the_structured_result(omp_harness) -> None:
    script = [
        {"choose": [yield_step("CHILD-TYPED", {"n": 3}), task_call(_item())]},
        {"text": "done"},
    ]
    result, events = _run(omp_harness, script)
    assert result["exitCode"] == 0
    assert result["structuredOutput"] == {"status": "valid", "data": {"n": 3}, "mode": "permissive"}
    assert json.loads(result["output"]) == {"n": 3}
    assert '"n": 3' in task_text(events)


def test_invalid_data_is_kept_marked_invalid_when_permissive(omp_harness) -> None:
    bad = {"tool_calls": [{"name": "yield", "arguments": {"data": {"n": "three"}}}]}
    result, _ = _run(omp_harness, _retrying(bad))
    assert result["exitCode"] == 0
    assert result["structuredOutput"]["status"] == "invalid"
    assert result["structuredOutput"]["data"] == {"n": "three"}
    assert "is not of type 'integer'" in result["structuredOutput"]["error"]
    assert result["requests"] == 4


def test_invalid_data_fails_the_child_when_strict(omp_harness) -> None:
    bad = {"tool_calls": [{"name": "yield", "arguments": {"data": {"n": "three"}}}]}
    first, *rest = _retrying(bad)
    first = {"choose": [first["choose"][0], task_call(_item(schemaMode="strict"))]}
    result, events = _run(omp_harness, [first, *rest])
    assert result["exitCode"] == 1
    assert result["structuredOutput"]["status"] == "invalid"
    assert result["structuredOutput"]["mode"] == "strict"
    assert "does not match schema" in result["output"]
    assert 'status="failed (exit 1)"' in task_text(events)


def test_a_schema_child_that_never_yields_fails_with_its_last_text(omp_harness) -> None:
    result, _ = _run(omp_harness, _retrying({"text": "just prose"}))
    assert result["requests"] == 4  # the first answer and three reminders
    assert result["exitCode"] == 1
    assert result["output"] == "just prose"
    assert result["structuredOutput"]["status"] == "unavailable"


def test_without_schema_the_last_text_is_the_result(omp_harness) -> None:
    script = [
        {
            "choose": [
                {"when": "CHILD-PLAIN", "text": "plain answer"},
                task_call({"task": "CHILD-PLAIN"}),
            ]
        },
        *[{"choose": [{"unless": "<task-result", "text": "plain answer"}, {"text": "done"}]}] * 3,
    ]
    session = omp_harness.session(script=script, builtins=BUILTINS)
    events = omp_harness.run(session, "go")
    (result,) = results_of(events)
    assert result["exitCode"] == 0
    assert result["output"] == "plain answer"
    assert "structuredOutput" not in result


def test_yield_refuses_data_and_error_together(omp_harness) -> None:
    both = {
        "when": "CHILD-BOTH",
        "tool_calls": [{"name": "yield", "arguments": {"data": 1, "error": "x"}}],
    }
    fixed = yield_step("yield takes data or error", "second try")
    script = [
        {"choose": [both, task_call({"task": "CHILD-BOTH"})]},
        {"choose": [fixed, {"text": "done"}]},
    ]
    session = omp_harness.session(script=script, builtins=BUILTINS)
    (result,) = results_of(omp_harness.run(session, "go"))
    assert result["output"] == "second try"


def test_a_yielded_error_fails_the_child(omp_harness) -> None:
    script = [
        {
            "choose": [
                yield_step("CHILD-ERR", None, error="no access"),
                task_call({"task": "CHILD-ERR"}),
            ]
        },
        {"text": "done"},
    ]
    session = omp_harness.session(script=script, builtins=BUILTINS)
    (result,) = results_of(omp_harness.run(session, "go"))
    assert result["exitCode"] == 1 and result["output"] == "no access"
