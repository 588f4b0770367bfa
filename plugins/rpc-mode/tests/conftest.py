"""A client that drives ``omp --mode rpc`` as a subprocess, like an embedder would.

Every run has a private home, agent directory and cwd under pytest's tmp dirs; the
model is the scripted provider replaying ``SCRIPT`` (one reply per kind of prompt, so
one process can serve many tests). Every stdout line must be one JSON frame: the
reader fails the test otherwise, and reassembles ``rpc_chunk`` frames.
"""

from __future__ import annotations

import base64
import itertools
import json
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import isolation
import pytest
from isolation import isolated_env, omp_command
from omp.testing import write_script

HERE = Path(__file__).parent
TIMEOUT = 20.0

SCRIPT = [
    {"when": "SUMMARIZE_ME", "text": "Summary: the user said hello.", "repeat": True},
    {"after_tool": "task", "text": "children done", "repeat": True},
    {
        "when": "CHILD-WORK",
        "tool_calls": [{"name": "yield", "arguments": {"data": "ok"}}],
        "repeat": True,
    },
    {
        "when": "SUBAGENTS",
        "tool_calls": [
            {
                "name": "task",
                "arguments": {
                    "context": "shared",
                    "tasks": [
                        {"name": "One", "task": "CHILD-WORK one"},
                        {"name": "Two", "task": "CHILD-WORK two"},
                    ],
                },
            }
        ],
        "repeat": True,
    },
    {"after_tool": "big", "text": "big done", "repeat": True},
    {"after_tool": "slow", "text": "slow done", "repeat": True},
    {"after_tool": "ask", "text": "asked", "repeat": True},
    {"after_tool": "echo_host", "text": "host done", "repeat": True},
    {"after_tool": "dialogs", "text": "dialogs done", "repeat": True},
    {"when": "DIALOGS", "tool_calls": [{"name": "dialogs", "arguments": {}}], "repeat": True},
    {
        "after_tool": "sequential_thinking",
        "tool_calls": [{"name": "echo_host", "arguments": {"text": "after thinking"}}],
        "repeat": True,
    },
    {
        "when": "THINK",
        "tool_calls": [
            {
                "name": "sequential_thinking",
                "arguments": {
                    "thought": "The host tool can answer this.",
                    "thoughtNumber": 1,
                    "totalThoughts": 1,
                    "nextThoughtNeeded": False,
                },
            }
        ],
        "repeat": True,
    },
    {"after_tool": "forbidden_host", "text": "forbidden done", "repeat": True},
    {
        "when": "QUICKASK",
        "tool_calls": [{"name": "ask", "arguments": {"timeout": 0.3}}],
        "repeat": True,
    },
    {
        "when": "FORBID",
        "tool_calls": [{"name": "forbidden_host", "arguments": {}}],
        "repeat": True,
    },
    {
        "when": "BADHOST",
        "tool_calls": [
            {"name": "echo_host", "arguments": {}},
            {"name": "echo_host", "arguments": {"text": 5}},
        ],
        "repeat": True,
    },
    {"when": "BIG", "tool_calls": [{"name": "big", "arguments": {}}], "repeat": True},
    {
        "when": "SLOW",
        "tool_calls": [
            {"name": "slow", "arguments": {"n": 1}},
            {"name": "slow", "arguments": {"n": 2}},
        ],
        "repeat": True,
    },
    {"when": "ASK", "tool_calls": [{"name": "ask", "arguments": {}}], "repeat": True},
    {
        "when": "HOST",
        "tool_calls": [{"name": "echo_host", "arguments": {"text": "ping"}}],
        "repeat": True,
    },
    {"after_tool": "todo_write", "text": "planned", "repeat": True},
    {
        "when": "TODOS",
        "tool_calls": [
            {
                "name": "todo_write",
                "arguments": {
                    "todos": [
                        {"content": "Read the code", "status": "completed"},
                        {"content": "Fix the bug", "status": "in_progress"},
                        {"content": "Run the tests", "status": "pending"},
                    ]
                },
            }
        ],
        "repeat": True,
    },
    {"when": "DELAY", "text": "late reply", "delay": 1.5, "repeat": True},
    {"when": "LONG", "text": "word " * 4000, "repeat": True},
    {"text": "Hello from the script", "repeat": True},
]


def environment(root: Path) -> dict[str, str]:
    return isolated_env(root)


