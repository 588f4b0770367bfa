"""Session actions from a command handler - new session, switch, fork, tree navigation -
and the events plugins see for each (omp's before/after pairs, the first cancel wins)."""

from __future__ import annotations

import asyncio
import json

import omp
import pytest
from omp.base.errors import OmpError
from omp.plugin.contrib import Command


class Recorder:
    """Records session events as (type, selected fields); may cancel before-events."""

    def __init__(self, cancel: tuple[str, ...] = ()) -> None:
        self.seen: list = []
        self.cancel = cancel

    def _before(self, name, **fields):
        self.seen.append((name, fields))
        return {"cancel": True} if name in self.cancel else None

    @omp.hookimpl
    def omp_session_before_switch(self, event):
        return self._before("before_switch", reason=event.reason, target=event.target_session_file)

    @omp.hookimpl
    def omp_session_before_fork(self, event):
        return self._before("before_fork", entry_id=event.entry_id, position=event.position)

    @omp.hookimpl
    def omp_session_before_tree(self, event):
        p = event.preparation
        return self._before(
            "before_tree",
            target=p.target_id,
            old_leaf=p.old_leaf_id,
            ancestor=p.common_ancestor_id,
            abandoned=[e["id"] for e in p.entries_to_summarize],
            wants_summary=p.user_wants_summary,
        )

    @omp.hookimpl
    def omp_session_shutdown(self, event):
        self.seen.append(("shutdown", {"reason": event.reason}))

    @omp.hookimpl
    def omp_session_start(self, event, ctx):
        ctx.state.setdefault("recorder", []).append(event.reason)
        self.seen.append(
            ("start", {"reason": event.reason, "previous": event.previous_session_file})
        )

    @omp.hookimpl
    def omp_session_switch(self, event):
        self.seen.append(
            ("switch", {"reason": event.reason, "previous": event.previous_session_file})
        )

    @omp.hookimpl
    def omp_session_fork(self, event):
        self.seen.append(
            ("fork", {"previous": event.previous_session_file, "entry_id": event.entry_id})
        )

    @omp.hookimpl
    def omp_session_tree(self, event):
        summary = event.summary_entry["summary"] if event.summary_entry else None
        self.seen.append(
            (
                "tree",
                {
                    "new": event.new_leaf_id,
                    "old": event.old_leaf_id,
                    "summary": summary,
                    "from_extension": event.from_extension,
                },
            )
        )

    def names(self) -> list[str]:
        return [name for name, _ in self.seen]


class Commands:
    """/do: runs the coroutine the test put in ``Commands.action`` with the command ctx."""

    action = None
    result = None

    @omp.hookimpl
    def omp_register_commands(self, api):
        async def run(args, ctx):
            Commands.result = await Commands.action(ctx)

        return [Command("do", "run the test's action", run)]


def _persisted(make_session, omp_harness, replies, plugins, name="s.jsonl"):
    path = omp_harness.cwd / name
    return make_session(replies, plugins=[Commands(), *plugins], session_path=str(path))


def _user_texts(session) -> list[str]:
    from omp.agent.messages import content_text

    return [content_text(m.content) for m in session.agent.messages if m.role == "user"]


def test_new_session_from_a_command(make_session, omp_harness):
    recorder = Recorder()
    session, _ = _persisted(make_session, omp_harness, [{"text": "a"}], [recorder])
    old = str(session.session_file.path)
    Commands.action = lambda ctx: ctx.new_session(parent_session=old)
    omp_harness.run(session, "hello", "/do")
    assert Commands.result == {"cancelled": False}
    assert session.agent.messages == []
    assert str(session.session_file.path) != old
    assert session.session_file.header["parentSession"] == old
    assert (
        session.session_file.path.parent
        == omp_harness.agent_dir / "sessions" / session.session_file.path.parent.name
    )
    after = recorder.names()[recorder.names().index("before_switch") :]
    assert after == ["before_switch", "shutdown", "start", "switch", "shutdown"]
    assert recorder.seen[recorder.names().index("before_switch")][1] == {
        "reason": "new",
        "target": None,
    }
    assert ("switch", {"reason": "new", "previous": old}) in recorder.seen
    assert ("start", {"reason": "new", "previous": old}) in recorder.seen
    assert session.plugin_state["recorder"] == ["new"]  # the new session's state is fresh


def test_a_cancelled_new_session_changes_nothing(make_session, omp_harness):
    recorder = Recorder(cancel=("before_switch",))
    session, _ = make_session([{"text": "a"}], plugins=[Commands(), recorder])
    Commands.action = lambda ctx: ctx.new_session()
    omp_harness.run(session, "hello", "/do")
    assert Commands.result == {"cancelled": True}
    assert _user_texts(session) == ["hello"]
    assert "switch" not in recorder.names()


