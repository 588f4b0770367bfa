"""resources_discover: at session start plugins contribute prompt templates and skills
(and theme paths, kept for interactive modes); templates become slash commands,
skills become ``/skill:<name>`` commands and are listed in the system prompt."""

from __future__ import annotations

import omp
from doubles import texts
from omp.plugin.contrib import Command


def _resources(root):
    prompts = root / "prompts"
    prompts.mkdir()
    (prompts / "review.md").write_text("Review $ARGUMENTS carefully; start with $1.\n")
    (prompts / "notes.txt").write_text("not a template")
    skill = root / "skills" / "pdf"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: pdf\ndescription: Read and fill PDF forms\n---\nUse pdftotext first.\n"
    )
    return prompts, root / "skills"


def test_discovered_prompts_and_skills_become_commands_and_context(make_session, omp_harness):
    prompts, skills = _resources(omp_harness.root)
    seen: list = []

    class Contributor:
        @omp.hookimpl
        def omp_resources_discover(self, event):
            seen.append((event.cwd, event.reason))
            return {
                "prompt_paths": [str(prompts)],
                "skill_paths": [str(skills)],
                "theme_paths": ["themes"],
            }

    session, provider = make_session([{"text": "ok"}, {"text": "ok"}], plugins=[Contributor()])
    omp_harness.run(session, "/review a.py b.py", "/skill:pdf fill form.pdf")
    assert seen == [(str(omp_harness.cwd), "startup")]
    first = texts(provider.requests[0])
    assert first[-1] == "Review a.py b.py carefully; start with a.py."
    second = texts(provider.requests[1])
    assert "Use pdftotext first." in second[-1] and "fill form.pdf" in second[-1]
    system = provider.requests[0].system_prompt
    assert "pdf" in system and "Read and fill PDF forms" in system
    assert str(skills / "pdf" / "SKILL.md") in system
    assert session.resources.theme_paths == [str(omp_harness.cwd / "themes")]
    assert "notes" not in session.commands


def test_each_handler_sees_what_earlier_ones_found(make_session, omp_harness):
    prompts, _ = _resources(omp_harness.root)
    seen: list = []

    class First:
        @omp.hookimpl(tryfirst=True)
        def omp_resources_discover(self):
            return {"prompt_paths": [str(prompts)]}

    class Second:
        @omp.hookimpl
        def omp_resources_discover(self, event):
            seen.append(list(event.prompt_paths))

    session, _ = make_session([], plugins=[First(), Second()])
    omp_harness.run(session)
    assert seen == [[str(prompts)]]


def test_a_template_never_replaces_a_plugin_command(make_session, omp_harness):
    prompts, _ = _resources(omp_harness.root)

    class Own:
        @omp.hookimpl
        def omp_register_commands(self, api):
            return [Command("review", "the plugin's own", lambda args, ctx: None)]

        @omp.hookimpl
        def omp_resources_discover(self):
            return {"prompt_paths": [str(prompts)]}

    session, provider = make_session([], plugins=[Own()])
    log = omp_harness.run(session, "/review x")
    assert provider.requests == []  # the plugin's command ran, not the template
    assert any("review" in e.message for e in log.of("notice"))