class RpcClient:
    """One ``omp --mode rpc`` process: send frames, wait for the ones you expect."""

    def __init__(
        self,
        root: Path,
        *args: str,
        mode: str = "rpc",
        settings: dict[str, Any] | None = None,
        models: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
        agent_files: dict[str, str] | None = None,
    ) -> None:
        self.root = root
        self.cwd = root / "work"
        for folder in (self.cwd, root / "agent", root / "home"):
            folder.mkdir(parents=True, exist_ok=True)
        if settings is not None:
            (root / "agent" / "settings.json").write_text(json.dumps(settings))
        if models is not None:  # models.json: providers beside the scripted one
            (root / "agent" / "models.json").write_text(json.dumps({"providers": models}))
        for name, text in (agent_files or {}).items():  # prompt templates, skills...
            (root / "agent" / name).parent.mkdir(parents=True, exist_ok=True)
            (root / "agent" / name).write_text(text)
        self.script = write_script(root / "script.jsonl", SCRIPT)
        self.stderr_path = root / "stderr.txt"
        self.frames: list[dict[str, Any]] = []
        self.raw_lines = 0
        self._cond = threading.Condition()
        self._ids = itertools.count(1)
        self._chunks: list[dict[str, Any]] = []
        self.chunked: list[int] = []
        """byteLength of every frame that arrived as rpc_chunk frames."""
        self.bad_lines: list[bytes] = []
        self.spawned = time.perf_counter()
        with open(self.stderr_path, "wb") as stderr:
            self.proc = subprocess.Popen(
                [
                    *omp_command(),
                    "--mode",
                    mode,
                    "--script",
                    str(self.script),
                    "-e",
                    str(HERE / "rpc_extension.py"),
                    *args,
                ],
                cwd=self.cwd,
                env={**environment(root), **(env or {})},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
            )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.ready = self.wait_for(lambda f: f["type"] == "ready", start=0)

    # -- reading ------------------------------------------------------------------------

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.raw_lines += 1
            try:
                frame = json.loads(line)
            except ValueError:
                self.bad_lines.append(line)
                continue
            if frame.get("type") == "rpc_chunk":
                frame = self._chunk(frame)
                if frame is None:
                    continue
            with self._cond:
                self.frames.append(frame)
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def _chunk(self, chunk: dict[str, Any]) -> dict[str, Any] | None:
        if self._chunks:
            assert chunk["chunkId"] == self._chunks[0]["chunkId"], "interleaved chunks"
        assert chunk["index"] == len(self._chunks)
        self._chunks.append(chunk)
        if len(self._chunks) < chunk["count"]:
            return None
        data = b"".join(base64.b64decode(c["data"]) for c in self._chunks)
        self._chunks = []
        assert len(data) == chunk["byteLength"]
        self.chunked.append(len(data))
        return json.loads(data.decode("utf-8", "strict"))

    def mark(self) -> int:
        with self._cond:
            return len(self.frames)

    def wait_for(
        self,
        predicate: Callable[[dict[str, Any]], bool],
        start: int | None = None,
        timeout: float = TIMEOUT,
    ) -> dict[str, Any]:
        """The first frame from index ``start`` on that matches."""
        deadline = time.monotonic() + timeout
        index = start or 0
        with self._cond:
            while True:
                while index < len(self.frames):
                    if predicate(self.frames[index]):
                        return self.frames[index]
                    index += 1
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    raise AssertionError(
                        f"no matching frame; last frames: {self.frames[-5:]}; "
                        f"stderr: {self.stderr()[-2000:]}"
                    )
                self._cond.wait(min(left, 0.5))

    def since(self, start: int) -> list[dict[str, Any]]:
        with self._cond:
            return list(self.frames[start:])

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    # -- writing ------------------------------------------------------------------------

    def send(self, frame: dict[str, Any] | str | bytes) -> None:
        if isinstance(frame, dict):
            frame = json.dumps(frame)
        data = frame if isinstance(frame, bytes) else frame.encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def next_id(self) -> str:
        return f"req_{next(self._ids)}"

    def request(self, kind: str, timeout: float = TIMEOUT, **fields: Any) -> dict[str, Any]:
        """Send a command and wait for the response carrying its id."""
        request_id = self.next_id()
        start = self.mark()
        self.send({"id": request_id, "type": kind, **fields})
        return self.wait_for(
            lambda f: f.get("type") == "response" and f.get("id") == request_id, start, timeout
        )

    def ok(self, kind: str, **fields: Any) -> Any:
        response = self.request(kind, **fields)
        assert response["success"] is True, response["error"]
        assert response["command"] == kind
        return response.get("data")

    def run(self, message: str, **fields: Any) -> list[dict[str, Any]]:
        """Prompt and wait for the run's terminal agent_end; the frames since."""
        start = self.mark()
        assert self.request("prompt", message=message, **fields)["success"] is True
        self.wait_for(
            lambda f: f["type"] == "agent_end" and f.get("isTerminal") is not False, start
        )
        return self.since(start)

    def close(self, timeout: float = TIMEOUT) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._reader.join(5)

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        line = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
        return int(line.split()[1])


@pytest.fixture(scope="module")
def rpc(tmp_path_factory: pytest.TempPathFactory):
    """One rpc process shared by the tests of a module (state carries over)."""
    client = RpcClient(tmp_path_factory.mktemp("rpc"))
    yield client
    client.close()
    assert client.bad_lines == [], client.bad_lines[:3]


@pytest.fixture
def fresh_rpc(tmp_path: Path):
    """A process of its own, for tests that change the protocol or end the process."""
    clients: list[RpcClient] = []

    def start(*args: str, mode: str = "rpc", **options: Any) -> RpcClient:
        client = RpcClient(tmp_path / f"p{len(clients)}", *args, mode=mode, **options)
        clients.append(client)
        return client

    yield start
    for client in clients:
        client.close()
        assert client.bad_lines == [], client.bad_lines[:3]


@pytest.fixture
def run_omp(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``run_omp(*args)``: ``omp *args`` to its end in a private environment (stdin empty)."""
    return lambda *args: isolation.run_omp(tmp_path, *args)
