"""The omp-natives plugin: it answers first, steps aside when told to or when its build
is stale, stops within 50 ms when cancelled, streams matches, and its other functions
(fuzzy paths, tree, text width) work from Python."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from omp import SearchEvent

omp_natives = pytest.importorskip(
    "omp_natives", reason="omp-natives is not installed (needs cargo; bash scripts/setup)"
)
from omp_natives import plugin  # noqa: E402

native = omp_natives.load()


def small_tree(root: Path, files: int = 40) -> Path:
    for i in range(files):
        folder = root / f"d{i % 10}"
        folder.mkdir(exist_ok=True)
        (folder / f"f{i}.py").write_text(f"x = {i}\nneedle = {i}\n", encoding="utf-8")
    return root


def search(kind: str, params: dict, cwd: Path, settings=None):
    event = SearchEvent(kind=kind, params=params, cwd=str(cwd))
    return asyncio.run(plugin.omp_search(event, SimpleNamespace(settings=settings)))


def test_the_plugin_answers_a_grep(tmp_path: Path) -> None:
    small_tree(tmp_path)
    params = {"pattern": "needle = 3$", "outputMode": "files", "limit": 100}
    answer = search("grep", params, tmp_path)["result"]
    assert answer.files == ["d3/f3.py"]


def test_the_setting_forces_the_pure_python_backend(tmp_path: Path) -> None:
    small_tree(tmp_path)
    settings = {"search.backend": "python"}
    assert search("grep", {"pattern": "needle"}, tmp_path, settings) is None
    assert plugin.search_backend_status(settings) == 'search.backend is "python"'
    assert plugin.search_backend_status({}) is None


def test_a_stale_build_is_reported_and_python_answers(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(native, "__version__", "0.0.1")
    omp_natives._loaded.cache_clear()
    try:
        reason = plugin.search_backend_status(None)
        assert reason is not None and "0.0.1" in reason and "--force-reinstall" in reason
        assert search("find", {"pattern": "*"}, small_tree(tmp_path)) is None
    finally:
        monkeypatch.undo()
        omp_natives._loaded.cache_clear()
    assert plugin.search_backend_status(None) is None


def test_a_cancelled_grep_stops_within_50_ms(tmp_path: Path) -> None:
    small_tree(tmp_path, files=3000)
    token = native.CancelToken()
    cancelled_at: list[float] = []

    def on_batch(batch) -> None:
        if not cancelled_at:
            cancelled_at.append(time.perf_counter())
            token.cancel()

    answer = native.grep(str(tmp_path), "needle", "count", 10**6, cancel=token, on_batch=on_batch)
    stopped = time.perf_counter() - cancelled_at[0]
    assert stopped < 0.05, f"took {stopped * 1000:.0f} ms to stop"
    assert answer["files_searched"] < 3000


def test_a_short_grep_is_answered_without_suspending_the_hook(tmp_path: Path) -> None:
    event = SearchEvent(kind="grep", params={"pattern": "needle"}, cwd=str(small_tree(tmp_path)))
    step = plugin.omp_search(event, SimpleNamespace(settings=None))
    with pytest.raises(StopIteration) as over:  # over in its first step: no loop turn
        step.send(None)
    assert len(over.value.value["result"].lines) == 40


def test_a_grep_past_its_inline_time_goes_on_on_a_thread_of_its_own(tmp_path: Path) -> None:
    small_tree(tmp_path, files=3000)
    whole = native.grep(str(tmp_path), "needle", "count", 5000)
    started = time.perf_counter()
    search = native.grep_start(str(tmp_path), "needle", "count", 5000, inline_for=1e-6)
    assert time.perf_counter() - started < 0.05
    assert not search.done
    assert search.wait(10)
    assert search.result() == whole


def test_an_aborted_hook_call_cancels_the_native_walk(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(plugin, "INLINE_S", 0)  # at once on its own thread: the hook waits
    tokens = []
    real = native.CancelToken

    def recording_token():
        tokens.append(real())
        return tokens[-1]

    monkeypatch.setattr(native, "CancelToken", recording_token)
    walking, release = threading.Event(), threading.Event()

    def hold_the_walk(batch) -> None:  # called on the walk's thread: it cannot end meanwhile
        walking.set()
        release.wait(10)

    async def go() -> None:
        tree = small_tree(tmp_path, files=600)  # more hits than one batch holds
        params = {"pattern": "x", "limit": 5000}
        event = SearchEvent(kind="grep", params=params, cwd=str(tree))
        event.on_partial = hold_the_walk
        task = asyncio.ensure_future(plugin.omp_search(event, SimpleNamespace(settings=None)))
        assert await asyncio.to_thread(walking.wait, 10), "the walk never reported a batch"
        task.cancel()
        try:
            with pytest.raises(asyncio.CancelledError):
                await task
        finally:
            release.set()

    asyncio.run(go())
    assert tokens and tokens[0].cancelled


def test_matches_reach_python_in_batches_before_the_search_ends(tmp_path: Path) -> None:
    small_tree(tmp_path, files=3000)
    for mode in ("files", "content"):
        full = native.grep(str(tmp_path), "needle", mode, 5000)
        token = native.CancelToken()
        batches = []

        def first_batch_stops_it(batch, batches=batches, token=token) -> None:
            batches.append(batch)
            token.cancel()

        cut = native.grep(
            str(tmp_path), "needle", mode, 5000, cancel=token, on_batch=first_batch_stops_it
        )
        assert batches, "no batch before the search ended"
        assert cut["files_searched"] < full["files_searched"] == 3000
        if mode == "files":
            streamed = [path for batch in batches for path, _count, _lines in batch]
            assert streamed == full["files"][: len(streamed)]  # in walk order
        else:
            streamed = [(p, n, t) for b in batches for p, _c, lines in b for n, t, _m in lines]
            expected = [(x["path"], x["line"], x["text"]) for x in full["lines"]]
            assert streamed == expected[: len(streamed)]


def test_a_background_grep_wakes_its_socket_and_answers_once(tmp_path: Path) -> None:
    """grep_start returns at once; its socket becomes readable when the search is over
    (what an event loop watches), and the answer is built by whoever takes it, once."""
    import select

    small_tree(tmp_path, files=50)
    search = native.grep_start(str(tmp_path), "(?m)needle = 7$", "files", 100)
    readable, _, _ = select.select([search.fileno()], [], [], 5)
    assert readable == [search.fileno()]
    assert search.done and search.wait(0)
    assert search.result()["files"] == ["d7/f7.py"]
    with pytest.raises(RuntimeError, match="already taken"):
        search.result()
    with pytest.raises(ValueError):
        native.grep_start(str(tmp_path), "(")


def test_a_background_grep_is_refused_an_answer_before_it_is_over(tmp_path: Path) -> None:
    small_tree(tmp_path, files=3000)
    token = native.CancelToken()
    search = native.grep_start(str(tmp_path), "needle", "content", 10**9, cancel=token)
    if not search.done:
        with pytest.raises(RuntimeError, match="still running"):
            search.result()
    token.cancel()
    assert search.wait(5)
    assert search.result()["files_searched"] <= 3000


def test_the_gil_is_released_while_searching(tmp_path: Path) -> None:
    small_tree(tmp_path, files=2000)
    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0)

    counter = threading.Thread(target=count)
    counter.start()
    before = ticks
    for _ in range(5):
        native.grep(str(tmp_path), "needle", "count", 10**6)
    done.set()
    counter.join()
    assert ticks - before > 10


def test_fuzzy_ranks_100k_paths_quickly() -> None:
    paths = [f"pkg{i % 97}/module{i}/file_{i}.py" for i in range(100_000)]
    paths.append("src/omp/plugin/manager.py")
    index = native.FuzzyIndex(paths)
    best = min(_timed(lambda: index.rank("plgmgr", 10)) for _ in range(3))
    assert index.rank("plgmgr", 10)[0][0] == "src/omp/plugin/manager.py"
    assert best < 0.2  # bench/natives_search.py measures the 20 ms target


def _timed(work) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def test_fuzzy_index_of_a_workspace_honours_ignore_files(tmp_path: Path) -> None:
    small_tree(tmp_path, files=10)
    (tmp_path / ".gitignore").write_text("d1/\n", encoding="utf-8")
    index = native.FuzzyIndex.from_root(str(tmp_path))
    assert len(index) == 10  # 9 files left and .gitignore
    assert [p for p, _ in native.fuzzy_rank("f2", ["d2/f2.py", "x.md"])] == ["d2/f2.py"]


def test_tree_and_text_width(tmp_path: Path) -> None:
    small_tree(tmp_path, files=20)
    answer = native.tree(str(tmp_path), 1, 5)
    assert answer["lines"][:2] == ["d0/ (2 files)", "d1/ (2 files)"]
    assert len(answer["lines"]) == 5 and answer["total"] == 10
    assert native.text_width("日本a") == 5
    assert native.truncate_to_width("日本語テキスト", 7) == "日本語…"


def test_the_plugin_module_is_cheap_to_import() -> None:
    code = (
        "import sys, omp_natives.plugin; "
        "sys.exit(1 if 'omp_natives._native' in sys.modules or 'omp_tool_search.translate' "
        "in sys.modules else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def _call(name: str, **arguments) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_a_missing_path_gets_the_closest_workspace_paths(omp_harness) -> None:
    small_tree(omp_harness.cwd, files=30)
    (omp_harness.cwd / "src" / "omp").mkdir(parents=True)
    (omp_harness.cwd / "src" / "omp" / "plugin_manager.py").write_text("x\n", encoding="utf-8")
    script = [
        _call("find", pattern="*.py", path="src/omp/plugin_manger.py"),
        _call("grep", pattern="x", path="srx/omp"),
        _call("grep", pattern="x", path="nothing-like-it-zzzz"),
        {"text": "done"},
    ]
    events = omp_harness.run(omp_harness.session(script=script), "go")
    typo, folder, unknown = events.of("tool_execution_end")
    text = "\n".join(block.text for block in typo.result["content"])
    assert typo.is_error and "Path not found" in text
    assert text.splitlines()[-1].startswith("Did you mean: src/omp/plugin_manager.py")
    folder_text = folder.result["content"][-1].text
    assert folder_text.startswith("Did you mean: src/omp/") and folder.is_error
    assert "Did you mean" not in "\n".join(b.text for b in unknown.result["content"])
