"""`omp models --help` and `omp plugins --help` describe that command, as `omp config
--help` does, instead of printing the top-level help (issue 25)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("args", "usage", "mentions"),
    [
        (("models", "--help"), "usage: omp models [SEARCH]", "SEARCH"),
        (("models", "-h"), "usage: omp models [SEARCH]", "SEARCH"),
        (("plugins", "--help"), "usage: omp plugins", "omp plugin list"),
        (("--help", "plugins"), "usage: omp plugins", "omp plugin list"),
        (("recover", "list", "--help"), "usage: omp recover", "restore ID"),
    ],
)
def test_a_kernel_command_prints_its_own_usage(omp_cli, args, usage, mentions):
    proc = omp_cli(*args)
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(usage), proc.stdout
    assert mentions in proc.stdout
    assert "flags:" not in lines and "commands:" not in lines  # not the top-level help
    assert len(lines) <= 24  # one screen
