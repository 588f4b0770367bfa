"""An isolated task's git worktree: the parent's HEAD plus its uncommitted changes, and
the diff the child leaves behind.

The git plumbing is copy-adapted from plugins/batch ``worktree.py`` (a plugin never
imports another): the same safe git invocation, a detached ``worktree add``, forced
removal and prune. What differs: the parent's uncommitted state (tracked changes,
staged or not, and untracked files that are not ignored) is carried into the worktree,
and the diff is taken against that starting state, never against HEAD, so the child's
result shows only what the child did.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

GIT_TIMEOUT_S = 300
SAFE_GIT = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")
"""No hook or fsmonitor of the repository runs for omp's own bookkeeping."""


class IsolationError(Exception):
    """An isolated task cannot run; the message is one line, fit for the tool result."""


def _git(*args: str, cwd: Path, index: Path | None = None, stdin: bytes | None = None) -> str:
    env = None
    if index is not None:
        env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    try:
        proc = subprocess.run(
            ["git", *SAFE_GIT, *args],
            cwd=cwd,
            env=env,
            input=stdin,
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
        )
    except FileNotFoundError:
        raise IsolationError("isolated tasks need git, and it is not installed") from None
    except subprocess.TimeoutExpired:
        raise IsolationError(f"git {args[0]} took longer than {GIT_TIMEOUT_S} s") from None
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace")
        reason = " ".join(err.split()) or f"exit status {proc.returncode}"
        raise IsolationError(f"git {args[0]}: {reason.removeprefix('fatal: ')}")
    return proc.stdout.decode("utf-8", "surrogateescape")


@dataclass
class Worktree:
    """A checked-out copy of the parent's tree. ``path`` is the parent's cwd inside it
    (the child's cwd); ``root`` the worktree's top level."""

    root: Path
    path: Path
    baseline: str
    """The tree object of the starting state (HEAD + the parent's uncommitted changes)."""

    async def diff(self) -> str:
        """The child's changes relative to the starting state, as a binary-safe patch
        (new files included); empty when it changed nothing."""
        return await asyncio.to_thread(_diff, self.root, self.baseline)


def _repo_root(cwd: Path) -> Path:
    try:
        top = _git("rev-parse", "--show-toplevel", cwd=cwd).strip()
    except IsolationError:
        top = ""
    if not top:
        raise IsolationError(f"isolated tasks need a git repository: {cwd} is not in one")
    return Path(top)


def _snapshot(root: Path) -> str:
    """The tree of everything in ``root``'s working directory that git would track (HEAD's
    files as they are now, plus untracked files that are not ignored), written through
    a throwaway index so neither the worktree's index nor its HEAD changes."""
    with tempfile.TemporaryDirectory(prefix="omp-task-index-") as tmp:
        index = Path(tmp) / "index"
        _git("read-tree", "HEAD", cwd=root, index=index)
        _git("add", "--all", cwd=root, index=index)
        return _git("write-tree", cwd=root, index=index).strip()


def _diff(root: Path, baseline: str) -> str:
    current = _snapshot(root)
    if current == baseline:
        return ""
    return _git("diff-tree", "-p", "--binary", "--no-ext-diff", baseline, current, cwd=root)


def _carry_changes(parent: Path, target: Path) -> None:
    """Bring the parent's uncommitted state into the fresh worktree: the tracked diff
    against HEAD (staged and unstaged together) and a copy of each untracked, not
    ignored file."""
    patch = _git("diff", "--binary", "--no-ext-diff", "--no-textconv", "HEAD", cwd=parent)
    if patch.strip():
        _git(
            "apply",
            "--binary",
            "--whitespace=nowarn",
            "-",
            cwd=target,
            stdin=patch.encode("utf-8", "surrogateescape"),
        )
    listed = _git("ls-files", "--others", "--exclude-standard", "-z", cwd=parent)
    for rel in filter(None, listed.split("\0")):
        src, dst = parent / rel, target / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            dst.symlink_to(os.readlink(src))
        elif src.is_file():
            shutil.copy2(src, dst)


def _create(cwd: Path) -> Worktree:
    root = _repo_root(cwd)
    head = _git("rev-parse", "--verify", "--quiet", "HEAD^{commit}", cwd=root).strip()
    holder = Path(tempfile.mkdtemp(prefix="omp-task-worktree-"))
    target = holder / root.name
    try:
        _git("worktree", "add", "--detach", "--quiet", str(target), head, cwd=root)
        _carry_changes(root, target)
        baseline = _snapshot(target)
    except BaseException:
        _remove(root, holder, target)
        raise
    rel = cwd.resolve().relative_to(root.resolve())
    return Worktree(root=target, path=target / rel, baseline=baseline)


def _remove(repo: Path, holder: Path, target: Path) -> None:
    """Remove the worktree and git's record of it; never raises."""
    try:
        _git("worktree", "remove", "--force", str(target), cwd=repo)
    except IsolationError:
        pass
    shutil.rmtree(holder, ignore_errors=True)
    try:
        _git("worktree", "prune", cwd=repo)
    except IsolationError:
        pass


def _discard(root: Path, created: asyncio.Future[Worktree]) -> None:
    if created.cancelled() or created.exception() is not None:
        return
    tree = created.result()
    asyncio.get_running_loop().run_in_executor(None, _remove, root, tree.root.parent, tree.root)


@asynccontextmanager
async def isolated_worktree(cwd: Path, *, keep: bool) -> AsyncIterator[Worktree]:
    """A worktree of ``cwd``'s repository at HEAD with the parent's uncommitted changes
    applied, removed on exit unless ``keep``. IsolationError (one line) when ``cwd`` is
    not in a git repository, or the repository has no commit yet."""
    root = await asyncio.to_thread(_repo_root, cwd)
    try:
        await asyncio.to_thread(_git, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", cwd=root)
    except IsolationError:
        raise IsolationError(f"isolated tasks need a commit: {root} has none yet") from None
    creating = asyncio.ensure_future(asyncio.to_thread(_create, cwd))
    try:
        worktree = await asyncio.shield(creating)
    except asyncio.CancelledError:
        # Aborted while git worked: remove the worktree once it exists.
        creating.add_done_callback(lambda done: _discard(root, done))
        raise
    try:
        yield worktree
    finally:
        if not keep:
            await asyncio.to_thread(_remove, root, worktree.root.parent, worktree.root)
