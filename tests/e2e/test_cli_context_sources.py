"""The context the model sees, through the real CLI: rules, skills, prompt templates,
context files and SYSTEM.md from a fixture project, each source switched off by its
flag. The project is not trusted: these are prompt text, so they load anyway, and
nothing in them runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DUMP = """\
import json
import os

import omp


@omp.hookimpl
def omp_before_agent_start(event):
    with open(os.environ["OMP_TEST_DUMP"], "a", encoding="utf-8") as out:
        out.write(json.dumps({"system": "\\n\\n".join(event.system_prompt),
                              "prompt": event.prompt}) + "\\n")
"""

FLAGS = ("--no-rules", "--no-skills", "--no-context-files", "--no-prompt-templates")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def project(omp_cli) -> dict[str, Path]:
    cwd = omp_cli.cwd
    marker = omp_cli.root / "ran"
    write(cwd / "AGENTS.md", "CONTEXT-FILE-TEXT\n")
    write(cwd / ".cursor" / "rules" / "always.mdc", "---\nalwaysApply: true\n---\nRULE-TEXT\n")
    write(
        cwd / ".omp" / "skills" / "pdf" / "SKILL.md",
        "---\nname: pdf\ndescription: SKILL-DESC\n---\nx\n",
    )
    write(cwd / ".claude" / "commands" / "fix.md", f"Fix issue $1 (TEMPLATE).\n!touch {marker}\n")
    write(cwd / ".omp" / "SYSTEM.md", "SYSTEM-OVERRIDE\n")
    dump = omp_cli.root / "dump.jsonl"
    return {
        "dump": dump,
        "marker": marker,
        "ext": omp_cli.extension(DUMP, "dump.py"),
        "script": omp_cli.script([{"text": "ok", "repeat": True}]),
    }


def run(omp_cli, project, *flags: str) -> dict[str, str]:
    project["dump"].unlink(missing_ok=True)
    proc = omp_cli(
        "-p",
        "--script",
        project["script"],
        "-e",
        project["ext"],
        *flags,
        "/fix 7",
        env={"OMP_TEST_DUMP": str(project["dump"])},
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(project["dump"].read_text().splitlines()[-1])


def test_every_source_reaches_the_model_in_an_untrusted_project(omp_cli, project):
    seen = run(omp_cli, project)
    system = seen["system"]
    assert system.startswith("SYSTEM-OVERRIDE")
    for text in ("CONTEXT-FILE-TEXT", "RULE-TEXT", "SKILL-DESC"):
        assert text in system
    assert seen["prompt"].startswith("Fix issue 7 (TEMPLATE).")
    assert not project["marker"].exists()  # a template's shell line is text, never run


def test_each_flag_switches_its_source_off(omp_cli, project):
    off = {
        "--no-rules": "RULE-TEXT",
        "--no-skills": "SKILL-DESC",
        "--no-context-files": "CONTEXT-FILE-TEXT",
    }
    for flag, text in off.items():
        seen = run(omp_cli, project, flag)
        assert text not in seen["system"], flag
        assert all(other in seen["system"] for other in off.values() if other != text), flag
    seen = run(omp_cli, project, "--no-prompt-templates")
    assert seen["prompt"] == "/fix 7"


def test_help_lists_the_flags(omp_cli):
    proc = omp_cli("--help")
    assert proc.returncode == 0
    for flag in FLAGS:
        assert flag in proc.stdout


def test_the_plugin_is_listed_and_disabled_by_its_name(omp_cli, project):
    listed = omp_cli("plugin", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    plugins = {p["name"]: p for p in json.loads(listed.stdout)}
    assert plugins["context_sources"]["distribution"] == "omp-context-sources"
    assert plugins["context_sources"]["enabled"] is True
    disabled = omp_cli("plugin", "disable", "context_sources")
    assert disabled.returncode == 0, disabled.stderr
    seen = run(omp_cli, project)
    assert "RULE-TEXT" not in seen["system"] and "SKILL-DESC" not in seen["system"]
    assert "CONTEXT-FILE-TEXT" in seen["system"]  # the kernel's own source stays
    assert seen["prompt"] == "/fix 7"  # no template: the text goes to the model as typed
