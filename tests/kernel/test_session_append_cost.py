"""Session appends stay O(1) per entry (issue 10): appending entry N reads nothing,
rewrites nothing, and makes the same system calls as appending entry 1, whether the
session was created in this process or resumed from disk."""

from __future__ import annotations

import builtins
import os
from typing import Any

import pytest
from omp.agent.messages import (
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from omp.session.file import SessionFile


class Syscalls:
    """The file operations made while ``watching``: names, and bytes written."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.watching = False
        for name in ("open", "read", "write", "pread", "lseek", "ftruncate", "truncate"):
            self._wrap(monkeypatch, os, name)
        self._wrap(monkeypatch, builtins, "open", label="builtins.open")

    def _wrap(self, monkeypatch, module, name, label=None) -> None:
        original = getattr(module, name)

        def traced(*args, **kwargs):
            if self.watching:
                detail = len(args[1]) if name == "write" else None
                self.calls.append((label or f"os.{name}", detail))
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, traced)

    def during(self, action) -> list[tuple[str, Any]]:
        self.calls, self.watching = [], True
        try:
            action()
        finally:
            self.watching = False
        return self.calls


def turn(n: int) -> list[Any]:
    call = ToolCall(id=f"call_{n}", name="read", arguments={"path": f"f{n}.py"})
    return [
        AssistantMessage(content=[TextContent(text=f"reading {n}"), call], stop_reason="toolUse"),
        ToolResultMessage(
            tool_call_id=f"call_{n}",
            tool_name="read",
            content=[TextContent(text=f"{n:05d}\n")],
            timestamp=1,
        ),
    ]


def shape(calls: list[tuple[str, Any]]) -> list[str]:
    return [name for name, _ in calls]


def test_appending_entry_n_costs_what_entry_one_cost(tmp_path, monkeypatch):
    path = tmp_path / "s.jsonl"
    session = SessionFile.create(str(tmp_path), path)
    session.append_message(UserMessage(content="go", timestamp=1))
    traced = Syscalls(monkeypatch)
    early = traced.during(lambda: session.append_message(turn(0)[1]))
    for n in range(1, 1500):
        for message in turn(n):
            session.append_message(message)
    size = path.stat().st_size
    late = traced.during(lambda: session.append_message(turn(1500)[1]))
    session.close()

    assert shape(late) == shape(early)
    assert not any(name in ("os.read", "os.pread", "builtins.open") for name in shape(late))
    written = sum(n for name, n in late if name == "os.write")
    assert path.stat().st_size == size + written  # only the new line was written
    assert written < 300


def test_a_resumed_session_appends_without_reading_it_again(tmp_path, monkeypatch):
    path = tmp_path / "s.jsonl"
    session = SessionFile.create(str(tmp_path), path)
    session.append_message(UserMessage(content="go", timestamp=1))
    for n in range(1000):
        for message in turn(n):
            session.append_message(message)
    session.close()

    resumed = SessionFile.open(path)
    traced = Syscalls(monkeypatch)
    first = traced.during(lambda: resumed.append_message(turn(1000)[1]))
    second = traced.during(lambda: resumed.append_message(turn(1001)[1]))
    resumed.close()
    for calls in (first, second):
        assert not any(name in ("os.read", "os.pread", "builtins.open") for name in shape(calls))
        assert [name for name in shape(calls) if name == "os.write"] == ["os.write"]
    assert shape(first) == shape(second)
