"""System prompt: context files, --system-prompt / --append-system-prompt, sections."""

from __future__ import annotations

import datetime
import os
from pathlib import Path

import pytest
from omp.base.errors import OmpError
from omp.runtime.system_prompt import (
    build_system_prompt,
    find_context_files,
    harness_prompt,
    join_system_prompt,
    read_text_or_file,
)

TOOLS = [
    ("read", "Read a file.\nLonger explanation that must not appear."),
    ("bash", "\n  Run a shell command.  \nMore."),
    ("quiet", ""),
]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """root/a/b/c with context files at several levels, and an agent dir beside it."""
    root = tmp_path / "root"
    cwd = root / "a" / "b" / "c"
    cwd.mkdir(parents=True)
    agent = tmp_path / "agent"
    agent.mkdir()
    return {"root": root, "cwd": cwd, "agent": agent}


# --- find_context_files --------------------------------------------------------------------


def test_context_files_order_and_agents_md_wins(tree) -> None:
    root, cwd, agent = tree["root"], tree["cwd"], tree["agent"]
    global_file = write(agent / "AGENTS.md", "global")
    write(agent / "CLAUDE.md", "global claude (ignored)")
    top = write(root / "CLAUDE.md", "root claude")
    a_agents = write(root / "a" / "AGENTS.md", "a agents")
    write(root / "a" / "CLAUDE.md", "a claude (ignored)")
    # root/a/b has none
    c_claude = write(cwd / "CLAUDE.md", "c claude")

    found = find_context_files(cwd, agent)

    resolved = [p.resolve() for p in found]
    assert resolved == [p.resolve() for p in (global_file, top, a_agents, c_claude)]


def test_global_claude_md_used_when_no_agents_md(tree) -> None:
    agent, cwd = tree["agent"], tree["cwd"]
    global_claude = write(agent / "CLAUDE.md", "g")
    assert [p.resolve() for p in find_context_files(cwd, agent)] == [global_claude.resolve()]


def test_no_context_files(tree) -> None:
    assert find_context_files(tree["cwd"], tree["agent"]) == []


def test_missing_agent_dir_is_fine(tree, tmp_path: Path) -> None:
    cwd_file = write(tree["cwd"] / "AGENTS.md", "x")
    found = find_context_files(tree["cwd"], tmp_path / "nowhere")
    assert [p.resolve() for p in found] == [cwd_file.resolve()]


def test_no_duplicate_when_agent_dir_is_an_ancestor(tree) -> None:
    root, cwd = tree["root"], tree["cwd"]
    shared = write(root / "a" / "AGENTS.md", "shared")
    found = find_context_files(cwd, root / "a")
    assert [p.resolve() for p in found] == [shared.resolve()]


def test_directory_named_agents_md_is_ignored(tree) -> None:
    cwd = tree["cwd"]
    (cwd / "AGENTS.md").mkdir()
    claude = write(cwd / "CLAUDE.md", "c")
    assert [p.resolve() for p in find_context_files(cwd, tree["agent"])] == [claude.resolve()]


def test_relative_cwd(tree, monkeypatch) -> None:
    root, cwd = tree["root"], tree["cwd"]
    a = write(root / "a" / "AGENTS.md", "a")
    monkeypatch.chdir(root / "a")
    found = find_context_files(Path("b/c"), tree["agent"])
    assert [p.resolve() for p in found] == [a.resolve()]
    assert all(p.is_absolute() for p in found)
    assert cwd.exists()


# --- read_text_or_file ---------------------------------------------------------------------


def test_read_text_or_file_literal(tmp_path: Path) -> None:
    assert read_text_or_file("Be a pirate.", tmp_path) == "Be a pirate."
    assert read_text_or_file("", tmp_path) == ""
    assert read_text_or_file("line one\nline two", tmp_path) == "line one\nline two"
    assert read_text_or_file("x" * 5000, tmp_path) == "x" * 5000  # name too long: text
    assert read_text_or_file("nul\0byte", tmp_path) == "nul\0byte"


def test_read_text_or_file_relative_and_absolute(tmp_path: Path) -> None:
    path = write(tmp_path / "prompts" / "sys.md", "From a file.\n")
    assert read_text_or_file("prompts/sys.md", tmp_path) == "From a file.\n"
    assert read_text_or_file(str(path), tmp_path / "elsewhere") == "From a file.\n"


def test_read_text_or_file_directory_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    with pytest.raises(OmpError) as info:
        read_text_or_file("dir", tmp_path)
    message = str(info.value)
    assert str(tmp_path / "dir") in message
    assert "\n" not in message


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions")
def test_read_text_or_file_unreadable_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "secret.md", "x")
    path.chmod(0)
    try:
        with pytest.raises(OmpError, match="cannot read prompt file"):
            read_text_or_file("secret.md", tmp_path)
    finally:
        path.chmod(0o600)


def test_read_text_or_file_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "bin.md").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(OmpError, match="not UTF-8"):
        read_text_or_file("bin.md", tmp_path)


