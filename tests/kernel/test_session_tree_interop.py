"""Session files written by pi (its documented format, versions 1 to 3) and by omp open
here with their conversation, model and thinking level, and continue in place."""

from __future__ import annotations

import json
from pathlib import Path

from omp.agent.messages import UserMessage
from omp.session.file import SessionFile
from omp.session.store import list_sessions

USAGE = {
    "input": 10,
    "output": 5,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 15,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def _assistant(content: list, stop: str = "stop") -> dict:
    return {
        "role": "assistant",
        "content": content,
        "api": "openai-completions",
        "provider": "openai",
        "model": "gpt-4o",
        "usage": USAGE,
        "stopReason": stop,
        "timestamp": 1733234402000,
    }


PI_V3 = [
    {
        "type": "session",
        "version": 3,
        "id": "pi-session-1",
        "timestamp": "2024-12-03T14:00:00.000Z",
        "cwd": "/p",
    },
    {
        "type": "model_change",
        "id": "a0000001",
        "parentId": None,
        "timestamp": "2024-12-03T14:00:00.500Z",
        "provider": "openai",
        "modelId": "gpt-4o",
    },
    {
        "type": "thinking_level_change",
        "id": "a0000002",
        "parentId": "a0000001",
        "timestamp": "2024-12-03T14:00:00.600Z",
        "thinkingLevel": "high",
    },
    {
        "type": "message",
        "id": "a1b2c3d4",
        "parentId": "a0000002",
        "timestamp": "2024-12-03T14:00:01.000Z",
        "message": {"role": "user", "content": "List the files", "timestamp": 1733234401000},
    },
    {
        "type": "message",
        "id": "b2c3d4e5",
        "parentId": "a1b2c3d4",
        "timestamp": "2024-12-03T14:00:02.000Z",
        "message": _assistant(
            [
                {"type": "thinking", "thinking": "use bash"},
                {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"cmd": "ls"}},
            ],
            "toolUse",
        ),
    },
    {
        "type": "message",
        "id": "c3d4e5f6",
        "parentId": "b2c3d4e5",
        "timestamp": "2024-12-03T14:00:03.000Z",
        "message": {
            "role": "toolResult",
            "toolCallId": "call_1",
            "toolName": "bash",
            "content": [{"type": "text", "text": "a.py\nb.py"}],
            "isError": False,
            "timestamp": 1733234403000,
        },
    },
    {
        "type": "message",
        "id": "d4e5f6a7",
        "parentId": "c3d4e5f6",
        "timestamp": "2024-12-03T14:00:04.000Z",
        "message": _assistant([{"type": "text", "text": "Two files: a.py and b.py."}]),
    },
    {
        "type": "message",
        "id": "e5f6a7b8",
        "parentId": "d4e5f6a7",
        "timestamp": "2024-12-03T14:00:05.000Z",
        "message": {
            "role": "bashExecution",
            "command": "git status",
            "output": "clean",
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "timestamp": 1733234405000,
        },
    },
    {
        "type": "custom",
        "id": "f6a7b8c9",
        "parentId": "e5f6a7b8",
        "timestamp": "2024-12-03T14:20:00.000Z",
        "customType": "my-extension",
        "data": {"count": 42},
    },
    {
        "type": "label",
        "id": "a7b8c9d0",
        "parentId": "f6a7b8c9",
        "timestamp": "2024-12-03T14:30:00.000Z",
        "targetId": "a1b2c3d4",
        "label": "checkpoint-1",
    },
    {
        "type": "session_info",
        "id": "b8c9d0e1",
        "parentId": "a7b8c9d0",
        "timestamp": "2024-12-03T14:35:00.000Z",
        "name": "File listing",
    },
]


def _write(path: Path, entries: list[dict]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path


def _roles(session: SessionFile) -> list[str]:
    return [m.role for m in session.build_context().messages]


def test_a_pi_session_opens_with_its_conversation_model_and_thinking(tmp_path: Path) -> None:
    session = SessionFile.open(_write(tmp_path / "pi.jsonl", PI_V3))
    assert session.load_warnings == []
    context = session.build_context()
    assert context.model == "openai/gpt-4o"
    assert context.thinking_level == "high"
    assert _roles(session) == ["user", "assistant", "toolResult", "assistant", "bashExecution"]
    [info] = list_sessions(tmp_path)
    assert info.title == "File listing" and info.message_count == 5


def test_a_pi_session_continues_in_place_and_pi_can_read_it_back(tmp_path: Path) -> None:
    path = _write(tmp_path / "pi.jsonl", PI_V3)
    before = path.read_bytes()
    session = SessionFile.open(path)
    entry = session.append_message(UserMessage(content="and now?"))
    session.close()
    data = path.read_bytes()
    assert data.startswith(before)  # nothing pi wrote was touched
    appended = json.loads(data[len(before) :])
    assert appended["parentId"] == "b8c9d0e1" and appended["id"] == entry["id"]
    reopened = SessionFile.open(path)
    assert _roles(reopened)[-1] == "user"
    assert reopened.build_context().messages[-1].content == "and now?"


def test_a_version_1_pi_session_is_migrated_and_rewritten_before_it_grows(
    tmp_path: Path,
) -> None:
    v1 = [
        {"type": "session", "id": "old-1", "timestamp": "2024-06-01T10:00:00.000Z", "cwd": "/p"},
        {
            "type": "message",
            "timestamp": "2024-06-01T10:00:01.000Z",
            "message": {"role": "user", "content": "first", "timestamp": 1},
        },
        {
            "type": "message",
            "timestamp": "2024-06-01T10:00:02.000Z",
            "message": _assistant([{"type": "text", "text": "one"}]),
        },
        {
            "type": "message",
            "timestamp": "2024-06-01T10:00:03.000Z",
            "message": {"role": "hookMessage", "customType": "x", "content": "hi", "display": True},
        },
    ]
    path = _write(tmp_path / "v1.jsonl", v1)
    session = SessionFile.open(path)
    assert _roles(session) == ["user", "assistant", "custom"]
    session.append_message(UserMessage(content="second"))
    session.close()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["version"] == 3
    assert all(line.get("id") for line in lines[1:])
    assert [line["parentId"] for line in lines[1:]] == [None, *[line["id"] for line in lines[1:-1]]]
    assert lines[3]["message"]["role"] == "custom"
    assert _roles(SessionFile.open(path)) == ["user", "assistant", "custom", "user"]
