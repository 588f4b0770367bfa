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


def test_messages_are_copied_only_when_a_handler_reads_them():
    from omp.agent.messages import UserMessage
    from omp.base.copying import CopyOnRead

    originals = [UserMessage(content=f"m{n}") for n in range(5)]
    view = CopyOnRead(originals)
    last = view[-1]
    assert last is not originals[-1] and last.content == "m4"
    settled = view.settled()
    assert settled[0] is originals[0] and settled[-1] is last
    view.insert(0, UserMessage(content="new"))
    assert [m.content for m in view] == ["new", "m0", "m1", "m2", "m3", "m4"]
    assert all(a is not b for a, b in zip(view.settled()[1:], originals, strict=True))
    view[1].content = "changed"
    assert originals[0].content == "m0"


def test_a_handler_that_only_counts_messages_copies_none(make_session, omp_harness, monkeypatch):
    import omp.base.copying

    copies = []
    real = omp.base.copying.deep_copy
    monkeypatch.setattr(omp.base.copying, "deep_copy", lambda v: copies.append(v) or real(v))

    class Counter:
        @omp.hookimpl
        def omp_context(self, event):
            assert len(event.messages) >= 1

    session, provider = make_session([{"text": "one"}], plugins=[Counter()])
    omp_harness.run(session, "hello")
    assert copies == []
    assert provider.requests[0].messages[0].content == "hello"


def test_appending_copies_nothing_and_the_request_sees_the_new_message():
    from omp.agent.messages import UserMessage
    from omp.base.copying import CopyOnRead

    originals = [UserMessage(content=f"m{n}") for n in range(3)]
    view = CopyOnRead(originals)
    view.append(UserMessage(content="added"))
    view += [UserMessage(content="more")]
    settled = view.settled()
    assert all(a is b for a, b in zip(settled[:3], originals, strict=True))
    assert [m.content for m in settled[3:]] == ["added", "more"]
    assert view.copied_indexes() == [3, 4]
