"""The natives walk keeps and drops the same files as ripgrep (whose ``ignore`` crate it
runs) on the parity corpus: nested ``.gitignore`` and ``.ignore`` files, negations,
anchored patterns, ``.git/info/exclude``, hidden files. Runs when the ``rg`` binary is
there (PyPI's ``ripgrep`` in the venv, or on PATH); skips otherwise.

The differences are deliberate, shared with the pure-Python backend and named here:
``.git`` is never searched (``rg --hidden`` searches it), links and named pipes are
listed by find (``rg --files`` lists regular files only), a file over 4 MiB is skipped
as large, and a file is binary when its first 8 KiB hold a NUL (ripgrep also gives up on
a file at a later NUL)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

omp_natives = pytest.importorskip(
    "omp_natives", reason="omp-natives is not installed (needs cargo; bash scripts/setup)"
)
from natives_corpus import build, unlock  # noqa: E402
from omp_natives.requests import prepare  # noqa: E402

_VENV_RG = Path(sys.executable).with_name("rg")
RG = str(_VENV_RG) if _VENV_RG.exists() else shutil.which("rg")
pytestmark = pytest.mark.skipif(
    RG is None,
    reason="no rg binary: scripts/setup installs ripgrep's wheel where PyPI has one for "
    "this platform (it never builds it), else put rg on PATH",
)
RG_FLAGS = ["--hidden", "--no-ignore-global", "--no-config"]
LARGE, LATE_NUL = "big/large.txt", "bin/late-nul.dat"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = build(tmp_path_factory.mktemp("corpus"))
    yield root
    unlock(root)


def rg(root: Path, *args: str) -> list[str]:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(root.parent)}
    done = subprocess.run(
        [RG, *RG_FLAGS, *args], cwd=root, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode in (0, 1, 2), done.stderr  # 2: the unreadable folder, if any
    return sorted(line for line in done.stdout.splitlines() if not line.startswith(".git/"))


def natives(kind: str, params: dict, root: Path) -> Any:
    return prepare(kind, params, str(root))(omp_natives.load().CancelToken())


def test_the_walk_keeps_the_files_ripgrep_keeps(corpus: Path) -> None:
    found = natives("find", {"pattern": "**", "limit": 100_000}, corpus)["paths"]
    regular = sorted(
        p for p in found if stat.S_ISREG(os.lstat(corpus / p).st_mode) and not p.endswith("/")
    )
    assert regular == rg(corpus, "--files")


def test_grep_counts_match_ripgreps_but_for_the_size_cap_and_binary_sniff(corpus: Path) -> None:
    params = {"pattern": "needle", "outputMode": "count", "limit": 100_000}
    counts = {path: n for path, n in natives("grep", params, corpus).counts}
    theirs = dict(line.rsplit(":", 1) for line in rg(corpus, "-c", "needle"))
    theirs = {path: int(n) for path, n in theirs.items()}
    assert LARGE in theirs and LARGE not in counts  # over 4 MiB: skipped as large
    assert LATE_NUL in counts and LATE_NUL not in theirs  # NUL after the first 8 KiB
    del theirs[LARGE], counts[LATE_NUL]
    assert counts == theirs
