"""Skills: SKILL.md folders under .omp/skills, the agent directory's skills and
.claude/skills, each from a fixture directory; listed by name and description in the
system prompt, read in full on demand, invocable as /skill:name."""

from __future__ import annotations

from pathlib import Path

from doubles import texts


def skill(folder: Path, name: str, description: str, body: str, extra: str = "") -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}\n")
    return path


def test_skills_from_each_folder_are_listed_not_inlined(make_session, omp_harness):
    cwd, agent = omp_harness.cwd, omp_harness.agent_dir
    own = skill(cwd / ".omp" / "skills", "pdf", "Fill PDF forms", "Use pdftotext first.")
    user = skill(agent / "skills", "deploy", "Ship to production", "Run make deploy.")
    claude = skill(cwd / ".claude" / "skills", "review", "Review a diff", "Check the tests.")
    session, provider = make_session([{"text": "ok"}])
    omp_harness.run(session, "hi")
    system = provider.requests[0].system_prompt
    for name, description, path in (
        ("pdf", "Fill PDF forms", own),
        ("deploy", "Ship to production", user),
        ("review", "Review a diff", claude),
    ):
        assert f"- {name}: {description} ({path})" in system
    assert "Use pdftotext first." not in system and "Run make deploy." not in system
    assert {"skill:pdf", "skill:deploy", "skill:review"} <= set(session.commands)


def test_skill_command_sends_the_instructions_with_their_folder(make_session, omp_harness):
    path = skill(omp_harness.cwd / ".claude" / "skills", "pdf", "PDFs", "Run ./fill.sh FILE.")
    session, provider = make_session([{"text": "ok"}])
    omp_harness.run(session, "/skill:pdf invoice.pdf")
    sent = texts(provider.requests[0])[-1]
    assert "Run ./fill.sh FILE." in sent and sent.rstrip().endswith("invoice.pdf")
    assert str(path.parent) in sent  # relative paths in the skill resolve from there


def test_a_project_skill_shadows_the_users_one_of_the_same_name(make_session, omp_harness):
    skill(omp_harness.cwd / ".omp" / "skills", "pdf", "Project PDFs", "Project way.")
    skill(omp_harness.agent_dir / "skills", "pdf", "User PDFs", "User way.")
    session, provider = make_session([{"text": "ok"}, {"text": "ok"}])
    log = omp_harness.run(session, "/skill:pdf")
    system = provider.requests[0].system_prompt
    assert "Project PDFs" in system and "User PDFs" not in system
    assert "Project way." in texts(provider.requests[0])[-1]
    assert not [n for n in log.of("notice") if "pdf" in n.message]


def test_hidden_skills_are_commands_only(make_session, omp_harness):
    skill(
        omp_harness.cwd / ".omp" / "skills",
        "secret",
        "Not for the model",
        "x",
        extra="disable-model-invocation: true\n",
    )
    session, provider = make_session([{"text": "ok"}])
    omp_harness.run(session, "hi")
    assert "Not for the model" not in provider.requests[0].system_prompt
    assert "skill:secret" in session.commands


def test_no_skills_flag(make_session, omp_harness):
    skill(omp_harness.cwd / ".omp" / "skills", "pdf", "Fill PDF forms", "x")
    session, provider = make_session([{"text": "ok"}], flags={"no-skills": True})
    omp_harness.run(session, "hi")
    assert "Fill PDF forms" not in provider.requests[0].system_prompt
    assert "skill:pdf" not in session.commands
