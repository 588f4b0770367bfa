"""Listing session files: title (name or first prompt), cwd, created, modified and the
message count, from thousands of files in well under a second."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from omp.agent.messages import AssistantMessage, TextContent, UserMessage
from omp.session.file import SessionFile
from omp.session.store import list_sessions


def _line(entry: dict) -> str:
    return json.dumps(entry, separators=(",", ":")) + "\n"


def _write_session(path: Path, n: int, turns: int = 4, name: str | None = None) -> None:
    """A realistic small session: header, model change, ``turns`` user/assistant pairs."""
    lines = [
        _line(
            {
                "type": "session",
                "version": 3,
                "id": f"0192ab00-0000-7000-8000-{n:012d}",
                "timestamp": "2026-01-02T03:04:05.000Z",
                "cwd": "/work/project",
            }
        )
    ]
    parent = None
    for i in range(turns * 2):
        role = "user" if i % 2 == 0 else "assistant"
        text = f"question {n} about topic-{n % 97} part {i}" if role == "user" else "x" * 300
        entry_id = f"{n:04x}{i:04x}"
        lines.append(
            _line(
                {
                    "type": "message",
                    "id": entry_id,
                    "parentId": parent,
                    "timestamp": "2026-01-02T03:04:06.000Z",
                    "message": {"role": role, "content": [{"type": "text", "text": text}]},
                }
            )
        )
        parent = entry_id
    if name:
        lines.append(
            _line(
                {
                    "type": "session_info",
                    "id": "ffffffff",
                    "parentId": parent,
                    "timestamp": "2026-01-02T03:05:00.000Z",
                    "name": name,
                }
            )
        )
    path.write_text("".join(lines), encoding="utf-8")


def test_five_thousand_sessions_list_in_under_a_second(tmp_path: Path) -> None:
    for n in range(5000):
        _write_session(tmp_path / f"2026-01-02T03-04-05-000Z_{n:05d}.jsonl", n)
    list_sessions(tmp_path)  # the first listing may meet a cold page cache
    started = time.perf_counter()
    infos = list_sessions(tmp_path)
    elapsed = time.perf_counter() - started
    assert len(infos) == 5000
    assert elapsed < 1.0, f"listing 5,000 sessions took {elapsed:.2f} s"
    one = next(i for i in infos if i.id.endswith("000000000042"))
    assert one.message_count == 8
    assert one.title == "question 42 about topic-42 part 0"
    assert one.cwd == "/work/project"
    assert one.created == "2026-01-02T03:04:05.000Z"


def test_a_name_given_late_in_a_long_file_is_the_title(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    _write_session(path, 7, turns=400, name="Refactor the auth module")  # ~250 KiB
    assert path.stat().st_size > 200_000
    [info] = list_sessions(tmp_path)
    assert info.title == "Refactor the auth module"
    assert info.first_message == "question 7 about topic-7 part 0"
    assert info.message_count == 800


def test_a_session_written_here_lists_its_count_and_newest_first(tmp_path: Path) -> None:
    old = SessionFile.create("/a", tmp_path / "old.jsonl")
    old.append_message(UserMessage(content="the old question"))
    new = SessionFile.create("/b", tmp_path / "new.jsonl")
    new.append_message(UserMessage(content="the new question"))
    new.append_message(AssistantMessage(content=[TextContent(text="answer")]))
    os.utime(tmp_path / "old.jsonl", (1_000_000, 1_000_000))
    (tmp_path / "empty.jsonl").write_bytes(b"")  # no header: not listed
    infos = list_sessions(tmp_path)
    assert [i.title for i in infos] == ["the new question", "the old question"]
    assert [i.message_count for i in infos] == [2, 1]
    assert [i.cwd for i in infos] == ["/b", "/a"]
