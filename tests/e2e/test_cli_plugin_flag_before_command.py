"""A plugin's flag and its value before a command (`omp --script F plugin list`) leave
the command a command, exactly as a built-in flag does (`omp --thinking off plugin
list`): no prompt reaches the model, and no project code runs (issue 25)."""

from __future__ import annotations

import json

import pytest

EXTENSION = """\
from pathlib import Path
Path({marker!r}).write_text("ran")
"""


@pytest.mark.parametrize("flag", [["--script", "SCRIPT"], ["--thinking", "off"]])
def test_a_flag_before_a_command_family_keeps_it_a_command(omp_cli, flag):
    script = omp_cli.script([{"text": "I am the model"}, {"text": "twice"}])
    args = [str(script) if a == "SCRIPT" else a for a in flag]
    proc = omp_cli(*args, "plugin", "list")
    assert proc.returncode == 0, proc.stderr
    assert "plugin_manager" in proc.stdout and "scripted" in proc.stdout
    assert "I am the model" not in proc.stdout
    assert omp_cli.all_session_files() == []


@pytest.mark.parametrize("command", [["plugin", "list"], ["plugins"], ["models"]])
def test_a_plugin_flag_before_a_command_runs_no_project_code(omp_cli, command):
    marker = _trusted_project_extension(omp_cli)
    script = omp_cli.script([{"text": "I am the model"}])
    plain = omp_cli(*command)
    assert plain.returncode == 0, plain.stderr
    assert not marker.exists()  # what the command does without the flag
    proc = omp_cli("--script", script, *command)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    assert omp_cli.all_session_files() == []


def _trusted_project_extension(omp_cli):
    marker = omp_cli.root / "project-extension.ran"
    folder = omp_cli.cwd / ".omp" / "extensions"
    folder.mkdir(parents=True)
    (folder / "project.py").write_text(EXTENSION.format(marker=str(marker)))
    (omp_cli.agent_dir / "settings.json").write_text(
        json.dumps({"trustedDirectories": [str(omp_cli.cwd)]})
    )
    return marker


def test_a_prompt_after_a_plugin_flag_still_loads_the_trusted_project(omp_cli):
    marker = _trusted_project_extension(omp_cli)
    script = omp_cli.script([{"text": "one"}, {"text": "two"}])
    # --hide-thinking takes no value: "fix" is the first prompt, "plugin" the second
    proc = omp_cli("--hide-thinking", "fix", "plugin", "--print", "--script", script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "two"
    assert marker.exists()


def test_recover_after_a_plugin_flag_is_the_recover_command(omp_cli):
    script = omp_cli.script([{"text": "I am the model"}])
    proc = omp_cli("--script", script, "recover")
    assert proc.returncode == 0, proc.stderr
    assert "I am the model" not in proc.stdout
    assert omp_cli.all_session_files() == []
