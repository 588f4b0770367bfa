"""Bad input on the command line is a usage error: one line on stderr, exit 2 (argparse's
code), whatever is wrong, and nothing written or sent (issue 24, item 16). Failures of
what the input names (a missing key, a locked or unreadable session) stay exit 1."""

from __future__ import annotations

import io
import sys

import pytest
from omp.cli.main import main

BAD_INPUT = {
    "unknown flag": ["--bogus"],
    "flag without its value": ["--thinking"],
    "unknown model": ["--model", "no-such-model-anywhere"],
    "unknown thinking suffix": ["--model", "scripted/demo:sideways"],
    "unknown provider": ["--provider", "no-such-provider"],
    "unknown thinking level": ["--thinking", "sideways"],
    "unknown tool": ["--tools", "no_such_tool"],
    "unknown scoped model": ["--models", "no-such-model-anywhere"],
    "unknown run mode": ["--mode", "no-such-mode"],
    "unknown session id (--resume)": ["--resume", "zzzz"],
    "unknown session id (--session)": ["--session", "zzzz"],
    "unknown session id (--fork)": ["--fork", "zzzz"],
    "two session flags": ["-c", "--resume", "x"],
    "missing @file": ["@no-such-file.txt"],
    "missing extension": ["-e", "/no/such/extension.py"],
    "missing script file": ["--script", "/no/such/script.jsonl"],
    "missing --cwd": ["--cwd", "/no/such/directory"],
    "missing session directory": ["--session", "no/such/dir/s.jsonl"],
    "api key without model": ["--api-key", "sk-test-not-a-key"],
}


@pytest.mark.parametrize("args", BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_bad_input_is_one_line_and_exit_2(omp_harness, monkeypatch, capsys, args):
    monkeypatch.chdir(omp_harness.cwd)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    monkeypatch.setenv("OMP_SCRIPT", str(omp_harness.script([{"text": "I am the model"}])))
    code = main(["-p", "hello", *args])
    out, err = capsys.readouterr()
    assert (code, out) == (2, ""), err
    [line] = err.splitlines()
    assert line.startswith("omp: ") and "Traceback" not in err
    assert not list((omp_harness.agent_dir / "sessions").rglob("*.jsonl"))
    assert sorted(p.name for p in omp_harness.cwd.iterdir()) == []


def test_a_missing_key_is_not_a_usage_error(omp_harness, monkeypatch, capsys):
    monkeypatch.chdir(omp_harness.cwd)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code = main(["-p", "hello", "--model", "anthropic/claude-sonnet-5"])
    _, err = capsys.readouterr()
    assert code == 1
    assert "no API key" in err


def test_subcommand_bad_input_is_exit_2_too(omp_cli):
    for args in (
        ["config", "set", "no.such.setting", "1"],
        ["config", "set", "retry.maxRetries", "lots"],
        ["sessions", "export", "zzzz", "out.html"],
    ):
        proc = omp_cli(*args)
        omp_cli.assert_one_line_error(proc)
        assert proc.returncode == 2, (args, proc.stderr)
