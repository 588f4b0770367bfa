from __future__ import annotations

import copy
import json
import os
import stat
from pathlib import Path

import pytest
from omp.agent.messages import (
    AssistantMessage,
    BranchSummaryMessage,
    CustomMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    to_wire,
)
from omp.base.errors import OmpError
from omp.session.file import SessionFile, SessionView
from omp.session.store import (
    encode_cwd,
    find_session,
    list_sessions,
    most_recent,
    new_session_path,
    sessions_dir,
)


def user(text: str) -> UserMessage:
    return UserMessage(content=text)


def assistant(text: str = "", *calls: ToolCall) -> AssistantMessage:
    content: list = [TextContent(text=text)] if text else []
    return AssistantMessage(content=[*content, *calls], provider="p", model="m")


def result(call_id: str, text: str = "ok") -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call_id, tool_name="read", content=[TextContent(text=text)]
    )


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def wire(messages: list) -> list[dict]:
    return [to_wire(m) for m in messages]


def test_round_trip_gives_the_same_context(tmp_path: Path) -> None:
    path = tmp_path / "s" / "session.jsonl"
    session = SessionFile.create("/work", path, parent_session="/old.jsonl")
    session.append_model_change("anthropic/claude")
    session.append_thinking_level_change("high")
    session.append_message(user("hi"))
    session.append_message(assistant("", ToolCall(id="c1", name="read", arguments={"p": "x"})))
    session.append_message(result("c1"))
    session.append_message(assistant("done ✓"))
    session.append_custom("my-plugin/state", {"n": 1})
    session.append_custom_message("my-plugin/note", [TextContent(text="note")], details={"a": 1})
    entry = session.append_message(user("more"))
    session.append_label(entry["id"], "checkpoint")
    before = session.build_context()

    loaded = SessionFile.open(path, lock=False)  # a reader beside the writer
    after = loaded.build_context()
    assert loaded.load_warnings == []
    assert loaded.session_id == session.session_id
    assert loaded.header["parentSession"] == "/old.jsonl"
    assert loaded.cwd == "/work"
    assert loaded.entries == session.entries
    assert loaded.leaf_id == session.leaf_id
    assert wire(after.messages) == wire(before.messages)
    assert (after.model, after.thinking_level) == ("anthropic/claude", "high")
    assert isinstance(after.messages[4], CustomMessage)
    assert [m.role for m in after.messages] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "custom",
        "user",
    ]

    raw = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(raw[0])["type"] == "session"
    assert json.loads(raw[0])["version"] == 3
    assert "done ✓" in raw[6]
    for record in lines(path)[1:]:
        assert len(record["id"]) == 8
        assert set(record) >= {"type", "id", "parentId", "timestamp"}


