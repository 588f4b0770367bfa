"""An isolated task runs in a git worktree of the parent's HEAD plus its uncommitted
changes; what the child writes stays there and comes back as a diff; the worktree goes
away afterwards unless kept; outside a git repository isolation is refused."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest
from omp_tool_task.isolation import IsolationError, isolated_worktree


@pytest.fixture(autouse=True)
def _private_git(tmp_path, monkeypatch):
    """git reads no real home or system config in these tests."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
        monkeypatch.setenv(key, "t")
    for key in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(key, "t@example.com")


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("committed\n")
    (repo / "staged.txt").write_text("one\n")
    (repo / "gone.txt").write_text("bye\n")
    (repo / "src" / "m.py").write_text("x = 1\n")
    (repo / ".gitignore").write_text("ignored.log\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "init")
    # The parent's uncommitted state: an unstaged edit, a staged one, a deletion, an
    # untracked file and an ignored one.
    (repo / "a.txt").write_text("parent edit\n")
    (repo / "staged.txt").write_text("two\n")
    _git(repo, "add", "staged.txt")
    (repo / "gone.txt").unlink()
    (repo / "notes.md").write_text("untracked\n")
    (repo / "ignored.log").write_text("noise\n")
    return repo


def _worktrees(repo: Path) -> list[str]:
    listed = _git(repo, "worktree", "list", "--porcelain")
    return [line for line in listed.splitlines() if line.startswith("worktree ")]


def test_the_child_writes_in_its_own_tree_and_the_diff_shows_only_its_changes(tmp_path):
    repo = _repo(tmp_path)
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts}

    async def run() -> tuple[Path, str]:
        async with isolated_worktree(repo / "src", keep=False) as wt:
            assert wt.path == wt.root / "src"
            assert wt.root != repo
            # The parent's uncommitted state is there, the ignored file is not.
            assert (wt.root / "a.txt").read_text() == "parent edit\n"
            assert (wt.root / "staged.txt").read_text() == "two\n"
            assert not (wt.root / "gone.txt").exists()
            assert (wt.root / "notes.md").read_text() == "untracked\n"
            assert not (wt.root / "ignored.log").exists()
            assert await wt.diff() == ""
            # The child's work.
            (wt.path / "m.py").write_text("x = 2\n")
            (wt.path / "new.py").write_text("y = 3\n")
            (wt.root / "notes.md").unlink()
            return wt.root, await wt.diff()

    root, diff = asyncio.run(run())

    assert "diff --git a/src/m.py b/src/m.py" in diff and "+x = 2" in diff
    assert "new file mode" in diff and "+y = 3" in diff
    assert "deleted file mode" in diff and "-untracked" in diff
    # The parent's own edits are the starting state, not the child's changes.
    assert "a.txt" not in diff and "staged.txt" not in diff and "gone.txt" not in diff
    after = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert after == before
    assert not root.exists()
    assert len(_worktrees(repo)) == 1


def test_keep_leaves_the_worktree_for_the_user(tmp_path):
    repo = _repo(tmp_path)

    async def run() -> Path:
        async with isolated_worktree(repo, keep=True) as wt:
            (wt.path / "kept.txt").write_text("k\n")
            return wt.root

    root = asyncio.run(run())
    assert (root / "kept.txt").read_text() == "k\n"
    assert len(_worktrees(repo)) == 2
    _git(repo, "worktree", "remove", "--force", str(root))


def test_outside_a_git_repository_isolation_is_refused(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()

    async def run() -> None:
        async with isolated_worktree(plain, keep=False):
            raise AssertionError("unreachable")

    with pytest.raises(IsolationError) as err:
        asyncio.run(run())
    assert str(err.value) == f"isolated tasks need a git repository: {plain} is not in one"


def test_an_isolated_child_writes_in_its_worktree_and_returns_the_diff(tmp_path):
    import json

    from isolation import run_omp
    from omp.testing import write_script

    work = tmp_path / "work"
    work.mkdir()
    _git(work, "init", "-q", "-b", "main")
    (work / "a.txt").write_text("committed\n")
    _git(work, "add", ".")
    _git(work, "commit", "-q", "-m", "init")
    (work / "a.txt").write_text("parent edit\n")
    (tmp_path / "agent").mkdir()
    settings = {"task": {"isolation": {"mode": "worktree"}}, "tools": {"approvalMode": "yolo"}}
    (tmp_path / "agent" / "settings.json").write_text(json.dumps(settings))
    child_write = {"name": "write", "arguments": {"path": "new.txt", "content": "from child\n"}}
    item = {"name": "Iso", "task": "CHILD-WORK write", "isolated": True}
    script = write_script(
        tmp_path / "script.jsonl",
        [
            {"after_tool": "task", "text": "parent done", "repeat": True},
            {
                "after_tool": "write",
                "tool_calls": [{"name": "yield", "arguments": {"data": "ok"}}],
                "repeat": True,
            },
            {"when": "CHILD-WORK", "tool_calls": [child_write], "repeat": True},
            {
                "tool_calls": [{"name": "task", "arguments": {"context": "c", "tasks": [item]}}],
                "repeat": True,
            },
        ],
    )
    done = run_omp(tmp_path, "--mode", "json", "--script", str(script), "go")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    end = next(e for e in events if e["type"] == "tool_execution_end" and e["toolName"] == "task")
    text = end["result"]["content"][0]["text"]
    assert 'status="completed"' in text
    assert "new file mode" in text and "+from child" in text
    assert "a.txt" not in text  # the parent's own edit was the starting state
    assert not (work / "new.txt").exists()
    assert (work / "a.txt").read_text() == "parent edit\n"
    assert len(_worktrees(work)) == 1


def test_an_abort_while_the_worktree_is_made_still_removes_it(tmp_path, monkeypatch):
    import threading

    from omp_tool_task import isolation

    repo = _repo(tmp_path)
    entered, release, removed = threading.Event(), threading.Event(), threading.Event()
    made: list[Path] = []
    real_create, real_remove = isolation._create, isolation._remove

    def slow_create(cwd):
        entered.set()
        release.wait(10)
        tree = real_create(cwd)
        made.append(tree.root)
        return tree

    def remove(*args):
        real_remove(*args)
        removed.set()

    monkeypatch.setattr(isolation, "_create", slow_create)
    monkeypatch.setattr(isolation, "_remove", remove)

    async def run() -> None:
        async def use() -> None:
            async with isolated_worktree(repo, keep=False):
                raise AssertionError("unreachable")

        task = asyncio.ensure_future(use())
        await asyncio.to_thread(entered.wait, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        release.set()
        assert await asyncio.to_thread(removed.wait, 10)

    asyncio.run(run())
    assert made and not made[0].exists()
    assert len(_worktrees(repo)) == 1
