"""End-to-end fixtures: run the real ``omp`` console script in a subprocess.

Every run gets a private working directory, agent directory and home directory under
pytest's tmp_path, so a test never reads or writes the real ``~/.omp``. Helpers for
assertions hang off the fixture object (``omp_cli.read_session(...)``) so test modules
never import this conftest.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest
from isolation import omp_command
from omp.testing import PROVIDER_KEYS, write_script

TIMEOUT = 60

_STUCK_TOOL = """
import threading
from pathlib import Path

import omp
from pydantic import BaseModel


class NoArgs(BaseModel):
    pass


@omp.hookimpl
def omp_register_tools(api):
    from omp import Tool

    def execute(call_id, params, signal, on_update, ctx):
        Path({marker!r}).write_text("stuck")
        threading.Event().wait()  # never returns, and ignores the abort signal

    return [Tool(name="stuck", description="Blocks forever", parameters=NoArgs, execute=execute)]
"""

_SCRUBBED = (
    "OMP_MODEL",
    "OMP_SCRIPT",
    "OMP_SETTINGS",
    "OMP_DISABLED_PLUGINS",
    "OMP_THINKING",
    "OMP_SESSION_DIR",
    "PI_CODING_AGENT_SESSION_DIR",
    "PI_CODING_AGENT_DIR",
    "OMP_STRICT_PLUGINS",
    "OMP_TRACE_PLUGINS",
    *PROVIDER_KEYS,  # a developer's real key must not turn a test into traffic
    "OLLAMA_HOST",
)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def json_lines(text: str) -> list[dict[str, Any]]:
    """Every non-empty line of ``text`` parsed as JSON (fails the test if one is not)."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def stderr_lines(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.strip()]


def assert_one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    """A failed run that said why in exactly one line on stderr, with no traceback."""
    assert proc.returncode != 0, proc
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = stderr_lines(proc)
    assert len(lines) == 1, f"expected one line on stderr, got: {proc.stderr!r}"
    assert lines[0].startswith("omp: "), lines[0]
    assert proc.stdout == "", proc.stdout
    return lines[0]


def read_session(path: Path) -> list[dict[str, Any]]:
    """Every line of a session file, parsed; each line must be complete JSON."""
    data = path.read_bytes()
    assert data.endswith(b"\n"), f"{path} does not end with a newline"
    return [json.loads(line) for line in data.decode("utf-8").split("\n")[:-1]]


def read_terminal(
    master: int,
    proc: subprocess.Popen[bytes],
    answer: bytes | None = None,
    timeout: float = 60,
    question: bytes = b"[y/N]",
) -> tuple[bytes, bool]:
    """What ``proc`` writes to the pseudo-terminal ``master`` until it exits (or
    ``timeout``), typing ``answer`` once ``question`` appears; (output, answered)."""
    import select
    import time

    seen = b""
    answered = False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        if answer is not None and not answered and question in seen:
            os.write(master, answer)
            answered = True
        if not ready and proc.poll() is not None:
            break
    return seen, answered


def messages_of(entries: Sequence[dict[str, Any]], role: str | None = None) -> list[dict]:
    found = [e["message"] for e in entries if e.get("type") == "message"]
    return [m for m in found if role is None or m.get("role") == role]


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


