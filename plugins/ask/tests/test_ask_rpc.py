"""``ask`` over omp's RPC protocol: in ``--mode rpc-ui`` the dialogs are
``extension_ui_request`` frames the client answers; in ``--mode rpc`` (no UI) the model
is not offered the tool."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

from isolation import isolated_env, omp_command
from omp.testing import write_script

QUESTION = {
    "id": "storage",
    "question": "Which storage backend?",
    "options": [{"label": "SQLite", "description": "one file"}, {"label": "PostgreSQL"}],
}
SCRIPT = [
    {"after_tool": "ask", "text": "answered", "repeat": True},
    {"tool_calls": [{"name": "ask", "arguments": {"questions": [QUESTION]}}], "repeat": True},
]


class Client:
    def __init__(self, root: Path, mode: str) -> None:
        for sub in ("work", "agent", "home"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        script = write_script(root / "script.jsonl", SCRIPT)
        self.proc = subprocess.Popen(
            [*omp_command(), "--mode", mode, "--script", str(script)],
            cwd=root / "work",
            env=isolated_env(root),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.frames: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.frames.put(json.loads(line))

    def send(self, frame: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(frame).encode() + b"\n")
        self.proc.stdin.flush()

    def until(self, kind: str, method: str | None = None) -> tuple[dict[str, Any], list[Any]]:
        """The first frame of that type (and UI method) to come, and every frame until it."""
        seen = []
        while True:
            frame = self.frames.get(timeout=20)
            seen.append(frame)
            if frame.get("type") == kind and method in (None, frame.get("method")):
                return frame, seen

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def tool_result(frames: list[dict[str, Any]]) -> tuple[str, bool]:
    [end] = [f for f in frames if f["type"] == "tool_execution_end"]
    return end["result"]["content"][0]["text"], end["isError"]


def test_rpc_ui_client_answers_the_dialog(tmp_path: Path) -> None:
    client = Client(tmp_path, "rpc-ui")
    try:
        client.until("ready")
        client.send({"id": "p1", "type": "prompt", "message": "decide"})
        request, _ = client.until("extension_ui_request", "select")
        assert request["method"] == "select"
        assert request["title"] == "Which storage backend?"
        assert request["options"] == ["SQLite", "PostgreSQL", "Other (type your own)"]
        assert request["optionDetails"][0] == {"description": "one file"}
        client.send({"type": "extension_ui_response", "id": request["id"], "value": "PostgreSQL"})
        _, frames = client.until("agent_end")
        assert tool_result(frames) == ("User selected: PostgreSQL", False)
        assert [f for f in frames if f["type"] == "message_end"][-1]["message"]["content"][0][
            "text"
        ] == "answered"
    finally:
        client.close()


def test_plain_rpc_has_no_ask_tool(tmp_path: Path) -> None:
    client = Client(tmp_path, "rpc")
    try:
        client.until("ready")
        client.send({"id": "p1", "type": "prompt", "message": "decide"})
        _, frames = client.until("agent_end")
        text, is_error = tool_result(frames)
        assert is_error
        assert "ask" in text and "not found" in text.lower()
        asked = [f for f in frames if f["type"] == "extension_ui_request"]
        assert [f for f in asked if f["method"] != "notify"] == []
    finally:
        client.close()