# --- build_system_prompt -------------------------------------------------------------------


def test_harness_prompt_is_packaged() -> None:
    text = harness_prompt()
    assert text.startswith("You are omp")
    assert "{" not in text  # no unfilled placeholders


def test_sections_in_order(tree) -> None:
    cwd, agent = tree["cwd"], tree["agent"]
    write(cwd / "AGENTS.md", "Use tabs.")
    sections = build_system_prompt(
        cwd=cwd, agent_dir=agent, tools=TOOLS, date="2025-01-02", append="Extra rule."
    )
    assert len(sections) == 5
    harness, tools, context, append, last = sections
    assert harness == harness_prompt()
    assert tools.startswith("# Tools")
    assert context.startswith("# Project context")
    assert append == "Extra rule."
    assert last == f"Current date: 2025-01-02\nCurrent working directory: {cwd.resolve()}"


def test_tools_listed_with_first_line_only(tree) -> None:
    sections = build_system_prompt(cwd=tree["cwd"], agent_dir=tree["agent"], tools=TOOLS)
    tools = sections[1]
    assert "- read: Read a file." in tools.splitlines()
    assert "- bash: Run a shell command." in tools.splitlines()
    assert "- quiet" in tools.splitlines()
    assert "Longer explanation" not in tools
    assert "More." not in tools


def test_no_tools(tree) -> None:
    sections = build_system_prompt(cwd=tree["cwd"], agent_dir=tree["agent"], tools=[])
    assert "No tools are available" in sections[1]


def test_context_section_wraps_files(tree) -> None:
    root, cwd, agent = tree["root"], tree["cwd"], tree["agent"]
    g = write(agent / "AGENTS.md", "Global rule.\n")
    r = write(root / "CLAUDE.md", "Root rule.\n")
    c = write(cwd / "AGENTS.md", "Local rule.\n")
    prompt = join_system_prompt(
        build_system_prompt(cwd=cwd, agent_dir=agent, tools=[], date="2025-01-01")
    )
    blocks = [
        f'<file path="{g}">\nGlobal rule.\n</file>',
        f'<file path="{r.resolve()}">\nRoot rule.\n</file>',
        f'<file path="{c.resolve()}">\nLocal rule.\n</file>',
    ]
    positions = [prompt.index(b) for b in blocks]
    assert positions == sorted(positions)
    assert prompt.index("# Project context") < positions[0]


def test_no_context_section_without_files(tree) -> None:
    sections = build_system_prompt(cwd=tree["cwd"], agent_dir=tree["agent"], tools=[])
    assert not any(s.startswith("# Project context") for s in sections)
    assert len(sections) == 3


def test_replace_from_text_keeps_other_sections(tree) -> None:
    cwd, agent = tree["cwd"], tree["agent"]
    write(cwd / "AGENTS.md", "Context stays.")
    replace = read_text_or_file("You are a pirate.", cwd)
    sections = build_system_prompt(
        cwd=cwd, agent_dir=agent, tools=TOOLS, date="2025-01-02", replace=replace
    )
    prompt = join_system_prompt(sections)
    assert sections[0] == "You are a pirate."
    assert "You are omp" not in prompt
    assert "- read: Read a file." in prompt
    assert "Context stays." in prompt
    assert prompt.endswith(f"Current working directory: {cwd.resolve()}")


def test_replace_and_append_from_files(tree) -> None:
    cwd, agent = tree["cwd"], tree["agent"]
    write(cwd / "SYSTEM.md", "Replaced from file.\n")
    write(cwd / "APPEND.md", "Appended from file.\n")
    sections = build_system_prompt(
        cwd=cwd,
        agent_dir=agent,
        tools=[],
        date="2025-01-02",
        replace=read_text_or_file("SYSTEM.md", cwd),
        append=read_text_or_file("APPEND.md", cwd),
    )
    assert sections[0] == "Replaced from file."
    assert sections[-2] == "Appended from file."
    assert sections[-1].startswith("Current date: 2025-01-02")


def test_append_from_text_keeps_harness(tree) -> None:
    sections = build_system_prompt(
        cwd=tree["cwd"], agent_dir=tree["agent"], tools=[], append="Talk like a pirate."
    )
    assert sections[0] == harness_prompt()
    assert sections[-2] == "Talk like a pirate."


def test_empty_replace_drops_harness(tree) -> None:
    sections = build_system_prompt(cwd=tree["cwd"], agent_dir=tree["agent"], tools=[], replace="")
    assert sections[0].startswith("# Tools")


def test_date_defaults_to_today(tree) -> None:
    sections = build_system_prompt(cwd=tree["cwd"], agent_dir=tree["agent"], tools=[])
    today = datetime.date.today().isoformat()
    assert f"Current date: {today}" in sections[-1]
    assert f"Current working directory: {tree['cwd'].resolve()}" in sections[-1]


def test_join_system_prompt() -> None:
    assert join_system_prompt(["a\n", "", "  ", "b", "\nc"]) == "a\n\nb\n\nc"
    assert join_system_prompt([]) == ""