class OmpCli:
    """Runs ``omp`` with a private environment; paths live under ``root``."""

    json_lines = staticmethod(json_lines)
    stderr_lines = staticmethod(stderr_lines)
    assert_one_line_error = staticmethod(assert_one_line_error)
    read_session = staticmethod(read_session)
    messages_of = staticmethod(messages_of)
    text_of = staticmethod(text_of)
    read_terminal = staticmethod(read_terminal)

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cwd = root / "work"
        self.agent_dir = root / "agent"
        self.home = root / "home"
        for path in (self.cwd, self.agent_dir, self.home):
            path.mkdir(parents=True, exist_ok=True)
        self.env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
        self.env.update(
            {
                "OMP_CODING_AGENT_DIR": str(self.agent_dir),
                "HOME": str(self.home),
                "OLLAMA_HOST": "127.0.0.1:9",  # nothing listens there: no local model
                "PYTHONDONTWRITEBYTECODE": "1",
                "PYTHONUNBUFFERED": "1",
            }
        )
        coverage_log = os.environ.get("OMP_HOOK_COVERAGE_LOG")
        if coverage_log:  # the suite's hook coverage (conftest.py)
            self.env["OMP_TRACE_PLUGINS"] = coverage_log
        self.command = omp_command()
        self._scripts = 0

    def __call__(
        self,
        *args: str | os.PathLike[str],
        input: str | None = None,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        timeout: float = TIMEOUT,
    ) -> subprocess.CompletedProcess[str]:
        """Run ``omp *args`` to completion; stdin is /dev/null unless ``input`` is given."""
        return subprocess.run(
            [*self.command, *map(str, args)],
            cwd=cwd or self.cwd,
            env={**self.env, **(env or {})},
            input=input,
            stdin=subprocess.DEVNULL if input is None else None,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def popen(
        self,
        *args: str | os.PathLike[str],
        env: dict[str, str] | None = None,
        stdin: int = subprocess.DEVNULL,
    ) -> subprocess.Popen[str]:
        """Start ``omp *args`` without waiting (output goes to pipes; ``stdin``
        ``subprocess.PIPE`` to write to it)."""
        return subprocess.Popen(
            [*self.command, *map(str, args)],
            cwd=self.cwd,
            env={**self.env, **(env or {})},
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # A child of a background job inherits an ignored SIGINT; restore it so
            # tests can interrupt omp like Ctrl-C would.
            preexec_fn=_default_sigint,
        )

    def wait_for(
        self, path: Path, proc: subprocess.Popen[str], what: str = "", seconds: float = 30
    ) -> None:
        """Wait until ``path`` exists (a marker the run writes); fail the test, killing
        ``proc``, when omp ends first or ``seconds`` pass."""
        what = what or path.name
        deadline = time.monotonic() + seconds
        while not path.exists():
            if proc.poll() is not None:
                _, err = proc.communicate()
                pytest.fail(f"omp ended ({proc.returncode}) before {what}: {err}")
            if time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"timed out waiting for {what}")
            time.sleep(0.02)

    def stuck_tool(self, marker: Path) -> Path:
        """An extension with a tool ``stuck`` whose plain ``def execute`` writes
        ``marker``, then blocks for ever, ignoring the abort signal."""
        return self.extension(_STUCK_TOOL.format(marker=str(marker)), "stuck.py")

    def script(self, steps: Iterable[dict[str, Any]], name: str | None = None) -> Path:
        """A script file (one JSON step per line) outside the working directory."""
        self._scripts += 1
        path = self.root / "scripts" / (name or f"script-{self._scripts}.jsonl")
        path.parent.mkdir(exist_ok=True)
        return write_script(path, steps)

    def use_provider(
        self, name: str, base_url: str, *, api_key: str = "none", model: dict | None = None
    ) -> None:
        """A models.json with one openai-completions provider ``name`` at ``base_url``
        serving ``model`` (default ``{"id": "coder"}``)."""
        entry = {
            "baseUrl": base_url,
            "api": "openai-completions",
            "apiKey": api_key,
            "models": [model or {"id": "coder"}],
        }
        (self.agent_dir / "models.json").write_text(json.dumps({"providers": {name: entry}}))

    def extension(self, source: str, name: str, folder: Path | None = None) -> Path:
        """A single-file extension; by default outside every discovered folder."""
        folder = folder or self.root / "ext"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        path.write_text(source, encoding="utf-8")
        return path

    def sessions_dir(self) -> Path:
        """Where omp keeps the sessions of ``self.cwd`` (the encoded cwd folder)."""
        from omp.session.store import encode_cwd

        encoded = encode_cwd(str(self.cwd.resolve()), str(self.home), tempfile.gettempdir())
        return self.agent_dir / "sessions" / encoded

    def session_files(self, directory: Path | None = None) -> list[Path]:
        directory = directory or self.sessions_dir()
        return sorted(directory.glob("*.jsonl")) if directory.is_dir() else []

    def all_session_files(self) -> list[Path]:
        return sorted((self.agent_dir / "sessions").rglob("*.jsonl"))


@pytest.fixture
def omp_cli(tmp_path: Path) -> OmpCli:
    """Run the real ``omp`` script: ``omp_cli("-p", "hi", "--script", path)``."""
    return OmpCli(tmp_path)
