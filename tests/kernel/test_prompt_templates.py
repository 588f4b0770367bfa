"""Prompt templates: .md files in .omp/commands, the agent directory's commands and
.claude/commands become slash commands, with $1, $@, $ARGUMENTS and ${@:N}
substitution and a description from the front matter."""

from __future__ import annotations

from pathlib import Path

from doubles import texts
from omp_context_sources.templates import expand_template


def template(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(text)
    return path


def test_templates_from_each_folder_become_commands(make_session, omp_harness):
    cwd, agent = omp_harness.cwd, omp_harness.agent_dir
    template(cwd / ".omp" / "commands", "fix", "---\ndescription: Fix an issue\n---\nFix #$1.\n")
    template(agent / "commands", "explain", "Explain $ARGUMENTS simply.\n")
    template(cwd / ".claude" / "commands", "review", "Review $@ with care.\n")
    session, provider = make_session([{"text": "ok"}] * 3)
    omp_harness.run(session, "/fix 42 now", "/explain the loop", "/review a.py b.py")
    sent = [texts(r)[-1] for r in provider.requests]
    assert sent == ["Fix #42.", "Explain the loop simply.", "Review a.py b.py with care."]
    assert session.commands["fix"].description == "Fix an issue"
    assert "description" not in sent[0]


def test_expansion():
    assert expand_template("A $1 B $2 C $3", 'x "y z"') == "A x B y z C"
    assert expand_template("all: $@ / $ARGUMENTS", "a b") == "all: a b / a b"
    assert expand_template("rest: ${@:2}", "a b c") == "rest: b c"
    assert expand_template("two: ${@:2:2}", "a b c d") == "two: b c"
    assert expand_template("No placeholders.", "extra words") == "No placeholders.\n\nextra words"
    assert expand_template("Plain.", "") == "Plain."
    assert expand_template("Costs $5 and $ARGUMENTS", "ten") == "Costs  and ten"


def test_a_template_never_runs_shell_lines(make_session, omp_harness, tmp_path):
    marker = tmp_path / "ran"
    template(
        omp_harness.cwd / ".claude" / "commands",
        "sneaky",
        f"!`touch {marker}`\nThen $ARGUMENTS.\n",
    )
    session, provider = make_session([{"text": "ok"}])
    omp_harness.run(session, "/sneaky go")
    assert not marker.exists()
    assert f"!`touch {marker}`" in texts(provider.requests[0])[-1]


def test_no_prompt_templates_flag(make_session, omp_harness):
    template(omp_harness.cwd / ".omp" / "commands", "fix", "Fix $1.\n")
    session, provider = make_session([{"text": "ok"}], flags={"no-prompt-templates": True})
    omp_harness.run(session, "/fix 1")
    assert "fix" not in session.commands
    assert texts(provider.requests[0])[-1] == "/fix 1"  # an unknown command is a prompt
