"""The workspace tree in the system prompt (setting ``includeWorkspaceTree``): off by
default; on, the search service's tree (natives or pure Python) sits before the date
line, taken once per session so the prompt stays the same while files change."""

from __future__ import annotations

import json

import omp
from omp_tool_search.prompt_tree import with_tree


class PromptProbe:
    """Records the system prompt sections each prompt starts with (after the others)."""

    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    @omp.hookimpl(trylast=True)
    def omp_before_agent_start(self, event):
        self.seen.append(list(event.system_prompt))


def make_workspace(root) -> None:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "README.md").write_text("# hi\n")
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "out.bin").write_text("ignored\n")


def prompts_seen(omp_harness, settings: dict) -> list[list[str]]:
    """Two prompts of one session; a file is added after the first one has started."""
    (omp_harness.agent_dir / "settings.json").write_text(json.dumps(settings))
    make_workspace(omp_harness.cwd)
    probe = PromptProbe()
    session = omp_harness.session([probe], script=[{"text": "one"}, {"text": "two"}])

    async def add_a_file_later(_session) -> None:
        if probe.seen:
            (omp_harness.cwd / "later.txt").write_text("new\n")

    omp_harness.run(session, "first", "second", during=add_a_file_later)
    return probe.seen


def test_the_tree_is_off_by_default(omp_harness) -> None:
    for sections in prompts_seen(omp_harness, {}):
        assert not any("<workspace-tree>" in section for section in sections)


def test_the_setting_puts_the_tree_before_the_date_line_once_per_session(omp_harness) -> None:
    first, second = prompts_seen(omp_harness, {"includeWorkspaceTree": True})
    assert (omp_harness.cwd / "later.txt").exists()
    tree = next(section for section in first if section.startswith("<workspace-tree>"))
    assert first.index(tree) == len(first) - 2
    assert first[-1].startswith("Current date:")
    lines = tree.splitlines()
    assert lines[-1] == "</workspace-tree>"
    assert any(line.startswith("README.md") for line in lines), lines
    assert any(line.startswith("src/") for line in lines), lines
    assert not any("build" in line or "later.txt" in line for line in lines), lines
    assert second == first  # one tree for the session: the file added later is not in it


def test_with_tree_appends_when_there_is_no_date_line() -> None:
    assert with_tree(["a", "Current date: x"], "T") == ["a", "T", "Current date: x"]
    assert with_tree(["a"], "T") == ["a", "T"]
