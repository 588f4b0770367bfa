"""The find, grep and ls tools and the pure-Python search backend (plugins/search)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import omp
import pytest
from omp import AbortSignal, ToolResult
from omp_tool_search import backend
from omp_tool_search.answers import FindAnswer, GrepAnswer, GrepLine
from omp_tool_search.ls import LsParams, LsTool
from omp_tool_search.tools import FindParams, FindTool, GrepParams, GrepTool


def make_tree(root: Path) -> Path:
    """A repository with nested ignore files; every file holds the word 'needle'."""
    files = {
        ".gitignore": "*.log\nbuild/\n!keep.log\n",
        "README.md": "# needle\n",
        "app.py": "import os\nneedle = 1\n",
        "debug.log": "needle\n",
        "keep.log": "needle\n",
        "secret.txt": "needle at the top\n",
        "build/out.py": "needle\n",
        "sub/.gitignore": "secret.txt\n/top-only.txt\n",
        "sub/top-only.txt": "needle\n",
        "sub/deep/top-only.txt": "needle\n",
        "sub/secret.txt": "needle\n",
        "sub/mod.py": "needle()\n",
        "sub/deep/secret.txt": "needle\n",
        "sub/deep/x.ts": "const needle = 2;\n",
        "other/.gitignore": "*.dat\n",
        "other/.ignore": "*.tmp\n!keep.dat\n",
        "other/x.dat": "needle\n",
        "other/keep.dat": "needle\n",
        "other/a.tmp": "needle\n",
        "other/b.txt": "needle\n",
        "excluded.txt": "needle\n",
        ".git/HEAD": "needle\n",
        ".git/info/exclude": "excluded.txt\n",
        ".hidden/h.txt": "needle\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


VISIBLE = [
    ".gitignore",
    ".hidden/",
    ".hidden/h.txt",
    "README.md",
    "app.py",
    "keep.log",
    "other/",
    "other/.gitignore",
    "other/.ignore",
    "other/b.txt",
    "other/keep.dat",
    "secret.txt",
    "sub/",
    "sub/.gitignore",
    "sub/deep/",
    "sub/deep/top-only.txt",
    "sub/deep/x.ts",
    "sub/mod.py",
]
VISIBLE_FILES_WITH_NEEDLE = [
    ".hidden/h.txt",
    "README.md",
    "app.py",
    "keep.log",
    "other/b.txt",
    "other/keep.dat",
    "secret.txt",
    "sub/deep/top-only.txt",
    "sub/deep/x.ts",
    "sub/mod.py",
]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "repo")


def run(tool, params, cwd: Path, signal: AbortSignal | None = None) -> ToolResult:
    ctx = SimpleNamespace(cwd=str(cwd))
    outcome = tool.execute("call-1", params, signal or AbortSignal(), lambda p: None, ctx)
    if asyncio.iscoroutine(outcome):
        outcome = asyncio.run(outcome)
    assert isinstance(outcome, ToolResult)
    return outcome


def text(result: ToolResult) -> str:
    return result.content[0].text


def find(cwd: Path, **kw) -> ToolResult:
    return run(FindTool(), FindParams(**kw), cwd)


def grep(cwd: Path, **kw) -> ToolResult:
    return run(GrepTool(), GrepParams(**kw), cwd)


# -- ignore rules ---------------------------------------------------------------------


def test_find_honours_nested_gitignore_ignore_and_exclude(tree: Path) -> None:
    result = find(tree, pattern="**")
    assert not result.is_error
    assert text(result).splitlines() == VISIBLE
    assert result.details["total"] == len(VISIBLE)


def test_grep_searches_exactly_the_visible_files(tree: Path) -> None:
    result = grep(tree, pattern="needle", outputMode="files")
    assert text(result).splitlines() == VISIBLE_FILES_WITH_NEEDLE


def test_a_subfolder_search_still_obeys_the_rules_above_it(tree: Path) -> None:
    (tree / "sub" / "trace.log").write_text("needle\n")
    assert text(find(tree, pattern="*", path="sub")).splitlines() == [
        "sub/.gitignore",
        "sub/deep/",
        "sub/deep/top-only.txt",
        "sub/deep/x.ts",
        "sub/mod.py",
    ]
    # From inside sub/, paths are relative to the session's cwd there.
    assert text(find(tree / "sub", pattern="*.py")) == "mod.py"


def test_an_ignored_folder_named_explicitly_is_searched(tree: Path) -> None:
    result = grep(tree, pattern="needle", path="build")
    assert text(result) == "build/out.py:1:needle"


def test_outside_cwd_paths_are_absolute(tree: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = find(elsewhere, pattern="mod.py", path=str(tree))
    assert text(result) == f"{tree}/sub/mod.py"


# -- find -----------------------------------------------------------------------------


def test_find_glob_forms(tree: Path) -> None:
    assert text(find(tree, pattern="*.py")).splitlines() == ["app.py", "sub/mod.py"]
    assert text(find(tree, pattern="**/*.py")).splitlines() == ["app.py", "sub/mod.py"]
    assert text(find(tree, pattern="sub/*.py")) == "sub/mod.py"
    assert text(find(tree, pattern="*.{ts,md}")).splitlines() == ["README.md", "sub/deep/x.ts"]
    assert text(find(tree, pattern="deep")) == "sub/deep/"


def test_find_no_match_is_plain_text(tree: Path) -> None:
    result = find(tree, pattern="*.rs")
    assert not result.is_error
    assert text(result).startswith("No files found matching '*.rs'")


def test_find_limit_note(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"f{i:02d}.txt").write_text("x")
    result = find(tmp_path, pattern="*.txt", limit=10)
    lines = text(result).splitlines()
    assert lines[:10] == [f"f{i:02d}.txt" for i in range(10)]
    assert lines[-1] == "[showing 10 of 30 matches; narrow the pattern]"


def test_find_errors(tree: Path) -> None:
    missing = find(tree, pattern="*", path="nope")
    assert missing.is_error and text(missing) == "Path not found: nope"
    assert find(tree, pattern="*", path="app.py").is_error


# -- grep -----------------------------------------------------------------------------


def test_grep_content_format(tree: Path) -> None:
    result = grep(tree, pattern=r"needle\s*=", path=".")
    assert text(result) == "app.py:2:needle = 1\nsub/deep/x.ts:1:const needle = 2;"
    assert result.details["matches"] == 2 and result.details["files"] == 2


def test_grep_glob_and_type_filters(tree: Path) -> None:
    assert text(grep(tree, pattern="needle", glob="*.py", outputMode="files")).splitlines() == [
        "app.py",
        "sub/mod.py",
    ]
    assert text(grep(tree, pattern="needle", glob="sub/**", outputMode="files")).splitlines() == [
        "sub/deep/top-only.txt",
        "sub/deep/x.ts",
        "sub/mod.py",
    ]
    assert text(grep(tree, pattern="needle", type="ts")) == "sub/deep/x.ts:1:const needle = 2;"
    assert text(grep(tree, pattern="needle", type="md")) == "README.md:1:# needle"
    bad = grep(tree, pattern="needle", type="cobol")
    assert bad.is_error and "Unknown file type 'cobol'" in text(bad) and "rust" in text(bad)


def test_grep_ignore_case(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Alpha\nALPHA\nbeta\n")
    assert text(grep(tmp_path, pattern="alpha")) == "No matches found for 'alpha' in . " + (
        "(.gitignore/.ignore rules apply; .git is skipped)"
    )
    assert text(grep(tmp_path, pattern="alpha", ignoreCase=True)) == "a.txt:1:Alpha\na.txt:2:ALPHA"


def test_grep_literal_with_metacharacters(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = f(a[0]) + 1\nx = fa0 + 1\n")
    assert text(grep(tmp_path, pattern="f(a[0])", literal=True)) == "a.py:1:x = f(a[0]) + 1"
    # As a regex the same text means something else.
    assert text(grep(tmp_path, pattern="f(a[0])")) == "a.py:2:x = fa0 + 1"


def test_grep_context_groups(tmp_path: Path) -> None:
    lines = [f"line {i}" for i in range(1, 21)]
    lines[2] = "hit 3"
    lines[4] = "hit 5"
    lines[15] = "hit 16"
    (tmp_path / "f.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "g.txt").write_text("hit g\n")
    assert text(grep(tmp_path, pattern="^hit", context=1)).splitlines() == [
        "f.txt-2-line 2",
        "f.txt:3:hit 3",
        "f.txt-4-line 4",
        "f.txt:5:hit 5",
        "f.txt-6-line 6",
        "--",
        "f.txt-15-line 15",
        "f.txt:16:hit 16",
        "f.txt-17-line 17",
        "--",
        "g.txt:1:hit g",
    ]


def test_grep_files_and_count_modes(tree: Path) -> None:
    (tree / "app.py").write_text("needle\nneedle needle\nno\nneedle\n")
    count = grep(tree, pattern="needle", outputMode="count", glob="*.py")
    assert text(count).splitlines() == ["app.py:3", "sub/mod.py:1"]
    legacy = grep(tree, pattern="needle", outputMode="files_with_matches", glob="*.py")
    assert text(legacy).splitlines() == ["app.py", "sub/mod.py"]


def test_grep_limit_note(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n" * 50)
    (tmp_path / "b.txt").write_text("x\n")
    result = grep(tmp_path, pattern="x", limit=5)
    lines = text(result).splitlines()
    assert lines[:5] == [f"a.txt:{n}:x" for n in range(1, 6)]
    assert lines[-1].startswith("[stopped at the limit of 5 matches; more exist.")
    assert result.details["truncated"] is True
    files = grep(tmp_path, pattern="x", outputMode="files", limit=1)
    assert text(files).splitlines()[0] == "a.txt"
    assert "limit of 1 files" in text(files)
    exact = grep(tmp_path, pattern="x", limit=51)
    assert exact.details["truncated"] is False and "stopped" not in text(exact)


def test_grep_invalid_regex(tree: Path) -> None:
    result = grep(tree, pattern="foo(bar")
    assert result.is_error
    assert text(result).startswith("Invalid regex 'foo(bar': missing ), unterminated subpattern")
    assert "literal=true" in text(result)


def test_grep_long_lines_are_cut(tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text("var needle=1;" + "x" * 1000 + "\n")
    line = text(grep(tmp_path, pattern="needle"))
    assert line == "min.js:1:var needle=1;" + "x" * 487 + "... [513 more chars]"


def test_grep_skips_binary_and_large_files(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"needle\x00\x01")
    (tmp_path / "big.txt").write_bytes(b"needle\n" + b"y" * (4 * 1024 * 1024))
    (tmp_path / "ok.txt").write_text("needle\n")
    result = grep(tmp_path, pattern="needle")
    assert text(result).splitlines()[0] == "ok.txt:1:needle"
    assert "[1 file(s) over 4 MiB not searched]" in text(result)
    assert result.details["skippedBinary"] == 1
    single = grep(tmp_path, pattern="needle", path="blob.bin")
    assert single.is_error and "binary" in text(single)


def test_grep_a_single_file_and_line_semantics(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"end\r\nfoo\nbar baz\ncaf\xc3\xa9 \xff\n")
    assert text(grep(tmp_path, pattern=r"foo\s+bar", path="a.txt")).startswith("No matches")
    assert text(grep(tmp_path, pattern="^bar", path="a.txt")) == "a.txt:3:bar baz"
    assert text(grep(tmp_path, pattern="end", path="a.txt")) == "a.txt:1:end"
    assert text(grep(tmp_path, pattern=r"caf\w", path="a.txt")) == "a.txt:4:café \ufffd"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX-only")
def test_grep_does_not_wait_on_a_named_pipe(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "z.txt").write_text("needle\n")
    done = []
    worker = threading.Thread(target=lambda: done.append(grep(tmp_path, pattern="needle")))
    worker.start()
    worker.join(5)
    assert done and text(done[0]) == "z.txt:1:needle"


# -- ls -------------------------------------------------------------------------------


def test_ls_kinds_sizes_and_links(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "b.txt").write_bytes(b"x" * 2048)
    (tmp_path / "a.txt").write_text("hello")
    (tmp_path / ".env").write_text("")
    os.symlink("a.txt", tmp_path / "link")
    os.symlink("sub", tmp_path / "dirlink")
    os.symlink("gone", tmp_path / "dead")
    result = run(LsTool(), LsParams(), tmp_path)
    assert text(result).splitlines() == [
        ".env  0 B",
        "a.txt  5 B",
        "b.txt  2.0 KiB",
        "dead -> gone  [broken link]",
        "dirlink/ -> sub",
        "link -> a.txt",
        "sub/",
    ]


def test_ls_limit_empty_and_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(12):
        (tmp_path / f"f{i:02d}").touch()
    capped = text(run(LsTool(), LsParams(limit=10), tmp_path)).splitlines()
    assert capped[9] == "f09  0 B"
    assert capped[-1] == "[showing 10 of 12 entries; raise limit or list a subfolder]"
    (tmp_path / "empty").mkdir()
    assert text(run(LsTool(), LsParams(path="empty"), tmp_path)) == "empty is an empty folder."
    monkeypatch.setenv("HOME", str(tmp_path))
    missing = run(LsTool(), LsParams(path="~/nope"), tmp_path)
    assert missing.is_error and text(missing) == "Path not found: ~/nope"
    home = run(LsTool(), LsParams(path="~/empty/.."), tmp_path / "empty")
    assert text(home).splitlines()[0] == "empty/"


def test_ls_with_depth_is_the_workspace_tree_with_folder_counts(tree: Path) -> None:
    result = run(LsTool(), LsParams(depth=2), tree)
    assert text(result).splitlines() == [
        ".gitignore",
        ".hidden/ (1 file)",
        "  h.txt",
        "README.md",
        "app.py",
        "keep.log",
        "other/ (4 files)",
        "  .gitignore",
        "  .ignore",
        "  b.txt",
        "  keep.dat",
        "secret.txt",
        "sub/ (4 files)",
        "  .gitignore",
        "  deep/ (2 files)",
        "  mod.py",
    ]
    assert result.details["total"] == 16
    capped = run(LsTool(), LsParams(path="sub", depth=3, limit=2), tree)
    assert text(capped).splitlines() == [
        ".gitignore",
        "deep/ (2 files)",
        "",
        "[showing 2 of 5 entries; raise limit, lower depth or list a subfolder]",
    ]


# -- backend, abort, hook --------------------------------------------------------------


def test_backend_stops_when_told(tree: Path) -> None:
    stop = threading.Event()
    stop.set()
    answer = backend.search("grep", {"pattern": "needle"}, str(tree), stop)
    assert answer.matches == 0


def test_abort_returns_an_error_result(tree: Path) -> None:
    gate = threading.Event()

    async def slow_search(kind, **params):
        await asyncio.to_thread(gate.wait, 5)
        return FindAnswer(root=str(tree), paths=["late"], total=1)

    signal = AbortSignal()
    ctx = SimpleNamespace(cwd=str(tree), search=slow_search)

    async def go() -> ToolResult:
        task = asyncio.ensure_future(
            FindTool().execute("c", FindParams(pattern="*"), signal, lambda p: None, ctx)
        )
        await asyncio.sleep(0.05)
        signal.abort()
        result = await task
        gate.set()
        return result

    result = asyncio.run(go())
    assert result.is_error and text(result) == "find aborted."


def test_an_abort_from_another_thread_ends_the_search_and_a_cancel_stays_a_cancel(
    tree: Path,
) -> None:
    """The run may be aborted from any thread (a signal handler's, an embedder's): the
    search is stopped and the tool answers "aborted". Cancelling the tool call itself
    (its run torn down) is not an abort: the cancellation goes on up."""
    started = threading.Event()
    cancelled: list[bool] = []

    async def endless_search(kind, **params):
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    ctx = SimpleNamespace(cwd=str(tree), search=endless_search)

    async def aborted_elsewhere() -> ToolResult:
        signal = AbortSignal()
        task = asyncio.ensure_future(
            GrepTool().execute("c", GrepParams(pattern="x"), signal, None, ctx)
        )
        await asyncio.to_thread(started.wait, 5)
        threading.Thread(target=signal.abort).start()
        return await asyncio.wait_for(task, 5)

    result = asyncio.run(aborted_elsewhere())
    assert result.is_error and text(result) == "grep aborted."
    assert cancelled == [True]

    async def cancelled_call() -> None:
        started.clear()
        task = asyncio.ensure_future(
            GrepTool().execute("c", GrepParams(pattern="x"), AbortSignal(), None, ctx)
        )
        await asyncio.to_thread(started.wait, 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancelled_call())
    assert cancelled == [True, True]


def call(name: str, **arguments) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def ends(events) -> list:
    return events.of("tool_execution_end")


def test_end_to_end_through_the_harness(omp_harness) -> None:
    make_tree(omp_harness.cwd)
    script = [
        call("find", pattern="**/*.py"),
        call("grep", pattern="needle", glob="*.ts"),
        call("ls", path="sub"),
        call("grep", pattern="(", path="."),
        {"text": "done"},
    ]
    events = omp_harness.run(omp_harness.session(script=script), "go")
    found, grepped, listed, bad = ends(events)
    assert not found.is_error
    assert found.result["content"][0].text == "app.py\nsub/mod.py"
    assert grepped.result["content"][0].text == "sub/deep/x.ts:1:const needle = 2;"
    assert listed.result["content"][0].text.splitlines() == [
        ".gitignore  25 B",
        "deep/",
        "mod.py  9 B",
        "secret.txt  7 B",
        "top-only.txt  7 B",
    ]
    assert bad.is_error and "Invalid regex '('" in bad.result["content"][0].text
    assert events.final_text() == "done"


class FakeBackend:
    """A backend that answers first (tryfirst) with canned answers, one as a dict."""

    def __init__(self) -> None:
        self.seen: list = []

    @omp.hookimpl(tryfirst=True)
    def omp_search(self, event):
        self.seen.append((event.kind, dict(event.params), event.cwd))
        if event.kind == "find":
            return {"result": FindAnswer(root=event.cwd, paths=["from/fake.rs"], total=7)}
        line = GrepLine("fake.rs", 42, "fn needle() {}")
        return {"result": {"root": event.cwd, "lines": [line], "matches": 1}}


def test_a_tryfirst_backend_takes_over(omp_harness) -> None:
    make_tree(omp_harness.cwd)
    fake = FakeBackend()
    script = [call("find", pattern="*.py", limit=1), call("grep", pattern="needle"), {"text": "ok"}]
    events = omp_harness.run(omp_harness.session([fake], script=script), "go")
    found, grepped = ends(events)
    assert found.result["content"][0].text == (
        "from/fake.rs\n\n[showing 1 of 7 matches; narrow the pattern]"
    )
    assert grepped.result["content"][0].text == "fake.rs:42:fn needle() {}"
    kind, params, cwd = fake.seen[1]
    assert (kind, cwd) == ("grep", str(omp_harness.cwd))
    assert params["pattern"] == "needle" and params["limit"] == 100
    assert params["outputMode"] == "content"


def test_answers_as_dicts_or_dataclasses_render_the_same(tree: Path) -> None:
    from omp_tool_search.answers import coerce_grep

    answer = GrepAnswer(root=str(tree), counts=[("a", 2)], mode="count", matches=2)
    as_dict = {"root": str(tree), "counts": [["a", 2]], "mode": "count", "matches": 2}
    assert coerce_grep(as_dict) == answer


def test_schemas_use_pi_names_and_stay_small() -> None:
    grep_schema = GrepTool().json_schema()
    assert set(grep_schema["properties"]) == {
        "pattern",
        "path",
        "glob",
        "type",
        "ignoreCase",
        "literal",
        "context",
        "limit",
        "outputMode",
    }
    assert grep_schema["required"] == ["pattern"]
    assert set(FindTool().json_schema()["properties"]) == {"pattern", "path", "limit"}
    assert set(LsTool().json_schema()["properties"]) == {"path", "limit", "depth"}
    for tool in (GrepTool(), FindTool(), LsTool()):
        assert len(tool.description) < 160


def test_plugin_module_is_cheap_to_import() -> None:
    code = (
        "import sys, omp_tool_search.plugin; "
        "bad = [m for m in ('pydantic', 'pathspec', 'omp_tool_search.tools', 're2') "
        "if m in sys.modules]; sys.exit(1 if bad else 0)"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    assert subprocess.run([sys.executable, "-c", code], env=env, check=False).returncode == 0


def test_aborting_the_run_stops_the_backend_walk(omp_harness, monkeypatch) -> None:
    stopped = threading.Event()

    def slow_search(kind, params, cwd, stop, regex_timeout=None, on_partial=None):
        if stop.wait(10):
            stopped.set()
        return GrepAnswer(root=cwd)

    monkeypatch.setattr(backend, "search", slow_search)
    monkeypatch.setenv("OMP_SETTINGS", '{"search": {"backend": "python"}}')  # not natives
    session = omp_harness.session(script=[call("grep", pattern="x"), {"text": "never"}])

    async def abort_soon(s):
        await asyncio.sleep(0.3)
        s.context.abort()

    events = omp_harness.run(session, "go", during=abort_soon)
    (end,) = ends(events)
    assert end.is_error
    assert stopped.wait(2), "the backend's walk was not told to stop"


def test_cancelling_the_hook_stops_the_walk(monkeypatch, tmp_path: Path) -> None:
    from omp import SearchEvent
    from omp_tool_search import plugin

    stopped = threading.Event()

    def slow_search(kind, params, cwd, stop, regex_timeout=None, on_partial=None):
        if stop.wait(10):
            stopped.set()

    monkeypatch.setattr(backend, "search", slow_search)

    async def go() -> None:
        event = SearchEvent(kind="find", params={"pattern": "*"}, cwd=str(tmp_path))
        task = asyncio.ensure_future(plugin.omp_search(event, SimpleNamespace(settings=None)))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    assert stopped.wait(2)
