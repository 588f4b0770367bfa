"""SYSTEM.md replaces the harness prompt and APPEND_SYSTEM.md adds to the end, from
the project's .omp folder and the agent directory; --system-prompt and
--append-system-prompt still have the last word."""

from __future__ import annotations

from pathlib import Path

from omp.runtime.system_prompt import build_system_prompt, harness_prompt, join_system_prompt


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def prompt(cwd: Path, agent: Path, **options) -> str:
    return join_system_prompt(build_system_prompt(cwd=cwd, agent_dir=agent, tools=[], **options))


def test_the_agent_directorys_system_md_replaces_the_harness_prompt(tmp_path):
    cwd, agent = tmp_path / "work", tmp_path / "agent"
    cwd.mkdir()
    write(agent / "SYSTEM.md", "You are a careful pirate.\n")
    text = prompt(cwd, agent)
    assert text.startswith("You are a careful pirate.")
    assert harness_prompt() not in text
    assert "# Tools" in text


def test_the_projects_system_md_wins_over_the_users(tmp_path):
    cwd, agent = tmp_path / "work", tmp_path / "agent"
    write(agent / "SYSTEM.md", "User prompt.\n")
    write(cwd / ".omp" / "SYSTEM.md", "Project prompt.\n")
    text = prompt(cwd, agent)
    assert text.startswith("Project prompt.") and "User prompt." not in text


def test_append_system_md_from_both_places_goes_last(tmp_path):
    cwd, agent = tmp_path / "work", tmp_path / "agent"
    write(agent / "APPEND_SYSTEM.md", "User addition.\n")
    write(cwd / ".omp" / "APPEND_SYSTEM.md", "Project addition.\n")
    sections = build_system_prompt(cwd=cwd, agent_dir=agent, tools=[], append="Flag addition.")
    assert sections[0] == harness_prompt()
    assert sections[-4:-1] == ["User addition.", "Project addition.", "Flag addition."]


def test_the_flag_replaces_system_md(tmp_path):
    cwd, agent = tmp_path / "work", tmp_path / "agent"
    write(cwd / ".omp" / "SYSTEM.md", "Project prompt.\n")
    text = prompt(cwd, agent, replace="From the flag.")
    assert text.startswith("From the flag.") and "Project prompt." not in text


def test_no_context_files_leaves_out_agents_md_only(tmp_path):
    cwd, agent = tmp_path / "work", tmp_path / "agent"
    write(cwd / "AGENTS.md", "Use tabs.\n")
    write(cwd / ".omp" / "APPEND_SYSTEM.md", "Still here.\n")
    text = prompt(cwd, agent, context_files=False)
    assert "Use tabs." not in text and "Still here." in text
    assert "Use tabs." in prompt(cwd, agent)
