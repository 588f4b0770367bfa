"""Every subcommand word of omp and pi is a command, never a prompt (issue 24, item 13): a
word this project does not have answers in one line (exit 2) before any session or model
call, and a word meant as a prompt still goes to the model after ``-p``, ``launch`` or
``--``, or inside a longer argument."""

from __future__ import annotations

import pytest
from omp.cli.main import main
from omp.cli.reserved import RESERVED

OMP_WORDS = [  # omp 18's subcommands (cli-commands.ts), its typo guards last
    "acp", "agents", "join", "share", "read", "grep", "search", "q", "render", "gallery",
    "ttsr", "worktree", "wt", "cleanse", "commit", "compress", "models", "token", "usage",
    "auth-broker", "auth-gateway", "dry-balance", "bench", "config", "setup", "update", "gc",
    "stats", "completions", "__complete", "tiny-models", "grievances", "images", "img",
    "plugin", "install", "ps", "shell", "ssh", "say", "browser-relay",
    "remove", "uninstall", "upgrade", "enable", "disable",
]  # fmt: skip
PI_WORDS = ["install", "remove", "uninstall", "update", "list", "config"]
ISSUE_WORDS = [
    "update", "commit", "stats", "grep", "setup", "agents", "completions", "install", "read",
    "share", "shell", "token", "usage", "worktree", "gc", "list", "remove", "uninstall",
]  # fmt: skip
BUILT_HERE = {"acp", "agents", "models", "config", "plugin", "plugins", "sessions", "mcp", "batch"}


def test_every_omp_and_pi_word_is_reserved_or_built():
    words = {*OMP_WORDS, *PI_WORDS, *ISSUE_WORDS}
    assert [w for w in words if w not in RESERVED and w not in BUILT_HERE] == []


@pytest.mark.parametrize("word", sorted(RESERVED))
def test_a_reserved_word_is_refused_in_one_line(omp_harness, monkeypatch, capsys, word):
    script = omp_harness.script([{"text": "I am the model"}])
    monkeypatch.chdir(omp_harness.cwd)
    code = main([word, "--script", str(script)])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    [line] = err.splitlines()
    assert line.startswith(f"omp: `omp {word}` ") and f"omp -p {word}" in line, line
    assert not list((omp_harness.agent_dir / "sessions").rglob("*.jsonl"))


@pytest.mark.parametrize("word", ["update", "commit", "list"])
def test_the_words_of_the_issue_cost_nothing(omp_cli, word):
    script = omp_cli.script([{"text": "I am the model"}])
    proc = omp_cli(word, "--script", script)
    line = omp_cli.assert_one_line_error(proc)
    assert proc.returncode == 2
    assert f"`omp {word}`" in line
    assert omp_cli.all_session_files() == []


def test_the_hint_quotes_the_whole_prompt(omp_cli):
    proc = omp_cli("update", "the", "readme")
    line = omp_cli.assert_one_line_error(proc)
    assert proc.returncode == 2
    assert "omp -p 'update the readme'" in line


@pytest.mark.parametrize(
    "args",
    [
        ["-p", "update", "--script", "SCRIPT"],
        ["--print", "update", "--script", "SCRIPT"],
        ["-p", "launch", "update", "--script", "SCRIPT"],
        ["launch", "-p", "update", "--script", "SCRIPT"],
        ["-p", "--script", "SCRIPT", "--", "update"],
        ["--script", "SCRIPT", "-p", "update"],  # a plugin's flag and its value first
    ],
)
def test_a_reserved_word_is_still_a_prompt_when_asked(omp_cli, args):
    script = omp_cli.script([{"text": "updated"}])
    proc = omp_cli(*[str(script) if a == "SCRIPT" else a for a in args])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "updated\n"
    [session] = omp_cli.session_files()
    [user] = omp_cli.messages_of(omp_cli.read_session(session), "user")
    assert omp_cli.text_of(user) == "update"


def test_a_plugin_flag_value_is_not_taken_for_the_command(omp_cli):
    script = omp_cli.script([{"text": "I am the model"}])
    proc = omp_cli("--script", script, "update")
    omp_cli.assert_one_line_error(proc)
    assert proc.returncode == 2
    assert omp_cli.all_session_files() == []


def test_a_longer_argument_starting_with_a_reserved_word_is_a_prompt(omp_cli):
    script = omp_cli.script([{"text": "done"}])
    proc = omp_cli("update the readme", "-p", "--script", script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"


def test_plugin_words_point_at_omp_plugin(omp_cli):
    for word, hint in [("install", "omp plugin add"), ("remove", "omp plugin remove")]:
        proc = omp_cli(word, "some-plugin")
        line = omp_cli.assert_one_line_error(proc)
        assert proc.returncode == 2 and hint in line, line