def test_switch_session_resumes_another_file_and_restores_its_model(
    make_session, omp_harness, monkeypatch
):
    other = omp_harness.cwd / "other.jsonl"
    first, _ = make_session([{"text": "from the other"}], session_path=str(other), thinking="low")
    omp_harness.run(first, "earlier question")
    watch: list = []

    class Models:
        @omp.hookimpl
        def omp_model_select(self, event):
            watch.append((event.model.key, event.source))

        @omp.hookimpl
        def omp_thinking_level_select(self, event):
            watch.append((event.level, event.source))

    recorder = Recorder()
    session, _ = make_session([], plugins=[Commands(), recorder, Models()])
    Commands.action = lambda ctx: ctx.switch_session(str(other))
    omp_harness.run(session, "/do")
    assert Commands.result == {"cancelled": False}
    assert ("before_switch", {"reason": "resume", "target": str(other)}) in recorder.seen
    assert ("switch", {"reason": "resume", "previous": None}) in recorder.seen
    assert _user_texts(session) == ["earlier question"]
    assert session.session_file.path == other
    assert ("test/model", "restore") in watch and ("low", "restore") in watch


def test_switching_to_a_missing_file_or_itself_is_a_clear_error(make_session, omp_harness):
    session, _ = make_session([{"text": "hi"}], session_path=str(omp_harness.cwd / "s.jsonl"))

    async def scenario():
        await session.start()
        with pytest.raises(OmpError, match="no such file"):
            await session.switch_session(str(omp_harness.cwd / "missing.jsonl"))
        await session.prompt("hello")  # the file is on disk now
        with pytest.raises(OmpError, match="it is the current session"):
            await session.switch_session(str(session.session_file.path))
        await session.shutdown()

    asyncio.run(scenario())


def test_fork_before_a_user_message_makes_a_new_file_with_the_path_to_it(make_session, omp_harness):
    recorder = Recorder()
    session, _ = _persisted(
        make_session, omp_harness, [{"text": "one"}, {"text": "two"}], [recorder]
    )

    def second_user_entry(ctx):
        entries = [e for e in ctx.session.entries() if e["type"] == "message"]
        return [e for e in entries if e["message"]["role"] == "user"][1]["id"]

    async def fork(ctx):
        return await ctx.fork(second_user_entry(ctx))

    Commands.action = fork
    old = str(session.session_file.path)
    omp_harness.run(session, "first", "second", "/do")
    assert Commands.result == {"cancelled": False, "editor_text": "second"}
    assert _user_texts(session) == ["first"]
    forked = session.session_file
    assert str(forked.path) != old and forked.header["parentSession"] == old
    on_disk = [json.loads(line) for line in forked.path.read_text().splitlines()]
    assert on_disk[0]["parentSession"] == old
    roles = [e["message"]["role"] for e in on_disk[1:] if e["type"] == "message"]
    assert roles == ["user", "assistant"]
    names = recorder.names()
    assert names[names.index("before_fork") :] == [
        "before_fork",
        "shutdown",
        "start",
        "switch",
        "fork",
        "shutdown",
    ]
    assert (
        "fork",
        {"previous": old, "entry_id": recorder.seen[names.index("before_fork")][1]["entry_id"]},
    ) in recorder.seen


class Guard:
    """A guard as pi's confirm-destructive example writes it: it asks before the
    session is left, on each before-event it knows."""

    @omp.hookimpl
    async def omp_session_before_switch(self, event, ctx):
        confirmed = await ctx.ui.confirm(f"Leave this session ({event.reason})?", "")
        return None if confirmed else {"cancel": True}

    @omp.hookimpl
    async def omp_session_before_fork(self, event, ctx):
        confirmed = await ctx.ui.confirm("Fork this session?", "")
        return None if confirmed else {"cancel": True}


def test_a_guard_is_asked_once_per_session_action(make_session, omp_harness):
    session, _ = make_session(
        [{"text": "one"}],
        plugins=[Commands(), Guard()],
        session_path=str(omp_harness.cwd / "s.jsonl"),
        ui_answers=[True] * 5,
    )

    async def fork_then_new(ctx):
        first = next(e for e in ctx.session.entries() if e["type"] == "message")
        forked = await ctx.fork(first["id"], "at")
        return forked, await ctx.new_session()

    Commands.action = fork_then_new
    omp_harness.run(session, "first", "/do")
    assert Commands.result == ({"cancelled": False}, {"cancelled": False})
    assert session.ui.requests == [
        ("confirm", "Fork this session?"),
        ("confirm", "Leave this session (new)?"),
    ]


class OmpGuard:
    """A guard written for omp, which asks session_before_switch (reason fork) on a fork."""

    @omp.hookimpl
    async def omp_session_before_switch(self, event, ctx):
        confirmed = await ctx.ui.confirm(f"Leave this session ({event.reason})?", "")
        return None if confirmed else {"cancel": True}


