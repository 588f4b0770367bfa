"""Child sessions (a subagent's file, ``<parent file without .jsonl>/<name>.jsonl``
with ``parentSession`` in its header) in listings, found by id, and opened with
``--session``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import omp
from omp.session.listing import list_sessions
from omp.session.store import find_session


def _write(path: Path, session_id: str, prompt: str, parent: Path | None = None, depth=0):
    path.parent.mkdir(parents=True, exist_ok=True)
    header = {
        "type": "session",
        "version": 3,
        "id": session_id,
        "timestamp": "2026-01-01T00:00:00Z",
    }
    header["cwd"] = "/w"
    if parent is not None:
        header |= {"parentSession": str(parent), "parentSessionId": "p-id", "taskDepth": depth}
    message = {
        "type": "message",
        "id": f"m-{session_id}",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:01Z",
        "message": {"role": "user", "content": prompt, "timestamp": 0},
    }
    path.write_text(json.dumps(header) + "\n" + json.dumps(message) + "\n", encoding="utf-8")
    return path


def _tree(directory: Path) -> dict[str, Path]:
    parent = _write(directory / "2026-01-01T00-00-00-000Z_p-id.jsonl", "p-id", "the parent")
    folder = parent.with_suffix("")
    (folder / "0-Scout.md").parent.mkdir(parents=True, exist_ok=True)
    (folder / "0-Scout.md").write_text("an artifact, not a session")
    scout = _write(folder / "0-Scout.jsonl", "scout-id", "look around", parent, 1)
    deeper = _write(folder / "0-Scout" / "0-Deep.jsonl", "deep-id", "dig", scout, 2)
    review = _write(folder / "1-Review.jsonl", "review-id", "review it", parent, 1)
    other = _write(directory / "2026-01-02T00-00-00-000Z_o-id.jsonl", "o-id", "another one")
    os.utime(other, (2_000_000_000, 2_000_000_000))
    return {"parent": parent, "scout": scout, "deep": deeper, "review": review, "other": other}


def test_children_are_listed_under_their_parent_only_when_asked(tmp_path):
    files = _tree(tmp_path)
    assert [i.id for i in list_sessions(tmp_path)] == ["o-id", "p-id"]
    listed = list_sessions(tmp_path, children=True)
    assert [(i.id, i.depth) for i in listed] == [
        ("o-id", 0),
        ("p-id", 0),
        ("scout-id", 1),
        ("deep-id", 2),
        ("review-id", 1),
    ]
    scout = listed[2].to_json()
    assert scout["parentSession"] == str(files["parent"]) and scout["parentSessionId"] == "p-id"
    assert scout["depth"] == 1 and scout["firstMessage"] == "look around"


def test_a_search_keeps_the_parent_of_a_matching_child(tmp_path):
    _tree(tmp_path)
    assert [i.id for i in list_sessions(tmp_path, "dig", children=True)] == [
        "p-id",
        "scout-id",
        "deep-id",
    ]
    assert [i.id for i in list_sessions(tmp_path, "another", children=True)] == ["o-id"]


def test_a_child_is_found_by_id_or_name_after_the_top_level_sessions(tmp_path):
    files = _tree(tmp_path)
    assert find_session(tmp_path, "deep-id") == files["deep"]
    assert find_session(tmp_path, "1-Review") == files["review"]
    assert find_session(tmp_path, "p-i") == files["parent"]
    try:
        find_session(tmp_path, "nothing-like-it")
    except omp.UsageError as exc:
        assert str(exc).startswith("no session matching 'nothing-like-it'")
    else:
        raise AssertionError("no error")


def test_session_opens_a_child_by_path_or_id(omp_harness):
    directory = omp.sessions_dir(omp_harness.agent_dir, str(omp_harness.cwd))
    files = _tree(directory)
    by_path = omp_harness.session(session_path=str(files["scout"]), builtins=[], script=[{}])
    assert by_path.session_file.path == files["scout"]
    assert by_path.session_file.header["parentSession"] == str(files["parent"])
    by_path.session_file.close()
    by_id = omp_harness.session(session_path="review-id", builtins=[], script=[{}])
    assert by_id.session_file.path == files["review"]
    assert [m.content for m in by_id.session_file.build_context().messages] == ["review it"]
    by_id.session_file.close()
