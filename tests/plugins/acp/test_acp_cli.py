"""``omp acp`` started other than by an editor: bad input gets one line, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from isolation import isolated_env


def omp_command() -> str:
    return str(Path(sys.executable).with_name("omp"))


@pytest.mark.parametrize("entry", [["acp"], ["--mode", "acp"]])
def test_stdin_that_is_not_a_pipe_is_refused_with_one_line(tmp_path, entry):
    for folder in ("home", "agent", "work"):
        (tmp_path / folder).mkdir()
    done = subprocess.run(
        [omp_command(), *entry],
        cwd=tmp_path / "work",
        env=isolated_env(tmp_path),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2, done
    assert done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert "needs stdin to be a pipe" in line and "Traceback" not in done.stderr


def test_a_prompt_argument_is_refused_with_one_line(tmp_path):
    for folder in ("home", "agent", "work"):
        (tmp_path / folder).mkdir()
    done = subprocess.run(
        [omp_command(), "acp", "hello"],
        cwd=tmp_path / "work",
        env=isolated_env(tmp_path),
        input="",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2, done
    [line] = done.stderr.strip().splitlines()
    assert "takes no prompt" in line


def test_a_missing_extension_is_refused_at_start_with_one_line(tmp_path):
    for folder in ("home", "agent", "work"):
        (tmp_path / folder).mkdir()
    done = subprocess.run(
        [omp_command(), "acp", "-e", "missing.py"],
        cwd=tmp_path / "work",
        env=isolated_env(tmp_path),
        input="",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2, done
    [line] = done.stderr.strip().splitlines()
    assert "-e missing.py: no such file or directory" in line
