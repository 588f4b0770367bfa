"""``omp acp`` started other than by an editor: bad input gets one line, no traceback."""

from __future__ import annotations

import subprocess

import pytest
from isolation import run_omp


@pytest.mark.parametrize("entry", [["acp"], ["--mode", "acp"]])
def test_stdin_that_is_not_a_pipe_is_refused_with_one_line(tmp_path, entry):
    done = run_omp(tmp_path, *entry, stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done
    assert done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert "needs stdin to be a pipe" in line and "Traceback" not in done.stderr


def test_a_prompt_argument_is_refused_with_one_line(tmp_path):
    done = run_omp(tmp_path, "acp", "hello")
    assert done.returncode == 2, done
    [line] = done.stderr.strip().splitlines()
    assert "takes no prompt" in line


def test_a_missing_extension_is_refused_at_start_with_one_line(tmp_path):
    done = run_omp(tmp_path, "acp", "-e", "missing.py")
    assert done.returncode == 2, done
    [line] = done.stderr.strip().splitlines()
    assert "-e missing.py: no such file or directory" in line
