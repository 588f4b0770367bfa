"""A session file of a format version newer than this omp writes is read as far as it can
be and never written to (issue 24, item 16)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from omp.agent.messages import UserMessage
from omp.base.errors import OmpError
from omp.session.file import SessionFile

STAMP = "2026-01-01T00:00:00.000Z"


def _write(path: Path, version: int) -> bytes:
    entries = [
        {"type": "session", "version": version, "id": "s1", "timestamp": STAMP, "cwd": "/w"},
        {"type": "message", "id": "u1", "parentId": None, "timestamp": STAMP}
        | {"message": {"role": "user", "content": "hello", "timestamp": 1}},
    ]
    data = "".join(json.dumps(e) + "\n" for e in entries).encode()
    path.write_bytes(data)
    return data


def test_a_newer_version_is_read_but_not_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "future.jsonl"
    before = _write(path, 99)
    session = SessionFile.open(path, lock=False)
    assert [m.content for m in session.build_context().messages] == ["hello"]
    with pytest.raises(OmpError, match="version 99"):
        session.append_message(UserMessage(content="more"))
    with pytest.raises(OmpError, match="version 99, newer than this omp writes"):
        SessionFile.open(path)
    assert path.read_bytes() == before


def test_the_current_version_is_still_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "current.jsonl"
    _write(path, 3)
    session = SessionFile.open(path)
    session.append_message(UserMessage(content="more"))
    session.close()
    assert path.read_text().count("\n") == 3
