"""State per session: counts grow within a session and start over in a new one."""

from __future__ import annotations

from omp_tally_tool import plugin


def tally(item: str) -> dict:
    return {"tool_calls": [{"name": "tally", "arguments": {"item": item}}]}


def test_counts_grow_within_a_session(omp_harness):
    script = [tally("apple"), tally("apple"), tally("pear"), {"text": "counted"}]
    session = omp_harness.session([plugin], script=script)
    events = omp_harness.run(session, "count the fruit", "/tally")
    texts = [e.result["content"][0].text for e in events.of("tool_execution_end")]
    assert texts == ["apple: 1", "apple: 2", "pear: 1"]
    assert events.of("notice")[-1].message == "apple: 2, pear: 1"


def test_a_new_session_starts_from_zero(omp_harness):
    runtime = omp_harness.runtime([plugin])
    for _ in range(2):
        session = omp_harness.session(runtime=runtime, script=[tally("apple"), {"text": "ok"}])
        end = omp_harness.run(session, "count").of("tool_execution_end")[0]
        assert end.result["content"][0].text == "apple: 1"
