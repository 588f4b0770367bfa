"""What a batch shows while it runs: the rich display on a terminal, plain lines when
stderr is a pipe (the --json events are checked with the engines)."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import termios
import time


def _on_a_terminal(batch, *args: str) -> tuple[int, str]:
    """Run ``omp batch`` with stderr on a pseudo-terminal 160 columns wide; its exit
    status and everything it drew there."""
    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    env = {**batch.env, "COLUMNS": "160", "TERM": "xterm-256color"}
    proc = subprocess.Popen(
        batch.command(*args),
        cwd=batch.root,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=side,
    )
    os.close(side)
    drawn = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the runner closed the terminal
            break
        if not chunk:
            break
        drawn += chunk
    os.close(main)
    return proc.wait(timeout=30), drawn.decode("utf-8", "replace")


def _tasks(batch):
    ok = batch.script({"text": "fine"})
    odd = batch.script({"error": "the model said [/INST] and [bold]stopped"})
    tasks = [
        {"id": f"t{n}", "prompt": "x", "cwd": "work", "flags": {"script": ok}} for n in range(4)
    ]
    tasks.append({"id": "odd", "prompt": "x", "cwd": "work", "flags": {"script": odd}})
    return batch.tasks(tasks)


def test_a_terminal_gets_the_rich_display_with_counts_tokens_and_cost(batch):
    status, drawn = _on_a_terminal(batch, str(_tasks(batch)), "--out", "out", "--jobs", "2")
    assert status == 1, drawn
    assert "Traceback" not in drawn
    assert "5/5" in drawn and "done 4  running 0  failed 1" in drawn, drawn
    assert " tokens  $0.0000" in drawn
    # An error is shown as it is: brackets in it are not taken for rich markup.
    assert "odd: failed: the model said [/INST] and [bold]stopped" in drawn, drawn
    assert "omp batch: 5 tasks: 4 done, 1 failed;" in drawn


def test_a_pipe_gets_one_plain_line_per_task(batch):
    proc = batch.run(str(_tasks(batch)), "--out", "out", "--jobs", "2")
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert "\x1b" not in proc.stderr
    assert len([line for line in lines if line.startswith("omp batch: [")]) == 5, lines
    assert any(
        line.startswith("omp batch: [") and "odd failed in" in line and "[/INST]" in line
        for line in lines
    )
    assert lines[-1].startswith("omp batch: 5 tasks: 4 done, 1 failed;")
