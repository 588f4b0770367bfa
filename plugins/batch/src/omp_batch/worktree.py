"""A task's fresh git worktree (``repo`` + ``ref``) and the diff it leaves behind."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from omp import OmpError

GIT_TIMEOUT_S = 300
SAFE_GIT = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")
"""omp's own git bookkeeping never runs a repository's hooks or fsmonitor: a task's repo
may be one the user has not trusted."""
REPO_SCOPES = ("local", "worktree")
"""Config the repository itself carries (``.git/config``, ``config.worktree`` and the
files they include), as against the user's own (system, global, command line)."""


def _git(*args: str, cwd: Path | None = None) -> str:
    """Run git on ``cwd`` with nothing of the repository's own running: no hooks, no
    fsmonitor, and every filter driver its own config defines switched off."""
    env = _without_repo_filters(cwd) if cwd is not None else None
    return _run(args, cwd, env)


def _run(args: tuple[str, ...], cwd: Path | None, env: dict[str, str] | None) -> str:
    try:
        proc = subprocess.run(
            ["git", *SAFE_GIT, *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise OmpError("git is not installed (the task names a repo)") from None
    except subprocess.TimeoutExpired:
        raise OmpError(f"git {args[0]} took longer than {GIT_TIMEOUT_S} s") from None
    if proc.returncode != 0:
        reason = " ".join(proc.stderr.split()) or f"exit status {proc.returncode}"
        raise OmpError(f"git {args[0]}: {reason.removeprefix('fatal: ')}")
    return proc.stdout


def _without_repo_filters(cwd: Path) -> dict[str, str]:
    """The environment for a git call on ``cwd``: every ``filter.<driver>`` the
    repository's own config defines gets an empty smudge, clean and process command and
    ``required=false``, so checkout, add and diff take files as they are; filters of the
    user's own config (git-lfs, say) still apply. The overrides go through
    GIT_CONFIG_KEY_n (after any the user set), which takes a driver name holding "="
    whole where ``-c`` would split it. Read anew for each call: a task may have edited
    its repository's config. Reading config runs nothing."""
    listed = _run(("config", "--list", "--show-scope", "--includes", "-z"), cwd, None)
    drivers: set[str] = set()
    fields = listed.split("\0")
    for scope, entry in zip(fields[::2], fields[1::2], strict=False):
        key = entry.partition("\n")[0]
        section, _, rest = key.partition(".")
        driver, dot, _ = rest.rpartition(".")
        if scope in REPO_SCOPES and section.lower() == "filter" and dot:
            drivers.add(driver)
    env = dict(os.environ)
    count = int(env.get("GIT_CONFIG_COUNT") or 0)
    for driver in sorted(drivers):
        for name, value in (("smudge", ""), ("clean", ""), ("process", ""), ("required", "false")):
            env[f"GIT_CONFIG_KEY_{count}"] = f"filter.{driver}.{name}"
            env[f"GIT_CONFIG_VALUE_{count}"] = value
            count += 1
    env["GIT_CONFIG_COUNT"] = str(count)
    return env


def create(repo: str, ref: str, target: Path) -> Path:
    """Check ``ref`` of ``repo`` out into ``target``: a detached worktree of a local
    repository, or a clone of a remote one. OmpError when the ref does not exist."""
    if target.exists():
        remove(repo, target)
    if "://" in repo or repo.startswith("git@"):
        _git("clone", "--quiet", "--no-checkout", repo, str(target))
        try:
            _checkout(target, ref, repo)
        except OmpError:
            shutil.rmtree(target, ignore_errors=True)  # no clone left behind a failed task
            raise
        return target
    if not Path(repo).is_dir():
        raise OmpError(f"repo {repo} is not a directory")
    _git("rev-parse", "--git-dir", cwd=Path(repo))
    commit = _commit(Path(repo), ref, repo)
    # A worktree removed by hand leaves git's record of it: forget it, or
    # `worktree add` may refuse a path it still knows.
    _git("worktree", "prune", cwd=Path(repo))
    _git("worktree", "add", "--detach", "--quiet", str(target), commit, cwd=Path(repo))
    return target


def _commit(repo: Path, ref: str, name: str, remote: bool = False) -> str:
    # A fresh clone has only the default branch as a local one: its other branches
    # are origin/<name>.
    for candidate in (ref, f"origin/{ref}") if remote else (ref,):
        try:
            spec = f"{candidate}^{{commit}}"
            return _git("rev-parse", "--verify", "--quiet", spec, cwd=repo).strip()
        except OmpError:
            continue
    raise OmpError(f"ref {ref!r} does not exist in {name}")


def _checkout(target: Path, ref: str, name: str) -> None:
    commit = _commit(target, ref, name, remote=True)
    _git("checkout", "--quiet", "--detach", commit, cwd=target)


def diff(worktree: Path) -> str:
    """Everything the task changed against the checked-out commit, new files
    included (marked intent-to-add first, so they show as additions)."""
    _git("add", "--all", "--intent-to-add", cwd=worktree)
    return _git("diff", "--binary", "--no-ext-diff", "--no-textconv", "HEAD", cwd=worktree)


def retire(repo: str, worktree: Path, patch: Path) -> None:
    """Keep what a worktree left by a killed run holds as a patch file, then remove
    the worktree; never fails the task that found it."""
    try:
        patch.write_text(diff(worktree), encoding="utf-8")
    except (OmpError, OSError):
        pass
    remove(repo, worktree)


def remove(repo: str, worktree: Path) -> None:
    """Remove the worktree (and what git recorded of it); never fails the task."""
    if Path(repo).is_dir():
        try:
            _git("worktree", "remove", "--force", str(worktree), cwd=Path(repo))
        except OmpError:
            pass
    shutil.rmtree(worktree, ignore_errors=True)
    if Path(repo).is_dir():
        try:
            _git("worktree", "prune", cwd=Path(repo))
        except OmpError:
            pass