def test_the_file_is_written_at_the_first_message_before_any_reply(tmp_path: Path) -> None:
    """The user's prompt reaches the disk before the request is sent, so an interrupted
    first reply cannot lose it; a run that never gets a message writes nothing."""
    path = tmp_path / "deep" / "dir" / "s.jsonl"
    session = SessionFile.create("/work", path)
    session.append_custom("x", {"a": 1})
    assert not path.exists() and not session.is_persisted
    session.append_message(user("hi"))
    assert session.is_persisted
    assert [r["type"] for r in lines(path)] == ["session", "custom", "message"]
    session.append_message(assistant("hello"))
    assert len(lines(path)) == 4
    assert path.read_bytes().endswith(b"\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_ensure_on_disk_writes_early(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    session = SessionFile.create("/work", path)
    session.append_message(user("hi"))
    session.ensure_on_disk()
    assert [r["type"] for r in lines(path)] == ["session", "message"]
    session.ensure_on_disk()
    assert len(lines(path)) == 2


def test_in_memory_session_never_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    session = SessionFile.create(str(tmp_path), None)
    session.append_message(user("hi"))
    session.append_message(assistant("hello"))
    session.ensure_on_disk()
    assert session.path is None and not session.is_persisted
    assert list(tmp_path.iterdir()) == []
    assert len(session.build_context().messages) == 2


def test_branch_and_build_context_follow_the_branch(tmp_path: Path) -> None:
    session = SessionFile.create("/work", tmp_path / "s.jsonl")
    first = session.append_message(user("one"))
    reply = session.append_message(assistant("first answer"))
    session.append_message(user("two"))
    session.append_message(assistant("second answer"))
    session.branch(reply["id"])
    session.append_branch_summary(reply["id"], "tried two")
    session.append_message(user("three"))

    texts = [
        getattr(m, "text", None) or getattr(m, "summary", None) or m.content
        for m in session.build_context().messages
    ]
    assert texts == ["one", "first answer", "tried two", "three"]
    assert isinstance(session.build_context().messages[2], BranchSummaryMessage)
    assert [c["type"] for c in session.children(reply["id"])] == ["message", "branch_summary"]
    assert session.branch_entries(first["id"]) == [first]

    loaded = SessionFile.open(tmp_path / "s.jsonl", lock=False)
    assert wire(loaded.build_context().messages) == wire(session.build_context().messages)

    with pytest.raises(OmpError, match="nope"):
        session.branch("nope")
    session.reset_leaf()
    root = session.append_message(user("fresh"))
    assert root["parentId"] is None
    assert [m.content for m in session.build_context().messages] == ["fresh"]


def test_torn_last_line_is_moved_aside_and_repaired(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    session = SessionFile.create("/work", path)
    session.append_message(user("hi"))
    session.append_message(assistant("hello"))
    session.close()
    good = path.read_bytes()
    torn = b'{"type":"message","id":"abcd1234","parentId":null,"message":{"ro'
    with open(path, "ab") as f:
        f.write(torn)

    loaded = SessionFile.open(path)
    assert len(loaded.load_warnings) == 1
    warning = loaded.load_warnings[0]
    assert "session.jsonl:4:" in warning and "torn last line" in warning
    assert f"({len(torn)} bytes)" in warning and ".torn-" in warning
    assert [m.role for m in loaded.build_context().messages] == ["user", "assistant"]
    assert path.read_bytes() == good + torn  # nothing changes until the next write

    loaded.append_message(user("after"))
    records = lines(path)
    assert [r["type"] for r in records] == ["session", "message", "message", "message"]
    assert path.read_bytes().startswith(good)
    torn_files = list(tmp_path.glob("session.jsonl.torn-*"))
    assert len(torn_files) == 1 and torn_files[0].read_bytes() == torn
    again = SessionFile.open(path, lock=False)
    assert again.load_warnings == []
    assert [m.content for m in again.build_context().messages][-1] == "after"


def test_complete_last_line_without_newline_gets_one(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    session = SessionFile.create("/work", path)
    session.append_message(assistant("hello"))
    session.close()
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    loaded = SessionFile.open(path)
    assert loaded.load_warnings == []
    loaded.append_message(user("next"))
    assert [r["type"] for r in lines(path)] == ["session", "message", "message"]


def test_garbage_middle_line_is_skipped_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    session = SessionFile.create("/work", path)
    session.append_message(user("hi"))
    session.append_message(assistant("hello"))
    session.close()
    raw = path.read_bytes().split(b"\n")
    raw.insert(2, b"{not json at all")
    raw.insert(
        3,
        json.dumps(
            {
                "type": "message",
                "id": "deadbeef",
                "parentId": None,
                "timestamp": "2024-01-01T00:00:00.000Z",
                "message": {"role": "user"},
            }
        ).encode(),
    )
    raw.insert(4, json.dumps({"type": "future_thing", "id": "cafe0000", "x": 1}).encode())
    path.write_bytes(b"\n".join(raw))
    original = path.read_bytes()

    loaded = SessionFile.open(path)
    assert any("s.jsonl:3:" in w and "unreadable line" in w for w in loaded.load_warnings)
    assert any("s.jsonl:4:" in w and "unreadable message" in w for w in loaded.load_warnings)
    assert loaded.get_entry("cafe0000") == {"type": "future_thing", "id": "cafe0000", "x": 1}
    loaded.branch(session.leaf_id)
    assert [m.role for m in loaded.build_context().messages] == ["user", "assistant"]
    loaded.append_message(user("more"))
    assert path.read_bytes().startswith(original)
    assert b"{not json at all\n" in path.read_bytes()


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"type":"message","id":"x"}\n', "line 1 is not a session header"),
        (b"garbage\n", "line 1 is not a session header"),
        (b"\xff\xfe\n", "line 1 is not a session header"),
        (b"", "the file is empty"),
    ],
)
def test_bad_header_raises(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(OmpError) as info:
        SessionFile.open(path)
    assert str(info.value) == f"cannot open session {path}: {reason}"


def test_missing_file_and_directory_raise(tmp_path: Path) -> None:
    with pytest.raises(OmpError, match="no such file"):
        SessionFile.open(tmp_path / "missing.jsonl")
    with pytest.raises(OmpError, match="is a directory"):
        SessionFile.open(tmp_path)


def test_stray_tool_results_are_dropped_and_unanswered_calls_kept() -> None:
    """A result without its call cannot be sent; a call without its result (a process
    killed during the tool) stays, for the provider boundary to answer (test_loop.py::
    test_a_call_left_without_a_result_is_sent_answered)."""
    session = SessionFile.create("/work", None)
    session.append_message(user("go"))
    session.append_message(result("orphan"))
    session.append_message(assistant("", ToolCall(id="a", name="read")))
    session.append_message(result("a"))
    session.append_message(result("a"))
    session.append_message(
        assistant("partly", ToolCall(id="b", name="read"), ToolCall(id="c", name="read"))
    )
    session.append_message(result("b"))
    session.append_message(assistant("", ToolCall(id="d", name="read")))

    messages = session.build_context().messages
    assert [(m.role, getattr(m, "tool_call_id", None)) for m in messages] == [
        ("user", None),
        ("assistant", None),
        ("toolResult", "a"),
        ("assistant", None),
        ("toolResult", "b"),
        ("assistant", None),
    ]
    assert [c.id for c in messages[3].tool_calls] == ["b", "c"]
    assert [c.id for c in messages[5].tool_calls] == ["d"]


def test_session_view_hands_out_the_stored_entries_read_only() -> None:
    session = SessionFile.create("/work", None)
    entry = session.append_message(user("hi"))
    view = SessionView(session)
    shown = view.get_entry(entry["id"])
    with pytest.raises(TypeError, match="read-only"):
        shown["message"]["content"] = "changed"
    with pytest.raises(TypeError, match="read-only"):
        view.entries()[0]["id"] = "zzz"
    with pytest.raises(TypeError, match="read-only"):
        view.branch_entries()[0]["message"].update(role="assistant")
    assert session.entries[0]["message"]["content"] == "hi"
    # Not a copy per call: looking at a long session costs nothing.
    assert view.branch_entries()[0] is view.entries()[0] is shown
    assert isinstance(shown, dict) and json.loads(json.dumps(shown)) == shown
    mine = copy.deepcopy(shown)
    mine["message"]["content"] = "mine"
    assert type(mine) is dict and shown["message"]["content"] == "hi"
    assert view.leaf_id == entry["id"] and view.session_id == session.session_id
    assert not hasattr(view, "append_message")
    with pytest.raises(AttributeError):
        view.extra = 1  # type: ignore[attr-defined]


def test_appended_data_is_kept_as_it_was_when_appended() -> None:
    session = SessionFile.create("/work", None)
    data = {"todos": [{"content": "a", "status": "pending"}]}
    entry = session.append_custom("plan", data)
    data["todos"].append({"content": "b", "status": "pending"})
    data["todos"][0]["status"] = "completed"
    stored = SessionView(session).get_entry(entry["id"])
    assert stored["data"] == {"todos": [{"content": "a", "status": "pending"}]}


def _write_session(path: Path, *messages: object) -> list[dict]:
    """A session file written the way another process would have left it."""
    records: list[dict] = [
        {"type": "session", "version": 3, "id": "s-1", "timestamp": "t", "cwd": "/work"}
    ]
    parent = None
    for n, message in enumerate(messages, 1):
        entry_id = f"e{n:07d}"
        records.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": "2024-01-01T00:00:00.000Z",
                "message": to_wire(message),
            }
        )
        parent = entry_id
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return records


