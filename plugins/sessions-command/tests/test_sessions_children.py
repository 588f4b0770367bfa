"""``omp sessions`` and ``/resume`` show a session's child sessions (its subagents')
indented under it, named by their file."""

from __future__ import annotations

import json
from pathlib import Path

import omp


def _write(path: Path, session_id: str, prompt: str, parent: Path | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    header = {
        "type": "session",
        "version": 3,
        "id": session_id,
        "timestamp": "2026-01-01T00:00:00Z",
    }
    if parent is not None:
        header |= {"parentSession": str(parent), "parentSessionId": "parent-id", "taskDepth": 1}
    message = {"type": "message", "id": "m", "message": {"role": "user", "content": prompt}}
    path.write_text(json.dumps(header) + "\n" + json.dumps(message) + "\n", encoding="utf-8")
    return path


def test_omp_sessions_lists_children_under_their_parent(omp_harness, capsys):
    directory = omp.sessions_dir(omp_harness.agent_dir, str(omp_harness.cwd))
    parent = _write(directory / "2026-01-01T00-00-00-000Z_parent-id.jsonl", "parent-id", "plan")
    _write(parent.with_suffix("") / "0-Scout.jsonl", "scout-id", "look around", parent)
    assert omp_harness.run_subcommand("sessions", builtins=["sessions_command"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("parent-i") and lines[0].endswith("plan")
    assert lines[1].startswith("  ↳ scout-id") and lines[1].endswith("0-Scout: look around")
    assert omp_harness.run_subcommand("sessions", "--json", builtins=["sessions_command"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["id"], r["depth"], r["parentSessionId"]) for r in rows] == [
        ("parent-id", 0, None),
        ("scout-id", 1, "parent-id"),
    ]
