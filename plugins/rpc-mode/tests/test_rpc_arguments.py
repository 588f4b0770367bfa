"""``omp --mode rpc`` takes its prompts from the client: prompt and ``@file`` arguments
on the command line are refused with one line and a non-zero exit, before any frame or
session is written (omp: "@file CLI arguments are rejected in RPC mode")."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("mode", ["rpc", "rpc-ui"])
@pytest.mark.parametrize(
    ("argument", "said"),
    [
        ("@notes.txt", "@file arguments are not supported in --mode {mode}"),
        ("@missing.txt", "@file arguments are not supported in --mode {mode}"),
        ("hello there", "--mode {mode} takes no prompt arguments"),
    ],
)
def test_prompt_and_file_arguments_are_refused(run_omp, tmp_path, mode, argument, said):
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("alpha\n")
    done = run_omp("--mode", mode, "--model", "scripted/demo", argument)
    assert done.returncode == 2, done
    assert done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert said.format(mode=mode) in line and "Traceback" not in done.stderr
    assert not list((tmp_path / "agent").rglob("*.jsonl"))


def test_without_arguments_it_serves_and_exits_zero_at_eof(run_omp):
    done = run_omp("--mode", "rpc", "--model", "scripted/demo")
    assert done.returncode == 0, done.stderr
    assert '"type": "ready"' in done.stdout or '"type":"ready"' in done.stdout