@pytest.mark.parametrize("mode", [0o600, 0o640])
def test_torn_bytes_moved_aside_keep_the_session_files_mode(tmp_path: Path, mode: int) -> None:
    old_umask = os.umask(0o022)
    try:
        path = tmp_path / "s.jsonl"
        _write_session(path, user("secret question"), assistant("secret answer"))
        path.chmod(mode)
        with open(path, "ab") as f:
            f.write(b'{"type":"message","id":"x","message":{"content":"secret ta')
        loaded = SessionFile.open(path)
        loaded.append_message(user("after"))
        (aside,) = tmp_path.glob("s.jsonl.torn-*")
        assert stat.S_IMODE(aside.stat().st_mode) == mode
        assert stat.S_IMODE(path.stat().st_mode) == mode
    finally:
        os.umask(old_umask)


def test_one_writer_per_session_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    first = SessionFile.create("/work", path)
    first.append_message(user("hi"))  # on disk now, and this session is its writer
    with pytest.raises(OmpError) as info:
        SessionFile.open(path)
    message = str(info.value)
    assert "\n" not in message
    if Path("/proc/locks").exists():  # where the holder can be told
        assert f"session {path} is already open in this process" in message
    else:
        assert f"session {path} is in use by another omp process" in message
    assert f"--fork {path}" in message

    first.close()
    second = SessionFile.open(path)
    second.append_message(assistant("hello"))
    with pytest.raises(OmpError, match=r"is (in use|already open)"):
        first.append_message(user("from the first"))
    second.close()
    # The file grew since the first loaded it: appending now would fork its tree.
    with pytest.raises(OmpError, match="another process wrote to it since it was loaded"):
        first.append_message(user("from the first"))
    texts = [r["message"]["content"] for r in lines(path)[1:]]
    assert texts == ["hi", [{"type": "text", "text": "hello"}]]
    third = SessionFile.open(path)
    third.append_message(user("third"))
    assert len(lines(path)) == 4


