"""Agent definitions: the bundled ones, where others come from and which wins, trust,
broken files, task.disabledAgents, and ``omp agents``."""

from __future__ import annotations

import json
from pathlib import Path

import omp
import pytest
from omp_tool_task.agents import bundled_agents, discover_agents, parse_agent
from omp_tool_task.agents_cmd import run as agents_command


def _agent(folder: Path, name: str, description: str, extra: str = "", file: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (file or f"{name}.md")
    path.write_text(
        f"---\nname: {name}\ndescription: {description}\n{extra}---\nYou are {name}.\n",
        encoding="utf-8",
    )
    return path


def test_bundled_agents_are_task_scout_and_reviewer():
    agents = bundled_agents()
    assert sorted(agents) == ["reviewer", "scout", "task"]
    scout, reviewer = agents["scout"], agents["reviewer"]
    assert scout.tools == ("read", "grep", "find", "ls") and scout.model == "@smol"
    assert reviewer.model == "@slow" and reviewer.spawns == ("scout",)
    assert agents["task"].tools is None and agents["task"].model is None
    assert all(a.source == "bundled" and a.system_prompt for a in agents.values())


def test_front_matter_lists_roles_and_thinking_spellings():
    agent = parse_agent(
        "---\nname: a\ndescription: d\ntools:\n  - read\n  - grep\nmodel: smol\n"
        'thinking: high\nspawns: "*"\noutput:\n  properties:\n    x: 1\n---\nbody\n',
        "user",
    )
    assert agent.tools == ("read", "grep") and agent.model == "smol"
    assert agent.thinking_level == "high" and agent.spawns == "*"
    assert agent.system_prompt == "body"
    assert parse_agent("---\nname: b\ndescription: d\ntools: [read, ls]\n---\n", "user").tools == (
        "read",
        "ls",
    )


def test_project_wins_over_claude_over_user_over_bundled(tmp_path):
    cwd, agent_dir = tmp_path / "work", tmp_path / "agent"
    _agent(cwd / ".omp" / "agents", "scout", "project scout")
    _agent(cwd / ".claude" / "agents", "scout", "claude scout")
    _agent(cwd / ".claude" / "agents", "helper", "claude helper")
    _agent(agent_dir / "agents", "helper", "user helper")
    _agent(agent_dir / "agents", "task", "user task")
    agents = discover_agents(cwd, agent_dir, trusted=True)
    assert agents["scout"].description == "project scout"
    assert agents["scout"].source == "project"
    assert agents["helper"].description == "claude helper"
    assert agents["task"].description == "user task" and agents["task"].source == "user"
    assert agents["reviewer"].source == "bundled"
    assert list(agents) == sorted(agents)


def test_an_untrusted_projects_agents_are_ignored(tmp_path):
    cwd, agent_dir = tmp_path / "work", tmp_path / "agent"
    _agent(cwd / ".omp" / "agents", "scout", "project scout")
    _agent(cwd / ".claude" / "agents", "evil", "from the repository")
    agents = discover_agents(cwd, agent_dir, trusted=False)
    assert agents["scout"].source == "bundled"
    assert "evil" not in agents


def test_a_broken_agent_file_is_one_warning_naming_it(tmp_path):
    agent_dir = tmp_path / "agent"
    broken = _agent(agent_dir / "agents", "", "no name", file="nameless.md")
    (agent_dir / "agents" / "bytes.md").write_bytes(b"---\nname: \xff\n---\n")
    _agent(agent_dir / "agents", "good", "fine")
    said: list[str] = []
    agents = discover_agents(tmp_path / "work", agent_dir, trusted=False, warn=said.append)
    assert "good" in agents and "task" in agents
    assert len(said) == 2
    assert any(str(broken) in line and "name and a description" in line for line in said)
    assert all("\n" not in line and "skipped" in line for line in said)


def test_disabled_agents_are_left_out(tmp_path):
    agents = discover_agents(tmp_path, tmp_path / "agent", trusted=False, disabled=["scout"])
    assert sorted(agents) == ["reviewer", "task"]


@pytest.fixture
def command_context(omp_harness):
    def make(settings: dict | None = None) -> omp.SubcommandContext:
        if settings is not None:
            (omp_harness.agent_dir / "settings.json").write_text(json.dumps(settings))
        return omp.SubcommandContext(omp_harness.runtime(builtins=[]))

    return make


def test_omp_agents_lists_name_source_model_tools_and_description(
    omp_harness, command_context, capsys
):
    _agent(omp_harness.agent_dir / "agents", "helper", "Helps out", "tools: read\nmodel: @slow\n")
    assert agents_command([], command_context()) == 0
    lines = capsys.readouterr().out.splitlines()
    helper = lines.index(next(line for line in lines if line.startswith("helper ")))
    assert lines[helper].split() == ["helper", "user", "model:", "@slow", "tools:", "read"]
    assert lines[helper + 1].strip() == "Helps out"
    scout = next(line for line in lines if line.startswith("scout "))
    assert "bundled" in scout and "@smol" in scout and "read, grep, find, ls" in scout
    assert any("task" in line and "parent's tools" in line for line in lines)


def test_omp_agents_json_and_trust_and_disabled(omp_harness, command_context, capsys):
    _agent(omp_harness.cwd / ".omp" / "agents", "scout", "Our scout")
    ctx = command_context({"task": {"disabledAgents": ["reviewer"]}})
    assert agents_command(["--json"], ctx) == 0
    rows = {row["name"]: row for row in map(json.loads, capsys.readouterr().out.splitlines())}
    assert sorted(rows) == ["scout", "task"]
    assert rows["scout"]["source"] == "bundled"  # the directory is not trusted
    ctx = command_context({"trustedDirectories": [str(omp_harness.cwd)]})
    assert agents_command(["--json"], ctx) == 0
    rows = {row["name"]: row for row in map(json.loads, capsys.readouterr().out.splitlines())}
    assert rows["scout"]["source"] == "project" and rows["scout"]["description"] == "Our scout"
    assert rows["scout"]["path"].endswith("scout.md")


def test_omp_agents_refuses_an_unknown_argument_in_one_line(command_context, capsys):
    assert agents_command(["--bogus"], command_context()) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--bogus" in err


def test_the_plugin_registers_omp_agents(omp_harness, capsys):
    assert omp_harness.run_subcommand("agents", "--json", builtins=["task"]) == 0
    names = [json.loads(line)["name"] for line in capsys.readouterr().out.splitlines()]
    assert names == ["reviewer", "scout", "task"]
