"""End to end: one writer per session file (a second process is refused, or forks with
--fork), and the user's prompt is on disk before the first request is sent."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

# Touches $OMP_TEST_MARK when the assistant's reply starts streaming: the request has
# been sent and the model is answering.
MARK_REQUEST = """
import os
from pathlib import Path

import omp


@omp.hookimpl
def omp_message_start(event):
    if event.message.role == "assistant":
        Path(os.environ["OMP_TEST_MARK"]).touch()
"""

SLOW = [{"delay": 60, "text": "too late"}]
KNOWS_PIDS = Path("/proc/locks").exists()  # where the holder of a lock can be told


def _end(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.communicate(timeout=20)


def _busy(omp_cli, *args: str | os.PathLike[str]) -> tuple[subprocess.Popen, Path]:
    """An omp whose first request is in flight (a slow scripted reply)."""
    mark = omp_cli.root / "request-sent"
    ext = omp_cli.extension(MARK_REQUEST, "mark_request.py")
    proc = omp_cli.popen(
        "-e", ext, "--script", omp_cli.script(SLOW), *args, env={"OMP_TEST_MARK": str(mark)}
    )
    omp_cli.wait_for(mark, proc, "the first request")
    return proc, mark


def test_ctrl_c_during_the_first_reply_keeps_the_prompt(omp_cli):
    # 1 MB: large, yet inside the scripted model's window (a larger prompt is refused
    # before anything is written or sent, see test_cli_compaction.py).
    prompt = "Please review this log:\n" + "x" * 1_000_000
    mark = omp_cli.root / "request-sent"
    ext = omp_cli.extension(MARK_REQUEST, "mark_request.py")
    piped = omp_cli.root / "prompt.txt"
    piped.write_text(prompt, encoding="utf-8")
    with open(piped, "rb") as stdin:
        proc = subprocess.Popen(
            [*omp_cli.command, "-p", "-e", str(ext), "--script", str(omp_cli.script(SLOW))],
            cwd=omp_cli.cwd,
            env={**omp_cli.env, "OMP_TEST_MARK": str(mark)},
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
    try:
        omp_cli.wait_for(mark, proc, "the first request")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        _end(proc)

    assert proc.returncode == 130, err
    assert out == ""
    assert "Traceback" not in err
    (session,) = omp_cli.session_files()
    users = omp_cli.messages_of(omp_cli.read_session(session), "user")
    assert [omp_cli.text_of(m) for m in users] == [prompt]

    again = omp_cli.script([{"choose": [{"when": "x" * 1000, "text": "I still have your log"}]}])
    done = omp_cli("--continue", "-p", "go on", "--script", again)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "I still have your log\n"


def test_a_second_process_on_a_busy_session_is_refused_before_any_request(omp_cli):
    path = omp_cli.root / "shared.jsonl"
    first, _ = _busy(omp_cli, "--session", path, "-p", "first question")
    try:
        before = path.read_bytes()
        mark = omp_cli.root / "second-request"
        ext = omp_cli.extension(MARK_REQUEST, "mark_second.py")
        script = omp_cli.script([{"text": "never sent"}])

        second = omp_cli(
            "--session",
            path,
            "-e",
            ext,
            "-p",
            "second",
            "--script",
            script,
            env={"OMP_TEST_MARK": str(mark)},
        )

        line = omp_cli.assert_one_line_error(second)
        assert second.returncode == 1
        assert f"session {path} is in use" in line
        assert f"pid {first.pid}" in line or not KNOWS_PIDS
        assert f"--fork {path}" in line
        assert not mark.exists()  # no request was sent
        assert path.read_bytes() == before
        assert first.poll() is None
    finally:
        _end(first)


def test_continue_and_resume_are_refused_while_the_session_is_busy(omp_cli):
    first, _ = _busy(omp_cli, "-p", "first question")
    try:
        (path,) = omp_cli.session_files()
        before = path.read_bytes()
        session_id = omp_cli.read_session(path)[0]["id"]
        script = omp_cli.script([{"text": "never sent"}])
        for args in (["--continue"], ["--resume", session_id[:8]]):
            line = omp_cli.assert_one_line_error(omp_cli(*args, "-p", "x", "--script", script))
            assert str(path) in line
            assert f"pid {first.pid}" in line or not KNOWS_PIDS
        assert path.read_bytes() == before
        assert omp_cli.session_files() == [path]
    finally:
        _end(first)


def test_fork_continues_a_busy_session_in_a_new_file(omp_cli):
    first, _ = _busy(omp_cli, "-p", "first question")
    try:
        (path,) = omp_cli.session_files()
        before = path.read_bytes()
        original = omp_cli.read_session(path)
        script = omp_cli.script([{"text": "answered in the fork"}, {"text": "forked again"}])

        proc = omp_cli("--fork", path, "-p", "second question", "--script", script)

        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == "answered in the fork\n"
        assert path.read_bytes() == before  # the busy session is untouched
        (fork,) = [f for f in omp_cli.session_files() if f != path]
        entries = omp_cli.read_session(fork)
        header = entries[0]
        assert header["parentSession"] == str(path)
        assert header["id"] != original[0]["id"] and header["id"] in fork.name
        assert header["cwd"] == str(omp_cli.cwd.resolve())
        assert entries[1 : len(original)] == original[1:]
        texts = [omp_cli.text_of(m) for m in omp_cli.messages_of(entries)]
        assert texts == ["first question", "second question", "answered in the fork"]

        # By id prefix too; the fork of a fork points at its own parent.
        again = omp_cli("--fork", header["id"][:8], "-p", "third", "--script", script)
        assert again.returncode == 0, again.stderr
        (newest,) = [f for f in omp_cli.session_files() if f not in (path, fork)]
        assert omp_cli.read_session(newest)[0]["parentSession"] == str(fork)
    finally:
        _end(first)


def test_the_lock_dies_with_its_process(omp_cli):
    path = omp_cli.root / "shared.jsonl"
    first, _ = _busy(omp_cli, "--session", path, "-p", "first question")
    first.send_signal(signal.SIGKILL)
    _end(first)

    script = omp_cli.script([{"text": "picked up"}])  # no reply was saved before the kill
    proc = omp_cli("--session", path, "-p", "second", "--script", script)

    assert proc.returncode == 0, proc.stderr
    texts = [omp_cli.text_of(m) for m in omp_cli.messages_of(omp_cli.read_session(path))]
    assert texts == ["first question", "second", "picked up"]


def test_fork_is_one_of_the_session_choices(omp_cli):
    script = omp_cli.script([{"text": "hello"}])
    assert omp_cli("-p", "hi", "--script", script).returncode == 0
    (path,) = omp_cli.session_files()

    line = omp_cli.assert_one_line_error(omp_cli("--fork", path, "--continue", "-p", "x"))
    assert "--fork" in line and "--continue" in line
    line = omp_cli.assert_one_line_error(omp_cli("--fork", "zzzz-no-such", "-p", "x"))
    assert "zzzz-no-such" in line
    assert omp_cli.session_files() == [path]
