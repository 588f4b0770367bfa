"""A newcomer without keys runs the README's commands in order, in one project, against
the bundled demo (issue 8, item 13): every command exits 0 (the one that names a paid
model says in one line why it cannot), the demo says on stderr and in its answer that it
is a replay, and the answers differ with the prompt."""

from __future__ import annotations

import pytest

NOTICE = "replaying the recorded script"
IN_ANSWER = "bundled demo script"


@pytest.fixture
def project(omp_cli):
    (omp_cli.cwd / "README.md").write_text(
        "# Tiny project\n\nA calculator that adds numbers.\n", encoding="utf-8"
    )
    (omp_cli.cwd / "calc.py").write_text("def add(a, b):\n    return a - b\n", encoding="utf-8")
    return omp_cli


def _replayed(proc) -> str:
    """A demo run that worked: exit 0, the stderr notice, a replay statement in the answer."""
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert NOTICE in proc.stderr and "bundled demo" in proc.stderr, proc.stderr
    assert IN_ANSWER in proc.stdout, proc.stdout
    return proc.stdout


def test_every_readme_command_works_against_the_demo_in_one_project(project):
    cli = project
    answers: dict[str, str] = {}

    # The README's first command, then "Using it" from the top.
    answers["first"] = _replayed(cli("-p", "What is this project?"))
    assert "README.md" in answers["first"]

    earlier = set(cli.session_files())
    answers["summary"] = _replayed(cli("-p", "Summarise README.md"))
    [summary_session] = set(cli.session_files()) - earlier

    answers["piped"] = _replayed(cli(input="Summarise README.md\n"))

    streamed = cli("--mode", "json", "List the files")
    assert streamed.returncode == 0, streamed.stderr
    events = cli.json_lines(streamed.stdout)
    assert events[0]["type"] == "session"
    notices = [e["message"] for e in events if e["type"] == "notice"]
    assert any(NOTICE in n and "bundled demo" in n for n in notices), notices
    ran = [e["toolName"] for e in events if e["type"] == "tool_execution_end"]
    assert ran == ["ls"], ran
    listing = next(e for e in events if e["type"] == "tool_execution_end")
    assert not listing["isError"] and "calc.py" in str(listing["result"])
    final = [
        e["message"]
        for e in events
        if e["type"] == "message_end" and e["message"]["role"] == "assistant"
    ][-1]
    answers["files"] = cli.text_of(final)
    assert IN_ANSWER in answers["files"]

    script = cli.script([{"text": "my own script answered"}], name="my.jsonl")
    own = cli("-p", "--script", script, "...")
    assert own.returncode == 0, own.stderr
    assert own.stdout == "my own script answered\n"
    assert "replaying the script" in own.stderr and "no model is called" in own.stderr

    before = cli.session_files()
    answers["continued"] = _replayed(cli("-c", "-p", "and now?"))
    assert cli.session_files() == before, "-c started a new session"

    session_id = cli.read_session(summary_session)[0]["id"]
    answers["resumed"] = _replayed(cli("--resume", session_id[:6], "-p", "..."))
    prompts = [cli.text_of(m) for m in cli.messages_of(cli.read_session(summary_session), "user")]
    assert prompts == ["Summarise README.md", "..."], prompts

    answers["session"] = _replayed(cli("--session", "./s.jsonl", "-p", "..."))
    assert (cli.cwd / "s.jsonl").is_file()

    thinking = cli("-p", "/seqthink 3", "Fix the failing test")
    answers["seqthink"] = _replayed(thinking)
    [session] = [p for p in cli.session_files() if "sequential_thinking" in p.read_text()]
    results = cli.messages_of(cli.read_session(session), "toolResult")
    assert [r["toolName"] for r in results] == ["sequential_thinking"] * 3, results

    paid = cli("-p", "--model", "anthropic/claude-sonnet-5-5:high", "...")
    line = cli.assert_one_line_error(paid)
    assert "no API key" in line and "$ANTHROPIC_API_KEY" in line

    for words in (["models"], ["models", "sonnet"], ["plugins"], ["--help"]):
        proc = cli(*words)
        assert proc.returncode == 0, (words, proc.stderr)
        assert proc.stdout.strip(), words

    # A replay, but not the same canned answer to everything.
    varied = {answers[k] for k in ("first", "files", "continued", "resumed", "seqthink")}
    assert len(varied) == 5, answers
    assert answers["summary"] == answers["piped"]


def test_the_demo_answers_more_prompts_than_it_has_lines(project):
    """The demo is never 'past what was recorded', however long the session grows."""
    for prompt in ("What is this project?", "and now?", "List the files", "hello", "and now?"):
        _replayed(project("-c", "-p", prompt))
    [session] = project.session_files()
    assert len(project.messages_of(project.read_session(session), "user")) == 5


def test_the_demo_without_a_readme_says_there_is_none(omp_cli):
    out = _replayed(omp_cli("-p", "Summarise README.md"))
    assert "no README.md" in out
