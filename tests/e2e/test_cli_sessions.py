"""End to end: session files on disk, continuing and resuming them, damaged files."""

from __future__ import annotations

import itertools
import json
import os
import signal
import time

# The scripted provider answers request N with step N, where N counts the assistant
# messages already in the conversation: a run that sees an earlier conversation
# advances to later steps, a fresh one starts at step 0.
COUNTING = [
    {"text": "reply #1"},
    {"text": "reply #2"},
    {"text": "reply #3"},
]

WITH_TOOL = [
    {"text": "reading", "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
    {"choose": [{"when": "kiwi", "text": "the notes say kiwi"}, {"text": "no notes"}]},
]


def _header(entries):
    header = entries[0]
    assert header["type"] == "session"
    assert header["version"] == 3
    return header


def test_default_run_writes_one_session_file(omp_cli):
    (omp_cli.cwd / "notes.txt").write_text("kiwi\n", encoding="utf-8")
    script = omp_cli.script(WITH_TOOL)

    proc = omp_cli("-p", "read my notes", "--script", script)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "the notes say kiwi\n"
    files = omp_cli.all_session_files()
    assert len(files) == 1, files
    assert files[0].parent == omp_cli.sessions_dir()
    entries = omp_cli.read_session(files[0])
    header = _header(entries)
    assert header["cwd"] == str(omp_cli.cwd.resolve())
    assert header["id"] in files[0].name
    users = omp_cli.messages_of(entries, "user")
    assert [omp_cli.text_of(m) for m in users] == ["read my notes"]
    assistants = omp_cli.messages_of(entries, "assistant")
    assert [omp_cli.text_of(m) for m in assistants] == ["reading", "the notes say kiwi"]
    results = omp_cli.messages_of(entries, "toolResult")
    assert len(results) == 1
    assert results[0]["toolName"] == "read"
    assert "kiwi" in omp_cli.text_of(results[0])
    ids = [e["id"] for e in entries[1:]]
    assert len(ids) == len(set(ids))
    for previous, entry in itertools.pairwise(entries[1:]):
        assert entry["parentId"] == previous["id"]


def test_no_session_writes_nothing(omp_cli):
    script = omp_cli.script(COUNTING)

    proc = omp_cli("--no-session", "-p", "hi", "--script", script)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "reply #1\n"
    assert not (omp_cli.agent_dir / "sessions").exists()
    assert list(omp_cli.root.rglob("*.jsonl")) == [script]


def test_session_dir_flag_writes_there(omp_cli):
    script = omp_cli.script(COUNTING)
    target = omp_cli.root / "my-sessions"

    proc = omp_cli("--session-dir", target, "-p", "hi", "--script", script)

    assert proc.returncode == 0, proc.stderr
    files = sorted(target.glob("*.jsonl"))
    assert len(files) == 1
    assert omp_cli.all_session_files() == []
    entries = omp_cli.read_session(files[0])
    _header(entries)
    assert [omp_cli.text_of(m) for m in omp_cli.messages_of(entries)] == ["hi", "reply #1"]


def test_session_path_is_created_then_reused(omp_cli):
    script = omp_cli.script(COUNTING)
    path = omp_cli.root / "named" / "chat.jsonl"
    path.parent.mkdir()  # the file is created, never a directory (test_cli_session_files)

    first = omp_cli("--session", path, "-p", "first", "--script", script)
    assert first.returncode == 0, first.stderr
    assert first.stdout == "reply #1\n"
    assert path.is_file()
    header = _header(omp_cli.read_session(path))

    second = omp_cli("--session", path, "-p", "second", "--script", script)
    assert second.returncode == 0, second.stderr
    assert second.stdout == "reply #2\n"

    entries = omp_cli.read_session(path)
    assert entries[0] == header
    assert [omp_cli.text_of(m) for m in omp_cli.messages_of(entries)] == [
        "first",
        "reply #1",
        "second",
        "reply #2",
    ]
    assert omp_cli.all_session_files() == []


def test_continue_appends_to_the_most_recent_session(omp_cli):
    script = omp_cli.script(COUNTING)
    assert omp_cli("-p", "one", "--script", script).stdout == "reply #1\n"
    older = omp_cli.session_files()
    assert len(older) == 1
    time.sleep(0.02)
    assert omp_cli("-p", "fresh", "--script", script).stdout == "reply #1\n"
    files = omp_cli.session_files()
    assert len(files) == 2
    newest = next(f for f in files if f not in older)

    proc = omp_cli("-c", "-p", "again", "--script", script)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "reply #2\n"  # the model saw the earlier conversation
    assert omp_cli.session_files() == files  # no new file
    texts = [omp_cli.text_of(m) for m in omp_cli.messages_of(omp_cli.read_session(newest))]
    assert texts == ["fresh", "reply #1", "again", "reply #2"]

    proc = omp_cli("--continue", "-p", "and again", "--script", script)
    assert proc.stdout == "reply #3\n"


def test_continue_without_sessions_starts_a_new_one(omp_cli):
    script = omp_cli.script(COUNTING)

    proc = omp_cli("--continue", "-p", "hello", "--script", script)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "reply #1\n"
    assert len(omp_cli.session_files()) == 1


def test_resume_by_id_prefix(omp_cli):
    script = omp_cli.script(COUNTING)
    assert omp_cli("-p", "alpha", "--script", script).returncode == 0
    first = omp_cli.session_files()
    time.sleep(0.02)
    assert omp_cli("-p", "beta", "--script", script).returncode == 0
    target = first[0]
    session_id = omp_cli.read_session(target)[0]["id"]

    proc = omp_cli("--resume", session_id[:8], "-p", "alpha again", "--script", script)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "reply #2\n"
    texts = [omp_cli.text_of(m) for m in omp_cli.messages_of(omp_cli.read_session(target))]
    assert texts == ["alpha", "reply #1", "alpha again", "reply #2"]
    assert len(omp_cli.session_files()) == 2


def test_resume_ambiguous_or_missing_prefix_is_one_line(omp_cli):
    script = omp_cli.script(COUNTING)
    assert omp_cli("-p", "alpha", "--script", script).returncode == 0
    time.sleep(0.02)
    assert omp_cli("-p", "beta", "--script", script).returncode == 0
    names = [f.name for f in omp_cli.session_files()]
    common = os.path.commonprefix(names)  # noqa: RUF071 (file names, not paths)
    assert common  # both start with the date

    line = omp_cli.assert_one_line_error(omp_cli("--resume", common, "-p", "x"))
    assert "ambiguous" in line

    line = omp_cli.assert_one_line_error(omp_cli("--resume", "zzzz-no-such", "-p", "x"))
    assert "zzzz-no-such" in line
    assert len(omp_cli.session_files()) == 2


def test_torn_last_line_is_moved_aside_and_the_run_goes_on(omp_cli):
    script = omp_cli.script(COUNTING)
    path = omp_cli.root / "torn.jsonl"
    assert omp_cli("--session", path, "-p", "before", "--script", script).returncode == 0
    intact = omp_cli.read_session(path)
    torn = b'{"type":"message","id":"deadbeef","parentId":null,"message":{"role":"us'
    with open(path, "ab") as f:
        f.write(torn)

    proc = omp_cli("--session", path, "-p", "after", "--script", script)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "reply #2\n"
    assert "Traceback" not in proc.stderr
    entries = omp_cli.read_session(path)  # every line parses
    assert entries[: len(intact)] == intact
    texts = [omp_cli.text_of(m) for m in omp_cli.messages_of(entries)]
    assert texts == ["before", "reply #1", "after", "reply #2"]
    aside = sorted(path.parent.glob(f"{path.name}.torn-*"))
    assert len(aside) == 1, list(path.parent.iterdir())
    assert aside[0].read_bytes() == torn
    # The user is told (the tmp path itself may contain "torn", so match the sentence).
    warning = [line for line in omp_cli.stderr_lines(proc) if "torn last line" in line]
    assert len(warning) == 1, proc.stderr
    assert str(path) in warning[0]


def test_unreadable_middle_line_is_kept_and_reported(omp_cli):
    script = omp_cli.script(COUNTING)
    path = omp_cli.root / "damaged.jsonl"
    assert omp_cli("--session", path, "-p", "before", "--script", script).returncode == 0
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(3, "this line is not JSON {\n")
    path.write_text("".join(lines), encoding="utf-8")

    proc = omp_cli("--session", path, "-p", "after", "--script", script)

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "reply #2\n"  # the readable entries were all loaded
    after = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert after[: len(lines)] == lines  # append-only: the bad line is kept
    assert len(after) > len(lines)
    warning = [line for line in omp_cli.stderr_lines(proc) if "unreadable line" in line]
    assert len(warning) == 1, proc.stderr
    assert f"{path}:4" in warning[0]


SLOW_SECOND_STEP = [
    {"text": "reading", "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
    {"delay": 30, "text": "too late"},
]


def _stop_after_first_tool_result(omp_cli, proc, signum):
    """Wait until the session file holds the first tool result, then send ``signum``;
    returns (session file, stdout, stderr) once the process has ended."""
    try:
        deadline = time.monotonic() + 20
        session = None
        while time.monotonic() < deadline:
            files = omp_cli.session_files()
            if files and b'"role":"toolResult"' in files[0].read_bytes():
                session = files[0]
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        assert session is not None, "the first tool result never reached the session file"
        os.kill(proc.pid, signum)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
    return session, out, err


def test_sigkill_mid_run_leaves_a_session_that_continues(omp_cli):
    (omp_cli.cwd / "notes.txt").write_text("kiwi\n", encoding="utf-8")
    slow = omp_cli.script(SLOW_SECOND_STEP)
    proc = omp_cli.popen("-p", "read my notes", "--script", slow)

    session, _, _ = _stop_after_first_tool_result(omp_cli, proc, signal.SIGKILL)

    assert proc.returncode == -signal.SIGKILL
    before = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]

    more = omp_cli.script(
        [
            {"text": "unused"},
            {"choose": [{"when": "go on", "text": "picked up where we left off"}]},
        ]
    )
    done = omp_cli("--continue", "-p", "please go on", "--script", more)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "picked up where we left off\n"
    assert omp_cli.session_files() == [session]
    entries = omp_cli.read_session(session)
    assert entries[: len(before)] == before
    roles = [m["role"] for m in omp_cli.messages_of(entries)]
    assert roles == ["user", "assistant", "toolResult", "user", "assistant"]


def test_ctrl_c_mid_run_exits_130_and_keeps_the_session(omp_cli):
    (omp_cli.cwd / "notes.txt").write_text("kiwi\n", encoding="utf-8")
    slow = omp_cli.script(SLOW_SECOND_STEP)
    proc = omp_cli.popen("-p", "read my notes", "--script", slow)

    session, out, err = _stop_after_first_tool_result(omp_cli, proc, signal.SIGINT)

    assert proc.returncode == 130, err
    assert out == ""
    assert "Traceback" not in err
    assert "interrupted" in err
    entries = omp_cli.read_session(session)
    roles = [m["role"] for m in omp_cli.messages_of(entries)]
    assert roles[:3] == ["user", "assistant", "toolResult"]

    more = omp_cli.script([{"text": "unused"}, {"text": "back again"}, {"text": "back again"}])
    done = omp_cli("--continue", "-p", "go on", "--script", more)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "back again\n"


def test_continue_skips_an_empty_session_file(omp_cli):
    """An interrupted create can leave an empty .jsonl (ensure_on_disk truncates on a
    failed write); --continue should still find the last real session."""
    script = omp_cli.script(COUNTING)
    assert omp_cli("-p", "one", "--script", script).stdout == "reply #1\n"
    (real,) = omp_cli.session_files()
    time.sleep(0.02)
    empty = real.with_name("2999-01-01T00-00-00-000Z_00000000-0000-0000-0000-000000000000.jsonl")
    empty.touch()

    proc = omp_cli("--continue", "-p", "two", "--script", script)

    assert "Traceback" not in proc.stderr
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "reply #2\n"
    texts = [omp_cli.text_of(m) for m in omp_cli.messages_of(omp_cli.read_session(real))]
    assert texts == ["one", "reply #1", "two", "reply #2"]
