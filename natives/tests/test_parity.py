"""The natives backend answers every query exactly as the pure-Python backend does
(natives/tests/natives_corpus.py is the shared corpus), and declines what it cannot
answer identically so that the pure-Python backend does."""

from __future__ import annotations

import dataclasses
import os
import threading
from pathlib import Path

import pytest
from omp_tool_search import backend
from omp_tool_search.answers import coerce_find, coerce_grep, coerce_tree
from omp_tool_search.tools import FindParams, GrepParams

omp_natives = pytest.importorskip(
    "omp_natives", reason="omp-natives is not installed (needs cargo; bash scripts/setup)"
)
from natives_corpus import build, unlock  # noqa: E402
from omp_natives.requests import prepare  # noqa: E402

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = build(tmp_path_factory.mktemp("corpus"))
    yield root
    unlock(root)


def natives(kind: str, params: dict, cwd: Path):
    run = prepare(kind, params, str(cwd))
    if run is None:
        return None
    answer = run(omp_natives.load().CancelToken())
    if answer is None:
        return None
    return (coerce_find if kind == "find" else coerce_grep)(answer)


def both(kind: str, params: dict, cwd: Path):
    model = FindParams if kind == "find" else GrepParams
    full = model(**params).model_dump()
    python = backend.search(kind, full, str(cwd), threading.Event(), 5.0)
    return python, natives(kind, full, cwd)


GREPS = [
    {"pattern": "needle"},
    {"pattern": "needle", "literal": True, "limit": 1000},
    {"pattern": "Needle", "ignoreCase": True, "limit": 1000},
    {"pattern": "find_needle|NEEDLE|sharp"},
    {"pattern": r"needle[0-9]"},
    {"pattern": r"[A-Z][a-z]+ needle", "limit": 1000},
    {"pattern": r"\w+ needle\b"},
    {"pattern": r"^\s*def \w+\(", "limit": 1000},
    {"pattern": r"needle$"},
    {"pattern": r"^$"},
    {"pattern": r"."},
    {"pattern": "caf."},
    {"pattern": "\u0131i|\u0130", "ignoreCase": True},
    {"pattern": "\u03c3\u03af\u03c3\u03c5\u03c6\u03bf\u03c2", "ignoreCase": True},
    {"pattern": "a.b(", "literal": True},
    {"pattern": "needle", "limit": 5},
    {"pattern": "needle", "limit": 17},
    {"pattern": "needle", "context": 2},
    {"pattern": "needle", "context": 1, "limit": 3},
    {"pattern": "needle", "outputMode": "files"},
    {"pattern": "needle", "outputMode": "files", "limit": 20_000},  # the full parallel scan
    {"pattern": "needle", "context": 1, "limit": 100_000},
    {"pattern": "needle", "outputMode": "files", "limit": 3},
    {"pattern": "needle", "outputMode": "count"},
    {"pattern": "needle", "outputMode": "count", "limit": 2},
    {"pattern": "needle", "glob": "*.py"},
    {"pattern": "needle", "glob": "src/**/*.ts"},
    {"pattern": "needle", "glob": "*.{md,txt}"},
    {"pattern": "needle", "type": "py"},
    {"pattern": "needle", "type": "rust"},
    {"pattern": "needle", "path": "src"},
    {"pattern": "needle", "path": "src/nested"},
    {"pattern": "needle", "path": "docs/crlf.txt"},
    {"pattern": "needle", "path": "dir with space"},
    {"pattern": "needle", "path": "ünïcödé"},
    {"pattern": "x{3}", "path": "docs/long.txt"},
]
FINDS = [
    {"pattern": "**/*.py"},
    {"pattern": "*.md"},
    {"pattern": "**"},
    {"pattern": "src/*"},
    {"pattern": "src/**"},
    {"pattern": "*.{py,ts}"},
    {"pattern": "[!a]*.py"},
    {"pattern": "**/deep/*"},
    {"pattern": "*", "limit": 5},
    {"pattern": "*name*"},
    {"pattern": "*.md", "path": "ünïcödé"},
    {"pattern": "./src/*.py/"},
]


@pytest.mark.parametrize("params", GREPS, ids=lambda p: repr(p)[:60])
def test_grep_answers_are_identical(corpus: Path, params: dict) -> None:
    python, native = both("grep", params, corpus)
    assert python.error is None
    assert native is not None, "natives declined a query it should answer"
    assert dataclasses.asdict(native) == dataclasses.asdict(python)


