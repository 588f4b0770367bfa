"""Session files that are not what they seem (issue 24, item 16): a named pipe is refused
at once instead of hanging the reader, a file of a newer format version is read but never
written, and ``--session`` creates a file, never the directories of a mistyped path."""

from __future__ import annotations

import json
import os

STAMP = "2026-01-01T00:00:00.000Z"


def _future_session(path, cwd) -> bytes:
    entries = [
        {"type": "session", "version": 99, "id": "future-1", "timestamp": STAMP, "cwd": str(cwd)},
        {"type": "message", "id": "u1", "parentId": None, "timestamp": STAMP}
        | {"message": {"role": "user", "content": "question from the future", "timestamp": 1}},
        {"type": "hologram", "id": "h1", "parentId": "u1", "timestamp": STAMP, "shape": "cube"},
    ]
    data = "".join(json.dumps(e) + "\n" for e in entries).encode()
    path.write_bytes(data)
    return data


def test_a_named_pipe_is_refused_not_read(omp_cli):
    fifo = omp_cli.root / "pipe.jsonl"
    os.mkfifo(fifo)
    script = omp_cli.script([{"text": "I am the model"}])
    proc = omp_cli("--session", fifo, "-p", "hi", "--script", script, timeout=30)
    line = omp_cli.assert_one_line_error(proc)
    assert proc.returncode == 2
    assert str(fifo.name) in line and "not a regular file" in line


def test_a_named_pipe_is_refused_by_every_reader(omp_cli):
    fifo = omp_cli.root / "pipe.jsonl"
    os.mkfifo(fifo)
    proc = omp_cli("sessions", "export", fifo, "out.html", timeout=30)
    line = omp_cli.assert_one_line_error(proc)
    assert proc.returncode == 2 and "not a regular file" in line
    assert not (omp_cli.cwd / "out.html").exists()


def test_a_newer_version_is_not_appended_to(omp_cli):
    path = omp_cli.root / "future.jsonl"
    before = _future_session(path, omp_cli.cwd)
    script = omp_cli.script([{"text": "I am the model"}])
    proc = omp_cli("--session", path, "-p", "and now?", "--script", script)
    line = omp_cli.assert_one_line_error(proc)
    assert proc.returncode == 1
    assert "version 99" in line and str(path) in line
    assert path.read_bytes() == before


def test_a_newer_version_is_still_read(omp_cli):
    path = omp_cli.root / "future.jsonl"
    before = _future_session(path, omp_cli.cwd)
    proc = omp_cli("--export", path, "future.html")
    assert proc.returncode == 0, proc.stderr
    page = (omp_cli.cwd / "future.html").read_text(encoding="utf-8")
    assert "question from the future" in page
    assert path.read_bytes() == before


def test_session_in_a_missing_directory_is_refused(omp_cli):
    script = omp_cli.script([{"text": "I am the model"}])
    proc = omp_cli("--session", "typo/dir/s.jsonl", "-p", "hi", "--script", script)
    line = omp_cli.assert_one_line_error(proc)
    assert proc.returncode == 2
    assert "typo/dir" in line and "not its directories" in line
    assert not (omp_cli.cwd / "typo").exists()
