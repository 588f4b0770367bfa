"""The listing's per-directory index: a large session file is read once; listing it
again reads only what was appended since (a new message, a new name), and a file that
was rewritten is read again in full."""

from __future__ import annotations

import builtins
import json
import os
from pathlib import Path

import pytest
from omp.session import listing as session_listing
from omp.session.listing import list_sessions
from test_session_listing import _line, _write_session


@pytest.fixture
def bytes_read(monkeypatch):
    """How many bytes the listing reads from session files (the index aside)."""
    counted = {"n": 0}
    real_open = builtins.open

    class Counting:
        def __init__(self, handle):
            self._handle = handle

        def read(self, *args):
            data = self._handle.read(*args)
            counted["n"] += len(data)
            return data

        def __getattr__(self, name):
            return getattr(self._handle, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._handle.close()

    def counting_open(path, mode="r", *args, **kwargs):
        handle = real_open(path, mode, *args, **kwargs)
        return Counting(handle) if str(path).endswith(".jsonl") and "b" in mode else handle

    monkeypatch.setattr(session_listing, "open", counting_open, raising=False)
    return counted


def _big(directory: Path) -> Path:
    path = directory / "2026-01-02T03-04-05-000Z_big.jsonl"
    _write_session(path, 1, turns=3000)  # about 1 MB
    return path


def _append(path: Path, entry: dict) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(_line(entry))


def test_a_second_listing_reads_only_what_was_appended(tmp_path, bytes_read):
    path = _big(tmp_path)
    [first] = list_sessions(tmp_path)
    size = path.stat().st_size
    assert bytes_read["n"] >= size
    message = {"role": "user", "content": [{"type": "text", "text": "one more"}]}
    _append(path, {"type": "message", "id": "m1", "parentId": None, "message": message})
    _append(path, {"type": "session_info", "id": "n1", "parentId": "m1", "name": "Renamed"})
    bytes_read["n"] = 0
    [second] = list_sessions(tmp_path)
    assert second.message_count == first.message_count + 1
    assert second.title == "Renamed" and second.first_message == first.first_message
    assert bytes_read["n"] < 4096, bytes_read["n"]
    bytes_read["n"] = 0
    [third] = list_sessions(tmp_path)  # nothing changed: nothing read
    assert third.message_count == second.message_count and bytes_read["n"] == 0


def test_a_rewritten_file_is_read_again(tmp_path, bytes_read):
    path = _big(tmp_path)
    [first] = list_sessions(tmp_path)
    _write_session(path, 2, turns=10, name="Fresh")
    [again] = list_sessions(tmp_path)
    assert again.title == "Fresh" and again.message_count == 20
    assert again.id != first.id
    # same size, different bytes, another mtime: still read again
    data = path.read_bytes().replace(b"question 2", b"question 9")
    path.write_bytes(data)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    [third] = list_sessions(tmp_path)
    assert "question 9" in (third.first_message or "")


def test_an_unwritable_directory_still_lists(tmp_path):
    _big(tmp_path)
    os.chmod(tmp_path, 0o555)
    try:
        [info] = list_sessions(tmp_path)
        assert info.message_count == 6000
    finally:
        os.chmod(tmp_path, 0o755)


def test_a_damaged_index_is_ignored(tmp_path):
    _big(tmp_path)
    list_sessions(tmp_path)
    [index] = [p for p in tmp_path.iterdir() if not p.name.endswith(".jsonl")]
    index.write_text("{not json")
    [info] = list_sessions(tmp_path)
    assert info.message_count == 6000
    json.loads(index.read_text())  # rewritten whole


def test_a_damaged_record_costs_a_full_read_not_the_session(tmp_path):
    path = _big(tmp_path)
    list_sessions(tmp_path)
    index_path = tmp_path / ".listing-index.json"
    index = json.loads(index_path.read_text())
    index["files"][path.name]["count"] = "many"
    index_path.write_text(json.dumps(index))
    [info] = list_sessions(tmp_path)
    assert info.message_count == 6000