def test_a_snapshot_takes_no_lock_and_forks_into_a_new_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    records = _write_session(path, user("question"), assistant("answer"))
    writer = SessionFile.open(path)
    before = path.read_bytes()

    snapshot = SessionFile.open(path, lock=False)
    fork = snapshot.fork("/elsewhere", tmp_path / "forks" / "f.jsonl", session_id="f-1")
    fork.ensure_on_disk()
    fork.append_message(user("in the fork"))

    forked = lines(tmp_path / "forks" / "f.jsonl")
    assert forked[0]["id"] == "f-1" and forked[0]["cwd"] == "/elsewhere"
    assert forked[0]["parentSession"] == str(path)
    assert forked[1:3] == records[1:]
    assert forked[3]["parentId"] == records[-1]["id"]
    assert [m.role for m in fork.build_context().messages] == ["user", "assistant", "user"]
    assert path.read_bytes() == before
    writer.append_message(user("the writer goes on"))
    assert len(lines(path)) == 4


def test_label_requires_known_target_and_none_clears() -> None:
    session = SessionFile.create("/work", None)
    entry = session.append_message(user("hi"))
    cleared = session.append_label(entry["id"], None)
    assert "label" not in cleared and cleared["targetId"] == entry["id"]
    with pytest.raises(OmpError):
        session.append_label("00000000", "x")


def test_encode_cwd() -> None:
    home, tmp = "/home/ann", "/tmp"
    assert encode_cwd("/home/ann/code/app", home, tmp) == "-code-app"
    assert encode_cwd("/home/ann", home, tmp) == "-"
    assert encode_cwd("/tmp/scratch/x", home, tmp) == "-tmp-scratch-x"
    assert encode_cwd("/tmp", home, tmp) == "-tmp"
    assert encode_cwd("/srv/data/app", home, tmp) == "--srv-data-app--"
    assert encode_cwd("/home/annie/x", home, tmp) == "--home-annie-x--"
    assert encode_cwd("/home/ann/code/", home, tmp) == "-code"


