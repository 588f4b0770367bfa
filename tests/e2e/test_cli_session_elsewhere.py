"""``--resume ID`` / ``--session ID`` / ``--fork ID`` for a session saved in another
project: found across every project's sessions when this directory has none matching,
as pi does. On a terminal omp asks whether to fork it here ("Session found in different
project"); elsewhere it says where the session is and how to continue it, in one line."""

from __future__ import annotations

import os
import pty
import subprocess

COUNTING = [{"text": "reply #1"}, {"text": "reply #2"}, {"text": "reply #3"}]


def _session_elsewhere(omp_cli):
    other = omp_cli.root / "other-project"
    other.mkdir()
    script = omp_cli.script(COUNTING)
    assert omp_cli("-p", "alpha", "--script", script, cwd=other).returncode == 0
    [path] = omp_cli.all_session_files()
    return other, path, omp_cli.read_session(path)[0]["id"], script


def test_resume_of_another_projects_session_off_a_terminal_says_where_it_is(omp_cli):
    other, path, session_id, script = _session_elsewhere(omp_cli)
    for flag in ("--resume", "--session"):
        line = omp_cli.assert_one_line_error(
            omp_cli(flag, session_id[:8], "-p", "again", "--script", script)
        )
        assert str(other) in line and f"--fork {session_id[:8]}" in line, line
    assert omp_cli.all_session_files() == [path]


def test_fork_finds_another_projects_session_and_continues_a_copy_here(omp_cli):
    _other, path, session_id, script = _session_elsewhere(omp_cli)
    before = path.read_text()
    proc = omp_cli("--fork", session_id[:8], "-p", "again", "--script", script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "reply #2\n"
    [copy] = omp_cli.session_files()
    header = omp_cli.read_session(copy)[0]
    assert header["cwd"] == str(omp_cli.cwd.resolve()) and header["id"] != session_id
    assert path.read_text() == before


def test_a_missing_id_still_names_this_directory(omp_cli):
    _session_elsewhere(omp_cli)
    line = omp_cli.assert_one_line_error(omp_cli("--resume", "zzzz-no-such", "-p", "x"))
    assert "zzzz-no-such" in line


def _on_a_terminal(omp_cli, args, answer: bytes) -> tuple[int, str]:
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [*omp_cli.command, *args],
        cwd=omp_cli.cwd,
        env=omp_cli.env,
        stdin=slave,
        stdout=slave,
        stderr=slave,
    )
    os.close(slave)
    seen, _ = omp_cli.read_terminal(master, proc, answer, timeout=30)
    proc.wait(10)
    os.close(master)
    return proc.returncode, seen.decode(errors="replace")


def test_on_a_terminal_omp_asks_and_yes_forks_the_session_here(omp_cli):
    other, _path, session_id, script = _session_elsewhere(omp_cli)
    code, seen = _on_a_terminal(
        omp_cli, ["--resume", session_id[:8], "-p", "again", "--script", str(script)], b"y\n"
    )
    assert code == 0, seen
    assert f"Session found in different project: {other}" in seen
    assert "reply #2" in seen
    [copy] = omp_cli.session_files()
    assert omp_cli.read_session(copy)[0]["cwd"] == str(omp_cli.cwd.resolve())


def test_on_a_terminal_no_leaves_everything_as_it_was(omp_cli):
    _other, path, session_id, script = _session_elsewhere(omp_cli)
    code, seen = _on_a_terminal(
        omp_cli, ["--resume", session_id[:8], "-p", "again", "--script", str(script)], b"n\n"
    )
    assert code == 0, seen
    assert "reply #2" not in seen and "Aborted" in seen
    assert omp_cli.all_session_files() == [path]
