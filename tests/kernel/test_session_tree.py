"""/branch, /tree, /fork and /name (the sessions-command plugin) over the session actions:
every entry stays on disk and the context is exactly the chosen path."""

from __future__ import annotations

import json

import omp_sessions_command.plugin as sessions_plugin
import pytest
from doubles import texts
from omp.base.errors import OmpError


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _user_ids(path) -> dict[str, str]:
    return {
        e["message"]["content"]: e["id"]
        for e in _lines(path)
        if e["type"] == "message" and e["message"]["role"] == "user"
    }


def _session(make_session, omp_harness, replies):
    path = omp_harness.cwd / "s.jsonl"
    session, provider = make_session(replies, plugins=[sessions_plugin], session_path=str(path))
    return session, provider, path


def test_branch_keeps_every_entry_and_continues_from_before_the_chosen_prompt(
    make_session, omp_harness
):
    replies = [{"text": "one"}, {"text": "two"}, {"text": "three"}, {"text": "four"}]
    session, provider, path = _session(make_session, omp_harness, replies)
    omp_harness.run(session, "first", "second", "third")
    before = path.read_bytes()
    second = _user_ids(path)["second"]
    omp_harness.run(session, f"/branch {second[:6]}", "instead")
    after = path.read_bytes()
    assert after.startswith(before)  # nothing rewritten, nothing lost
    assert texts(provider.requests[-1]) == ["first", "one", "instead"]
    new = _lines(path)[-2]
    assert new["message"]["content"] == "instead"
    assert (
        new["parentId"]
        == _lines(path)[[e.get("id") for e in _lines(path)].index(second)]["parentId"]
    )
    # the abandoned path is still there: /tree back to "three" rebuilds it exactly
    three = next(
        e["id"]
        for e in _lines(path)
        if e["type"] == "message"
        and e["message"]["role"] == "assistant"
        and e["message"]["content"][0]["text"] == "three"
    )
    omp_harness.run(session, f"/tree {three}", "again")
    assert texts(provider.requests[-1])[:6] == ["first", "one", "second", "two", "third", "three"]
    assert texts(provider.requests[-1])[-1] == "again"


def test_tree_with_a_summary_writes_a_branch_summary_the_model_sees(make_session, omp_harness):
    replies = [{"text": "one"}, {"text": "two"}, {"text": "three"}]
    session, provider, path = _session(make_session, omp_harness, replies)
    omp_harness.run(session, "first", "second")
    first_reply = next(
        e["id"]
        for e in _lines(path)
        if e["type"] == "message" and e["message"]["role"] == "assistant"
    )
    omp_harness.run(session, f"/tree {first_reply} --summary tried approach B; it failed", "go")
    summary = next(e for e in _lines(path) if e["type"] == "branch_summary")
    assert summary["summary"] == "tried approach B; it failed"
    assert summary["parentId"] == first_reply
    sent = texts(provider.requests[-1])
    assert sent[:2] == ["first", "one"] and "tried approach B" in sent[2] and sent[-1] == "go"
    assert "second" not in sent


def test_tree_and_branch_without_an_argument_list_the_choices(make_session, omp_harness):
    session, _, path = _session(make_session, omp_harness, [{"text": "one"}, {"text": "two"}])
    notices: list[str] = []
    session.ui.notify = lambda message, level="info": notices.append(message)
    omp_harness.run(session, "first", "second", "/tree", "/branch")
    tree, branch = notices[-2], notices[-1]
    ids = _user_ids(path)
    assert f"{ids['first']}  user: first" in tree and "<- here" in tree
    assert f"{ids['second']}  user: second" in branch


def test_fork_and_name(make_session, omp_harness):
    session, _, path = _session(make_session, omp_harness, [{"text": "one"}, {"text": "two"}])
    omp_harness.run(session, "first", "second", "/name Auth refactor")
    assert _lines(path)[-1] == {**_lines(path)[-1], "type": "session_info", "name": "Auth refactor"}
    second = _user_ids(path)["second"]
    omp_harness.run(session, f"/fork {second}")
    forked = session.session_file.path
    assert forked != path and path.exists()
    header, *entries = _lines(forked)
    assert header["parentSession"] == str(path)
    assert next(e["message"]["content"] for e in entries if e["type"] == "message") == "first"
    assert len([e for e in entries if e["type"] == "message"]) == 2  # first, one


