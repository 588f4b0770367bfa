"""``context`` handlers get a copy of the conversation (issue 9, item 3): what they
change in place reaches that one request, never the stored conversation."""

from __future__ import annotations

import omp


def test_changing_a_message_in_place_does_not_change_the_conversation(make_session, omp_harness):
    class Vandal:
        @omp.hookimpl
        def omp_context(self, event):
            first = event.messages[0]
            first.content = "rewritten by a context handler"
            event.messages.append(first)

    session, provider = make_session([{"text": "one"}, {"text": "two"}], plugins=[Vandal()])
    omp_harness.run(session, "the original question", "and a second one")
    first_user = session.agent.messages[0]
    assert first_user.content == "the original question"
    assert [m.role for m in session.agent.messages] == ["user", "assistant", "user", "assistant"]
    # the model saw what the handler made, request by request
    seen = provider.requests[1].messages
    assert seen[0].content == "rewritten by a context handler"
    assert len(seen) == 4


def test_a_returned_message_list_applies_to_that_request_only(make_session, omp_harness):
    class Pruner:
        @omp.hookimpl
        def omp_context(self, event):
            return {"messages": event.messages[-1:]}

    session, provider = make_session([{"text": "one"}, {"text": "two"}], plugins=[Pruner()])
    omp_harness.run(session, "first", "second")
    assert len(provider.requests[1].messages) == 1
    assert len(session.agent.messages) == 4
