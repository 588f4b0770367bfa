"""Tasks on a git repository each get a fresh worktree of their ref; the result carries
the diff; a ref that does not exist fails that task alone."""

from __future__ import annotations

import os
import signal
import subprocess
import time


def _git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _repo(batch):
    repo = batch.root / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "shared.txt").write_text("v1\n")
    for key, value in (("user.email", "t@example.com"), ("user.name", "t")):
        _git(repo, "config", key, value)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "one")
    _git(repo, "tag", "v1")
    (repo / "shared.txt").write_text("v2\n")
    _git(repo, "commit", "-q", "-am", "two")
    return repo


def _writer(batch, name):
    call = {"name": "write", "arguments": {"path": "shared.txt", "content": f"{name}\n"}}
    new = {"name": "write", "arguments": {"path": f"{name}.txt", "content": "new\n"}}
    return batch.script({"tool_calls": [call, new]}, {"text": f"{name} wrote"})


def test_worktrees_are_isolated_and_a_missing_ref_fails_alone(batch):
    repo = _repo(batch)
    yolo = {"tools": {"approvalMode": "yolo"}}
    tasks = batch.tasks(
        [
            {
                "id": "a",
                "prompt": "x",
                "repo": "repo",
                "ref": "v1",
                "settings": yolo,
                "flags": {"script": _writer(batch, "a")},
            },
            {
                "id": "b",
                "prompt": "x",
                "repo": "repo",
                "settings": yolo,
                "flags": {"script": _writer(batch, "b")},
            },
            {
                "id": "c",
                "prompt": "x",
                "repo": "repo",
                "ref": "no-such-branch",
                "flags": {"script": _writer(batch, "c")},
            },
        ]
    )
    proc = batch.run(str(tasks), "--out", "out", "--jobs", "2")
    assert proc.returncode == 1, proc.stderr
    results = {r["id"]: r for r in batch.results()}
    assert results["a"]["status"] == "done" and results["b"]["status"] == "done", results
    assert "-v1\n+a\n" in results["a"]["diff"] and "+++ b/a.txt" in results["a"]["diff"]
    assert "-v2\n+b\n" in results["b"]["diff"] and "b.txt" in results["b"]["diff"]
    assert "a.txt" not in results["b"]["diff"]
    assert results["c"]["status"] == "failed"
    assert "ref 'no-such-branch' does not exist" in results["c"]["error"]
    assert (repo / "shared.txt").read_text() == "v2\n"  # the repository itself untouched
    assert not (repo / "a.txt").exists()
    listed = subprocess.run(["git", "worktree", "list"], cwd=repo, capture_output=True, text=True)
    assert len(listed.stdout.splitlines()) == 1  # every worktree removed after its diff