def test_a_guard_written_for_omp_is_asked_once_on_fork_and_can_cancel_it(make_session, omp_harness):
    session, _ = make_session(
        [{"text": "one"}],
        plugins=[Commands(), OmpGuard(), Guard()],
        session_path=str(omp_harness.cwd / "s.jsonl"),
        ui_answers=[True, False],
    )

    async def fork(ctx):
        first = next(e for e in ctx.session.entries() if e["type"] == "message")
        return await ctx.fork(first["id"], "at")

    Commands.action = fork
    omp_harness.run(session, "first", "/do")
    assert Commands.result == {"cancelled": True}
    assert sorted(session.ui.requests) == [
        ("confirm", "Fork this session?"),
        ("confirm", "Leave this session (fork)?"),
    ]


def test_fork_can_be_cancelled_and_an_unknown_entry_is_an_error(make_session, omp_harness):
    recorder = Recorder(cancel=("before_fork",))
    session, _ = make_session([{"text": "one"}], plugins=[Commands(), recorder])

    async def fork(ctx):
        entry = next(e for e in ctx.session.entries() if e["type"] == "message")
        cancelled = await ctx.fork(entry["id"])
        with pytest.raises(OmpError, match="no entry nope"):
            await ctx.fork("nope")
        return cancelled

    Commands.action = fork
    omp_harness.run(session, "first", "/do")
    assert Commands.result == {"cancelled": True}
    assert "switch" not in recorder.names()


def test_navigate_tree_moves_the_leaf_and_a_plugin_may_summarise(make_session, omp_harness):
    class Summariser(Recorder):
        @omp.hookimpl
        def omp_session_before_tree(self, event):
            super().omp_session_before_tree(event)
            return {"summary": {"summary": "tried approach B", "details": {"runs": 2}}}

    recorder = Summariser()
    session, provider = make_session(
        [{"text": "one"}, {"text": "two"}, {"text": "three"}], plugins=[Commands(), recorder]
    )
    ids: dict = {}

    async def navigate(ctx):
        entries = [e for e in ctx.session.entries() if e["type"] == "message"]
        users = [e for e in entries if e["message"]["role"] == "user"]
        ids["old_leaf"] = ctx.session.leaf_id
        ids["target"] = users[1]["id"]
        ids["parent"] = users[1]["parentId"]
        return await ctx.navigate_tree(users[1]["id"], summarize=True)

    Commands.action = navigate
    omp_harness.run(session, "first", "second", "/do", "third")
    assert Commands.result == {"cancelled": False, "editor_text": "second"}
    [(_, prep)] = [s for s in recorder.seen if s[0] == "before_tree"]
    assert prep["target"] == ids["target"] and prep["old_leaf"] == ids["old_leaf"]
    assert prep["ancestor"] == ids["parent"] and prep["wants_summary"] is True
    assert prep["abandoned"][0] == ids["target"] and prep["abandoned"][-1] == ids["old_leaf"]
    [(_, tree)] = [s for s in recorder.seen if s[0] == "tree"]
    assert tree["old"] == ids["old_leaf"] and tree["summary"] == "tried approach B"
    assert tree["from_extension"] is True
    written = next(e for e in session.session_file.entries if e["type"] == "branch_summary")
    assert written["details"] == {"runs": 2} and written["fromExtension"] is True
    assert provider.requests[2:] and len(provider.requests) == 3  # no summary request
    # the third prompt continues from "first", with the summary in place of "second"
    sent = [m for m in provider.requests[2].messages]
    from doubles import texts

    assert texts(provider.requests[2])[0] == "first"
    assert "tried approach B" in texts(provider.requests[2])[2]
    assert "second" not in texts(provider.requests[2])
    assert len(sent) == 4


def test_navigate_tree_can_be_cancelled(make_session, omp_harness):
    recorder = Recorder(cancel=("before_tree",))
    session, _ = make_session([{"text": "one"}], plugins=[Commands(), recorder])

    async def navigate(ctx):
        first = next(e for e in ctx.session.entries() if e["type"] == "message")
        return await ctx.navigate_tree(first["id"])

    Commands.action = navigate
    omp_harness.run(session, "first", "/do")
    assert Commands.result == {"cancelled": True}
    assert _user_texts(session) == ["first"]
    assert "tree" not in recorder.names()


def test_session_actions_refuse_while_the_agent_runs(make_session, omp_harness):
    session, _ = make_session([{"text": "slow", "delay": 0.5}])

    async def during(session):
        await asyncio.sleep(0.1)
        with pytest.raises(OmpError, match="while the agent is running"):
            await session.new_session()

    omp_harness.run(session, "go", during=during)
