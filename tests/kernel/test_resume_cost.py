"""Resuming a session costs one parse per message and no copy of any entry (issue 10):
the session's load, the context sent with the next prompt, and the plugins that rebuild
their state from the branch (sequential thinking, todo) all share the stored entries."""

from __future__ import annotations

import copy
from pathlib import Path

import omp.base.frozen
import omp.session.file

TURNS = 40


def read_call(n: int) -> dict:
    return {"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}, "id": f"c{n}"}]}


def thought(n: int) -> dict:
    arguments = {
        "thought": f"step {n}",
        "thoughtNumber": n,
        "totalThoughts": 3,
        "nextThoughtNeeded": n < 3,
    }
    return {"tool_calls": [{"name": "sequential_thinking", "arguments": arguments, "id": f"t{n}"}]}


def todo_write() -> dict:
    todos = [{"content": "read a.txt", "status": "in_progress"}]
    return {"tool_calls": [{"name": "todo_write", "arguments": {"todos": todos}, "id": "w"}]}


def count_calls(monkeypatch, module, name) -> list:
    calls: list = []
    original = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(args[:1])
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_resumed_session_parses_each_message_once_and_copies_no_entry(omp_harness, monkeypatch):
    (omp_harness.cwd / "a.txt").write_text("hello\n", encoding="utf-8")
    path = str(omp_harness.root / "long.jsonl")
    script = [thought(1), thought(2), thought(3), todo_write()]
    script += [read_call(n) for n in range(TURNS)] + [{"text": "first done"}]
    first = omp_harness.session(session_path=path, script=script)
    assert omp_harness.run(first, "work").final_text() == "first done"
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    stored = sum(1 for line in lines if '"type":"message"' in line)
    assert stored > 2 * TURNS

    parses = count_calls(monkeypatch, omp.session.file, "parse_message")
    copies = count_calls(monkeypatch, copy, "deepcopy")
    thaws = count_calls(monkeypatch, omp.base.frozen, "thaw")
    # the scripted model picks its reply by the number of assistant messages so far
    resumed = omp_harness.session(session_path=path, script=[*script, {"text": "second done"}])
    assert omp_harness.run(resumed, "again").final_text() == "second done"

    assert len(parses) <= stored  # each stored message once; new ones are not parsed
    frozen = (omp.base.frozen.FrozenDict, omp.base.frozen.FrozenList)
    assert [a for a in copies if a and isinstance(a[0], frozen)] == []
    assert thaws == []