def test_tree_summarize_has_the_model_summarise_the_abandoned_branch(make_session, omp_harness):
    replies = [
        {"text": "one"},
        {"calls": [("read", {"path": "notes.txt"})]},
        {"text": "approach B fails on empty input"},
        {"text": "## Goal\nTry approach B\n\n## Next Steps\n1. avoid B"},  # the summary
        {"text": "ok"},
    ]
    (omp_harness.cwd / "notes.txt").write_text("kiwi\n")
    session, provider, path = _session(make_session, omp_harness, replies)
    omp_harness.run(session, "first", "try approach B")
    before = path.read_bytes()
    first_reply = next(
        e["id"]
        for e in _lines(path)
        if e["type"] == "message" and e["message"]["role"] == "assistant"
    )
    notices: list[str] = []
    session.ui.notify = lambda message, level="info": notices.append(message)
    omp_harness.run(session, f"/tree {first_reply[:8]} --summarize focus on the failure", "go")
    assert notices[0].endswith("with a summary of the branch left")
    assert path.read_bytes().startswith(before)  # the abandoned branch stays on disk
    request = provider.requests[3]
    prompt = texts(request)[0]
    assert "try approach B" in prompt and "approach B fails on empty input" in prompt
    assert "[User]: first" not in prompt  # only the branch left, not the shared path
    assert "focus on the failure" in prompt and request.tools == []
    summary = next(e for e in _lines(path) if e["type"] == "branch_summary")
    assert summary["parentId"] == first_reply and "Try approach B" in summary["summary"]
    assert "<read-files>\nnotes.txt\n</read-files>" in summary["summary"]
    assert summary["details"] == {"readFiles": ["notes.txt"], "modifiedFiles": []}
    sent = texts(provider.requests[-1])
    assert sent[:2] == ["first", "one"] and "Try approach B" in sent[2] and sent[-1] == "go"


def test_a_failed_branch_summary_leaves_the_session_where_it_was(make_session, omp_harness):
    replies = [{"text": "one"}, {"text": "two"}, {"error": "overloaded"}]
    session, _, path = _session(make_session, omp_harness, replies)
    omp_harness.run(session, "first", "second")
    before = path.read_bytes()
    leaf = session.session_file.leaf_id
    first_reply = next(
        e["id"]
        for e in _lines(path)
        if e["type"] == "message" and e["message"]["role"] == "assistant"
    )
    with pytest.raises(OmpError, match="summary request failed: overloaded"):
        omp_harness.run(session, f"/tree {first_reply} --summarize")  # modes print one line
    assert path.read_bytes() == before and session.session_file.leaf_id == leaf
    assert [m.role for m in session.agent.messages] == ["user", "assistant"] * 2


def test_a_long_abandoned_branch_is_summarised_from_its_newest_messages(make_session, omp_harness):
    (omp_harness.agent_dir / "settings.json").write_text(
        json.dumps({"branchSummary": {"reserveTokens": 600}})
    )
    filler = "lorem ipsum dolor sit amet " * 30  # ~200 tokens a reply
    replies = [{"text": "one"}] + [{"text": f"step {n}: {filler}"} for n in range(6)]
    session, provider, path = _session(make_session, omp_harness, replies)
    omp_harness.run(session, "first", *(f"prompt {n}" for n in range(6)))
    first_reply = next(
        e["id"]
        for e in _lines(path)
        if e["type"] == "message" and e["message"]["role"] == "assistant"
    )
    omp_harness.run(session, f"/tree {first_reply} --summarize")
    prompt = texts(provider.requests[-1])[0]
    assert "step 5:" in prompt and "prompt 5" in prompt  # the newest part of the branch
    assert "prompt 0" not in prompt and "step 0:" not in prompt  # past the 400-token budget
    assert next(e for e in _lines(path) if e["type"] == "branch_summary")


def test_tree_summarize_works_after_a_run_was_aborted(make_session, omp_harness):
    import asyncio

    replies = [{"text": "one"}, {"text": "slow", "delay": 5}, {"text": "the summary"}]
    session, _, path = _session(make_session, omp_harness, replies)
    omp_harness.run(session, "first")

    async def abort_soon(session):
        await asyncio.sleep(0.3)
        session.abort()

    omp_harness.run(session, "second", during=abort_soon)  # Esc during the reply
    first_reply = next(
        e["id"]
        for e in _lines(path)
        if e["type"] == "message" and e["message"]["role"] == "assistant"
    )
    omp_harness.run(session, f"/tree {first_reply} --summarize")
    summary = next(e for e in _lines(path) if e["type"] == "branch_summary")
    assert "the summary" in summary["summary"]


def test_an_aborted_branch_summary_moves_nothing(make_session, omp_harness):
    import asyncio

    replies = [{"text": "one"}, {"text": "two"}, {"text": "too late", "delay": 5}]
    session, _, path = _session(make_session, omp_harness, replies)
    omp_harness.run(session, "first", "second")
    before, leaf = path.read_bytes(), session.session_file.leaf_id
    first_reply = next(
        e["id"]
        for e in _lines(path)
        if e["type"] == "message" and e["message"]["role"] == "assistant"
    )

    async def abort_soon(session):
        await asyncio.sleep(0.3)
        session.abort()

    with pytest.raises(OmpError, match="summary was aborted"):
        omp_harness.run(session, f"/tree {first_reply} --summarize", during=abort_soon)
    assert path.read_bytes() == before and session.session_file.leaf_id == leaf