def test_sessions_dir_and_new_session_path(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    assert sessions_dir(agent, "/srv/app", home="/home/a", tmp="/tmp") == (
        agent / "sessions" / "--srv-app--"
    )
    assert sessions_dir(agent, "/srv/app", str(tmp_path / "x")) == tmp_path / "x"
    path = new_session_path(tmp_path, "abc", "2024-05-01T10:20:30.456Z")
    assert path.name == "2024-05-01T10-20-30-456Z_abc.jsonl"


def _make_session(directory: Path, session_id: str, first: str) -> Path:
    header_time = "2024-05-01T10:20:30.456Z"
    path = new_session_path(directory, session_id, header_time)
    session = SessionFile.create("/work", path, session_id=session_id)
    session.append_message(user(first))
    session.ensure_on_disk()
    return path


def test_find_session(tmp_path: Path) -> None:
    a = _make_session(tmp_path, "abc12345-0000", "first")
    b = _make_session(tmp_path, "abd99999-0000", "second")
    assert find_session(tmp_path, "ABC") == a
    assert find_session(tmp_path, "abd99999-0000") == b
    assert find_session(tmp_path, a.name[:30]) == a
    with pytest.raises(OmpError, match="ambiguous: 2 sessions match"):
        find_session(tmp_path, "ab")
    with pytest.raises(OmpError, match="no session matching 'zz'"):
        find_session(tmp_path, "zz")
    with pytest.raises(OmpError):
        find_session(tmp_path / "missing", "ab")


def test_most_recent_and_list_sessions(tmp_path: Path) -> None:
    assert most_recent(tmp_path) is None
    old = _make_session(tmp_path, "old-id", "the  old\n question")
    new = _make_session(tmp_path, "new-id", "x" * 300)
    os.utime(old, (1_000_000, 1_000_000))
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "broken.jsonl").write_text("nope\n")
    os.utime(tmp_path / "broken.jsonl", (1, 1))
    assert most_recent(tmp_path) == new
    infos = list_sessions(tmp_path)
    assert [i.id for i in infos] == ["new-id", "old-id"]
    assert infos[1].first_message == "the old question"
    assert infos[0].first_message is not None and len(infos[0].first_message) == 120
    assert infos[0].cwd == "/work"


def test_unserialisable_data_raises_and_appends_nothing(tmp_path: Path) -> None:
    session = SessionFile.create("/work", tmp_path / "s.jsonl")
    session.append_message(assistant("hello"))
    size = (tmp_path / "s.jsonl").stat().st_size
    with pytest.raises(OmpError, match="cannot save a custom entry"):
        session.append_custom("x", {"bad": {1, 2}})
    assert len(session.entries) == 1
    assert (tmp_path / "s.jsonl").stat().st_size == size


def test_title_slot_and_compaction_from_omp_files(tmp_path: Path) -> None:
    path = tmp_path / "omp.jsonl"
    title = json.dumps({"type": "title", "v": 1, "title": "Fix bug", "pad": "   "})
    header = {"type": "session", "version": 3, "id": "u-1", "timestamp": "t", "cwd": "/w"}

    def msg(entry_id: str, parent: str | None, message: object) -> dict:
        stamp = "2024-01-01T00:00:00.000Z"
        return {
            "type": "message",
            "id": entry_id,
            "parentId": parent,
            "timestamp": stamp,
            "message": to_wire(message),
        }

    records = [
        header,
        msg("e1", None, user("old")),
        msg("e2", "e1", assistant("old answer")),
        msg("e3", "e2", user("kept")),
        {
            "type": "compaction",
            "id": "e4",
            "parentId": "e3",
            "timestamp": "x",
            "summary": "S",
            "firstKeptEntryId": "e3",
            "tokensBefore": 10,
        },
        msg("e5", "e4", assistant("new")),
    ]
    path.write_text(title + "\n" + "".join(json.dumps(r) + "\n" for r in records))
    session = SessionFile.open(path)
    assert session.header["title"] == "Fix bug" and session.session_id == "u-1"
    messages = session.build_context().messages
    assert [m.role for m in messages] == ["compactionSummary", "user", "assistant"]
    assert messages[0].summary == "S" and messages[1].content == "kept"


def test_text_json_cannot_encode_as_utf8_survives_a_reload(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    session = SessionFile.create("/work", path)
    session.append_message(user("half a pair: \ud800 then more"))
    session.close()
    loaded = SessionFile.open(path)
    assert loaded.load_warnings == []
    assert loaded.build_context().messages[0].content == "half a pair: \ud800 then more"


def test_a_fork_leaves_a_torn_tail_behind(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _write_session(path, user("question"))
    with open(path, "ab") as f:
        f.write(b'{"type":"mess')
    before = path.read_bytes()
    snapshot = SessionFile.open(path, lock=False)
    assert any("torn last line" in w for w in snapshot.load_warnings)
    fork = snapshot.fork("/work", tmp_path / "f.jsonl")
    assert fork.load_warnings == []
    fork.append_message(assistant("answer"))
    assert [r["type"] for r in lines(tmp_path / "f.jsonl")] == ["session", "message", "message"]
    assert path.read_bytes() == before and not list(tmp_path.glob("*.torn-*"))