def test_a_rerun_after_a_sigkill_mid_task_gets_a_fresh_worktree(batch):
    """The killed attempt keeps its session, and what its worktree held is kept as a
    patch next to it before that worktree is removed."""
    repo = _repo(batch)
    call = {"name": "write", "arguments": {"path": "shared.txt", "content": "half\n"}}
    slow = batch.script({"tool_calls": [call]}, {"delay": 30, "text": "never"})
    task = {
        "id": "a",
        "prompt": "x",
        "repo": "repo",
        "settings": {"tools": {"approvalMode": "yolo"}},
    }
    tasks = batch.tasks([{**task, "flags": {"script": slow}}])
    runner = batch.start(
        str(tasks), "--out", "out", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    first = batch.root / "out" / "a" / "attempt-1"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and b"toolResult" not in _read(first / "session.jsonl"):
        time.sleep(0.05)
    os.kill(runner.pid, signal.SIGKILL)  # the worker goes with it; git keeps its worktree
    runner.wait()
    kept = (first / "session.jsonl").read_bytes()
    assert (first / "worktree" / "shared.txt").read_text() == "half\n"

    tasks = batch.tasks([{**task, "flags": {"script": _writer(batch, "a")}}])
    proc = batch.run(str(tasks), "--out", "out")
    assert proc.returncode == 0, proc.stderr
    (result,) = batch.results()
    assert result["status"] == "done" and "-v2\n+a\n" in result["diff"], result
    assert result["attempt"] == 2 and result["earlier_attempts"] == [str(first / "session.jsonl")]
    assert (first / "session.jsonl").read_bytes() == kept
    assert "-v2\n+half\n" in (first / "worktree.diff").read_text()
    assert not (first / "worktree").exists()
    listed = subprocess.run(["git", "worktree", "list"], cwd=repo, capture_output=True, text=True)
    assert len(listed.stdout.splitlines()) == 1


def _read(path):
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""


def test_a_repository_url_is_cloned_at_any_branch_or_tag_it_has(batch):
    repo = _repo(batch)
    _git(repo, "branch", "feature", "v1")  # neither the default branch nor checked out
    url = repo.as_uri()
    yolo = {"tools": {"approvalMode": "yolo"}}
    tasks = batch.tasks(
        [
            {
                "id": f"on-{ref}",
                "prompt": "x",
                "repo": url,
                "ref": ref,
                "settings": yolo,
                "flags": {"script": _writer(batch, f"at-{ref}")},
            }
            for ref in ("feature", "v1", "main")
        ]
        + [{"id": "missing", "prompt": "x", "repo": url, "ref": "no-such-ref"}]
    )
    proc = batch.run(str(tasks), "--out", "out", "--jobs", "2")
    assert proc.returncode == 1, proc.stderr
    results = {r["id"]: r for r in batch.results()}
    assert "-v1\n+at-feature\n" in results["on-feature"]["diff"], results["on-feature"]
    assert "-v1\n+at-v1\n" in results["on-v1"]["diff"], results["on-v1"]
    assert "-v2\n+at-main\n" in results["on-main"]["diff"], results["on-main"]
    assert results["missing"]["status"] == "failed"
    assert f"ref 'no-such-ref' does not exist in {url}" in results["missing"]["error"]
    assert not any((batch.root / "out" / r / "worktree").exists() for r in results)


def test_a_filter_driver_the_repository_itself_defines_never_runs(batch):
    """A repository's own .git/config (or a file it includes) defines filter drivers
    that its committed .gitattributes selects: checkout would run their smudge (or
    process) command and the task's diff their clean one. The worktree holds the files
    as committed, the task runs, and no command of the repository ran."""
    repo = _repo(batch)
    markers = batch.root / "markers"
    markers.mkdir()
    (repo / ".gitattributes").write_text("shared.txt filter=evil\n*.dat filter=longrun\n")
    (repo / "data.dat").write_text("raw\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "attributes")

    def marker(name):
        return f"sh -c 'echo ran > {markers / name}; cat'"

    _git(repo, "config", "filter.evil.smudge", marker("smudge"))
    _git(repo, "config", "filter.evil.clean", marker("clean"))
    _git(repo, "config", "filter.evil.required", "true")
    included = batch.root / "included.gitconfig"
    included.write_text(f'[filter "longrun"]\n\tprocess = "{marker("process")}"\n\trequired\n')
    _git(repo, "config", "include.path", str(included))
    tasks = batch.tasks(
        [
            {
                "id": "a",
                "prompt": "x",
                "repo": "repo",
                "settings": {"tools": {"approvalMode": "yolo"}},
                "flags": {"script": _writer(batch, "a")},
            }
        ]
    )
    proc = batch.run(str(tasks), "--out", "out", "--keep-worktrees")
    assert proc.returncode == 0, proc.stderr
    (result,) = batch.results()
    assert result["status"] == "done", result
    assert "-v2\n+a\n" in result["diff"], result
    assert sorted(p.name for p in markers.iterdir()) == []
    worktree = batch.root / "out" / "a" / "attempt-1" / "worktree"
    assert (worktree / "data.dat").read_text() == "raw\n"
