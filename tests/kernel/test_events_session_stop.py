"""session_stop: handlers see the agent about to stop and may make it go on (continue
with additional context, or block the stop with a reason), at most 8 times in a row."""

from __future__ import annotations

import omp
from doubles import texts


def test_session_stop_sees_the_stop_and_can_continue_with_context(make_session, omp_harness):
    seen: list = []

    class KeepGoing:
        @omp.hookimpl
        def omp_session_stop(self, event):
            seen.append(
                (
                    event.last_assistant_message.text,
                    event.stop_hook_active,
                    event.session_id,
                    len(event.messages),
                )
            )
            if not event.stop_hook_active:
                return {"continue": True, "additional_context": "Also run the tests."}
            return None

    session, provider = make_session(
        [{"text": "done"}, {"text": "tests pass"}], plugins=[KeepGoing()]
    )
    log = omp_harness.run(session, "fix it")
    assert [s[:2] for s in seen] == [("done", False), ("tests pass", True)]
    assert seen[0][2] == session.session_file.session_id
    assert texts(provider.requests[1])[-1] == "Also run the tests."
    assert log.final_text() == "tests pass"
    assert len(log.of("agent_end")) == 1  # one run, continued


def test_block_with_reason_continues_with_the_reason(make_session, omp_harness):
    class Gate:
        calls = 0

        @omp.hookimpl
        def omp_session_stop(self, event):
            Gate.calls += 1
            if Gate.calls == 1:
                return {"decision": "block", "reason": "You did not answer the question."}

    session, provider = make_session([{"text": "hmm"}, {"text": "42"}], plugins=[Gate()])
    log = omp_harness.run(session, "what is it?")
    assert texts(provider.requests[1])[-1] == "You did not answer the question."
    assert log.final_text() == "42"


def test_at_most_eight_consecutive_continuations_then_a_notice(make_session, omp_harness):
    class Forever:
        @omp.hookimpl
        def omp_session_stop(self):
            return {"block": True, "reason": "again"}

    session, provider = make_session([{"text": f"r{i}"} for i in range(12)], plugins=[Forever()])
    log = omp_harness.run(session, "go")
    assert len(provider.requests) == 9  # the first answer plus 8 continuations
    notices = [e.message for e in log.of("notice")]
    assert any("8" in m and "session_stop" in m for m in notices), notices


def test_the_count_starts_again_with_each_prompt(make_session, omp_harness):
    class Once:
        @omp.hookimpl
        def omp_session_stop(self, event):
            return None if event.stop_hook_active else {"continue": True}

    session, provider = make_session([{"text": "a"}] * 4, plugins=[Once()])
    omp_harness.run(session, "one", "two")
    assert len(provider.requests) == 4


def test_no_session_stop_after_an_error_or_abort(make_session, omp_harness):
    calls: list = []

    class Watch:
        @omp.hookimpl
        def omp_session_stop(self, event):
            calls.append(event)

    session, _ = make_session([{"error": "boom"}], plugins=[Watch()])
    omp_harness.run(session, "go")
    assert calls == []


def test_the_first_handler_that_continues_wins(make_session, omp_harness):
    calls: list = []

    class First:
        @omp.hookimpl(tryfirst=True)
        def omp_session_stop(self, event):
            calls.append("first")
            return None if event.stop_hook_active else {"continue": True, "additional_context": "A"}

    class Second:
        @omp.hookimpl
        def omp_session_stop(self, event):
            calls.append("second")
            return None if event.stop_hook_active else {"continue": True, "additional_context": "B"}

    session, provider = make_session([{"text": "x"}, {"text": "y"}], plugins=[First(), Second()])
    omp_harness.run(session, "go")
    assert texts(provider.requests[1])[-1] == "A"
    assert calls == ["first", "first", "second"]