@pytest.mark.parametrize("params", FINDS, ids=lambda p: repr(p)[:60])
def test_find_answers_are_identical(corpus: Path, params: dict) -> None:
    python, native = both("find", params, corpus)
    assert python.error is None
    assert native is not None, "natives declined a query it should answer"
    assert dataclasses.asdict(native) == dataclasses.asdict(python)


def test_the_corpus_exercises_the_hard_cases(corpus: Path) -> None:
    python, native = both("grep", {"pattern": "needle", "limit": 10_000}, corpus)
    assert native is not None and dataclasses.asdict(native) == dataclasses.asdict(python)
    paths = {line.path for line in native.lines}
    assert {".hidden/inside.py", "keep.log", "src/keep.gen.py", "src/top.txt"} <= paths
    assert "src/nested/important.txt" in paths and "dir with space/file name.txt" in paths
    assert "ünïcödé/日本.md" in paths and "docs/latin1.txt" in paths
    ignored = {"debug.log", "top.txt", "excluded.txt", "build/out.py", "src/a.gen.py"}
    assert not ignored & paths and "src/nested/notes.txt" not in paths
    assert not any(p.startswith((".git/", "node_modules/", "loop/", "link-to")) for p in paths)
    assert "bin/late-nul.dat" in paths  # its NUL lies after the first 8 KiB
    assert native.skipped_binary == 1 and native.skipped_large == 1
    if AS_ROOT:
        pytest.skip("running as root: the unreadable folder can be read, so both list it")
    assert not any(p.startswith("locked/") for p in paths)


@pytest.mark.parametrize(
    ("kind", "params"),
    [
        ("grep", {"pattern": r"(needle)\1"}),  # backreference: Python's engine only
        ("grep", {"pattern": r"needle(?= kept)"}),  # lookahead
        ("grep", {"pattern": r"\Aneedle"}),  # the file's start, not a line's
        ("grep", {"pattern": "needle\nkept"}),  # names the line end
        ("grep", {"pattern": "("}),  # invalid: Python words the error
        ("grep", {"pattern": "needle", "type": "cobol"}),
        ("grep", {"pattern": "needle", "path": "missing"}),
        ("grep", {"pattern": "needle", "path": "bin/blob.bin"}),
        ("find", {"pattern": "*", "path": "app.py"}),
        ("find", {"pattern": "*", "path": "missing"}),
    ],
)
def test_what_natives_cannot_say_exactly_is_left_to_python(
    corpus: Path, kind: str, params: dict
) -> None:
    model = FindParams if kind == "find" else GrepParams
    assert natives(kind, model(**params).model_dump(), corpus) is None


def test_parent_ignore_files_apply_inside_a_repository_only(tmp_path: Path) -> None:
    repo, plain = tmp_path / "repo", tmp_path / "plain"
    files = {
        repo / ".git/HEAD": "",
        repo / ".git/info/exclude": "ex*.txt\n",
        repo / ".gitignore": "*.log\nsub/gen/\nignored/\n",
        repo / "sub/.gitignore": "local.tmp\n",
        repo / "sub/deep/c.log": "",
        repo / "sub/deep/ex1.txt": "",
        repo / "sub/deep/ok.py": "",
        repo / "sub/gen/x.py": "",
        repo / "sub/local.tmp": "",
        repo / "ignored/f.py": "",
        plain / ".gitignore": "*.log\n",
        plain / "sub/c.log": "",
        plain / "sub/d.py": "",
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for cwd, path in [(repo, "sub"), (repo, "sub/deep"), (repo, "ignored"), (plain, "sub")]:
        python, native = both("find", {"pattern": "**", "path": path}, cwd)
        assert native is not None and dataclasses.asdict(native) == dataclasses.asdict(python)
    assert both("find", {"pattern": "**", "path": "sub/deep"}, repo)[1].paths == ["ok.py"]
    assert both("find", {"pattern": "**", "path": "sub"}, plain)[1].paths == ["c.log", "d.py"]


TREES = [
    {"depth": 1},
    {"depth": 2, "limit": 500},
    {"depth": 5, "limit": 500},
    {"depth": 3, "limit": 7},
    {"depth": 2, "path": "src"},
    {"depth": 2, "path": "ünïcödé"},
]


@pytest.mark.parametrize("params", TREES, ids=lambda p: repr(p)[:60])
def test_tree_answers_are_identical(corpus: Path, params: dict) -> None:
    python = backend.search("tree", dict(params), str(corpus), threading.Event())
    run = prepare("tree", dict(params), str(corpus))
    assert run is not None, "natives declined a tree it should answer"
    native = coerce_tree(run(omp_natives.load().CancelToken()))
    assert python.error is None and python.lines
    assert dataclasses.asdict(native) == dataclasses.asdict(python)
