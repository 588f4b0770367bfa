"""A real terminal for the interactive mode: tmux runs ``omp`` (private socket, the
e2e fixture's private home and agent directory), tests send keys and read the pane."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

TMUX = shutil.which("tmux")
DEADLINE = 10.0


class Terminal:
    """One tmux server with one pane running ``omp``."""

    def __init__(self, omp_cli: Any, width: int, height: int) -> None:
        self.omp_cli = omp_cli
        self.socket = f"omp-test-{uuid.uuid4().hex[:10]}"
        self.width, self.height = width, height
        self.started = False

    def tmux(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(
            [TMUX, "-L", self.socket, "-f", "/dev/null", *args],
            env=self.omp_cli.env,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)} failed: {proc.stderr}")
        return proc.stdout

    def start(
        self,
        *args: Any,
        shell_suffix: str = "",
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> Terminal:
        """Run ``omp *args`` in the pane (``env`` added to the fixture's environment);
        when it ends the pane shows ``[exit N]``."""
        words = [*(["env", *(f"{k}={v}" for k, v in env.items())] if env else [])]
        words += [*self.omp_cli.command, *args]
        command = " ".join(shlex.quote(str(a)) for a in words)
        # A shell's prompt line first, as when a user types ``omp``: tmux moves a screen
        # erased from its top-left corner into its history (scroll-on-clear), so a frame
        # drawn on the first row would leave copies of itself above the transcript.
        line = f'echo "$ omp"; {command}{shell_suffix}; echo "[exit $?]"; sleep 600'
        self.tmux(
            "new-session",
            "-d",
            "-s",
            "omp",
            "-x",
            str(self.width),
            "-y",
            str(self.height),
            "-c",
            str(cwd or self.omp_cli.cwd),
            "sh",
            "-c",
            line,
        )
        self.started = True
        return self

    def screen(self) -> str:
        """What the pane shows now, with the lines scrolled above it."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "omp")

    def visible(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "omp")

    def colours(self) -> str:
        """The pane with its escape codes (``capture-pane -e``)."""
        return self.tmux("capture-pane", "-p", "-e", "-J", "-S", "-200", "-t", "omp")

    def paste(self, text: str) -> None:
        """Paste ``text`` as a terminal does (bracketed when the program asked for it)."""
        self.tmux("set-buffer", "-b", "paste", text)
        self.tmux("paste-buffer", "-p", "-d", "-b", "paste", "-t", "omp")

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "omp", *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "omp", "-l", text)

    def submit(self, text: str) -> None:
        """Type ``text`` into the editor and press Enter."""
        self.type(text)
        self.send("Enter")

    def run_command(self, command: str) -> None:
        """Type ``command``, wait until the editor shows it, then press Enter."""
        self.type(command)
        self.wait_for(f"> {command}", whole=False)
        self.send("Enter")

    def resize(self, width: int, height: int) -> None:
        self.tmux("resize-window", "-t", "omp", "-x", str(width), "-y", str(height))

    def wait_for(
        self, wanted: str | Callable[[str], bool], deadline: float = DEADLINE, *, whole: bool = True
    ) -> str:
        """The screen once it shows ``wanted`` (text or predicate); fails at the deadline."""
        check = wanted if callable(wanted) else (lambda screen: wanted in screen)
        end = time.monotonic() + deadline
        while True:
            screen = self.screen() if whole else self.visible()
            if check(screen):
                return screen
            if time.monotonic() > end:
                raise AssertionError(f"the terminal never showed {wanted!r}; it shows:\n{screen}")
            time.sleep(0.05)

    def ready(self, footer: str = "scripted/") -> str:
        """Wait for the editor's prompt with the footer (showing ``footer``) under it."""
        return self.wait_for(
            lambda s: ">" in [line.rstrip() for line in s.splitlines()] and footer in s, 15
        )

    def close(self) -> None:
        if self.started:
            self.tmux("kill-server", check=False)


@pytest.fixture
def terminal(omp_cli: Any):
    """``terminal.start("--script", path)``, then ``send``/``type``/``wait_for``."""
    if TMUX is None:
        pytest.skip("tmux is not installed (bash scripts/setup installs it from Debian)")
    opened: list[Terminal] = []

    def open_terminal(width: int = 100, height: int = 30) -> Terminal:
        term = Terminal(omp_cli, width, height)
        opened.append(term)
        return term

    term = open_terminal()
    term.open = open_terminal  # type: ignore[attr-defined]
    yield term
    for each in opened:
        each.close()
