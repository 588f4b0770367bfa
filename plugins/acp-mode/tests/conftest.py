"""An ACP client (the SDK's own client side) driving ``omp acp`` in a subprocess with
the scripted provider and a private home, agent directory and working directory."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, schema, spawn_agent_process
from isolation import isolated_env, omp_command
from omp.testing import write_script


class EditorClient:
    """Implements ``acp.interfaces.Client`` as an editor would: collects every update,
    answers permission requests with ``permission`` (an option id, or None to cancel),
    and serves files from ``buffers`` (unsaved editor text) when asked."""

    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.permission: str | None = "allow_once"
        self.permission_requests: list[Any] = []
        self.permission_gate: asyncio.Event | None = None
        self.buffers: dict[str, str] = {}
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.terminals: dict[str, EditorTerminal] = {}
        self.form_values: list[Any] = []
        """Answers to form elicitations, one per form (with ``connect(elicitation=True)``)."""
        self.forms: list[tuple[str, Any]] = []

    def of(self, session_id: str, kind: str | None = None) -> list[Any]:
        return [
            u
            for s, u in self.updates
            if s == session_id and (kind is None or u.session_update == kind)
        ]

    def text(self, session_id: str, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(session_id, kind))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))

    async def request_permission(
        self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any
    ) -> schema.RequestPermissionResponse:
        self.permission_requests.append((session_id, tool_call, options))
        if self.permission_gate is not None:
            await self.permission_gate.wait()
        if self.permission is None:
            return schema.RequestPermissionResponse(
                outcome=schema.DeniedOutcome(outcome="cancelled")
            )
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(outcome="selected", option_id=self.permission)
        )

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        self.forms.append((message, mode.requested_schema.properties["value"]))
        content = {"value": self.form_values.pop(0)}
        return schema.AcceptElicitationResponse(action="accept", content=content)

    async def read_text_file(self, path: str, session_id: str, **kwargs: Any) -> Any:
        self.reads.append(path)
        if path in self.buffers:
            return schema.ReadTextFileResponse(content=self.buffers[path])
        return schema.ReadTextFileResponse(content=Path(path).read_text())

    async def write_text_file(self, content: str, path: str, session_id: str, **kwargs: Any) -> Any:
        self.writes.append((path, content))
        self.buffers[path] = content
        return schema.WriteTextFileResponse()

    async def create_terminal(
        self,
        command: str,
        session_id: str,
        args: list[str] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> schema.CreateTerminalResponse:
        terminal_id = f"term-{len(self.terminals) + 1}"
        self.terminals[terminal_id] = await EditorTerminal.start(
            [command, *(args or [])], cwd, output_byte_limit
        )
        return schema.CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        terminal = self.terminals[terminal_id]
        return schema.TerminalOutputResponse(
            output=terminal.output.decode(errors="replace"),
            truncated=terminal.truncated,
            exit_status=terminal.exit_status(),
        )

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        status = await self.terminals[terminal_id].wait()
        return schema.WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        self.terminals[terminal_id].kill()
        return schema.KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        terminal = self.terminals[terminal_id]
        terminal.kill()
        terminal.released = True
        return schema.ReleaseTerminalResponse()

    def on_connect(self, conn: Any) -> None:
        pass


class EditorTerminal:
    """A command the editor runs for the agent, as Zed's terminals do: output kept up to
    a byte limit (oldest dropped), exit status once it ended."""

    def __init__(self, process: asyncio.subprocess.Process, limit: int | None) -> None:
        self.process = process
        self.limit = limit
        self.output = b""
        self.truncated = False
        self.killed = False
        self.released = False
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls, argv: list[str], cwd: str | None, limit: int | None) -> EditorTerminal:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        return cls(process, limit)

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while chunk := await self.process.stdout.read(4096):
            self.output += chunk
            if self.limit is not None and len(self.output) > self.limit:
                self.output = self.output[-self.limit :]
                self.truncated = True

    async def wait(self) -> schema.TerminalExitStatus:
        await self.process.wait()
        await self._reader
        status = self.exit_status()
        assert status is not None
        return status

    def exit_status(self) -> schema.TerminalExitStatus | None:
        code = self.process.returncode
        if code is None:
            return None
        if code < 0:
            return schema.TerminalExitStatus(signal=f"signal {-code}")
        return schema.TerminalExitStatus(exit_code=code)

    def kill(self) -> None:
        if self.process.returncode is None:
            self.killed = True
            self.process.kill()


class AcpRig:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.cwd = root / "work"
        self.agent_dir = root / "agent"
        for path in (self.cwd, self.agent_dir, root / "home"):
            path.mkdir(parents=True, exist_ok=True)
        self.env = isolated_env(root, self.agent_dir)
        self._scripts = 0

    def script(self, steps: list[dict[str, Any]]) -> Path:
        self._scripts += 1
        return write_script(self.root / f"script-{self._scripts}.jsonl", steps)

    @contextlib.asynccontextmanager
    async def connect(
        self,
        *args: str,
        fs: bool = False,
        terminal: bool = False,
        elicitation: bool = False,
        client: EditorClient | None = None,
        entry: tuple[str, ...] = ("acp",),
    ):
        """``(conn, client)`` to a running ``omp acp *args`` (or ``omp *entry *args``),
        initialized."""
        client = client or EditorClient()
        async with spawn_agent_process(
            client,
            *omp_command(),
            *entry,
            *args,
            env=self.env,
            cwd=self.cwd,
            transport_kwargs={"stderr": None},
            use_unstable_protocol=elicitation,
        ) as (conn, process):
            caps = schema.ClientCapabilities(
                fs=schema.FileSystemCapabilities(read_text_file=fs, write_text_file=fs),
                terminal=terminal,
                elicitation=schema.ElicitationCapabilities(
                    form=schema.ElicitationFormCapabilities()
                )
                if elicitation
                else None,
            )
            client.init = await asyncio.wait_for(
                conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=caps), 30
            )
            yield conn, client
        assert process.returncode is not None


@pytest.fixture
def acp_rig(tmp_path: Path) -> AcpRig:
    return AcpRig(tmp_path)
