"""The one rule for a tool call's final arguments (omp.base.partial_json), whatever the
provider: strict, with three named repairs; cut-off text is never run. Moved from
plugins/llm/tests/test_stream_faults.py, which tests the providers' streams end to end."""

from __future__ import annotations

import json

import pytest
from omp.base.partial_json import (
    CONTROL_CHARACTERS,
    CUT_OFF_TEXT,
    ENCODED_OBJECT,
    EXTRA_CLOSERS,
    PartialJson,
    with_repair,
)


@pytest.mark.parametrize(
    ("text", "value", "error", "repair"),
    [
        ('{"path": "a"}', {"path": "a"}, None, None),
        ("", {}, None, None),
        ('{"path": "a', {"path": "a"}, "cut", None),
        ('{"path": "a", "n": [1, 2', {"path": "a", "n": [1, 2]}, "cut", None),
        ('{"path": "a"}}', {"path": "a"}, None, EXTRA_CLOSERS),
        ('{"text": "one\ntwo"}', {"text": "one\ntwo"}, None, CONTROL_CHARACTERS),
        (json.dumps(json.dumps({"path": "a"})), {"path": "a"}, None, ENCODED_OBJECT),
        ('{"a": 1} {"b": 2}', None, "not valid JSON", None),
        ("{'path': 'a'}", None, "not valid JSON", None),
        ("ls -la", {}, "not valid JSON", None),
        ("[1, 2]", {}, "not an array", None),
        ('"just text"', {}, "not a string", None),
    ],
)
def test_final_arguments(text, value, error, repair):
    parser = PartialJson()
    for start in range(0, len(text), 3):  # in fragments, as they stream
        parser.feed(text[start : start + 3])
    result = parser.result()
    if value is not None:
        assert result.value == value
    if error == "cut":
        assert result.error == CUT_OFF_TEXT
    elif error:
        assert error in result.error and "was not run" in result.error
    else:
        assert result.error is None
    assert result.repair == repair


def test_a_repair_is_reported_beside_the_tools_own_details():
    assert with_repair(None, "x") == {"argumentsRepair": "x"}
    assert with_repair({"path": "a"}, "x") == {"path": "a", "argumentsRepair": "x"}
    assert with_repair("text details", "x") == "text details"
