"""Where the natives' other functions are used when omp-natives is installed: the
terminal UI's @file completion ranks with its fuzzy matcher, renderers measure text with
its unicode-width, ``ls`` with a depth and the system prompt's tree come from its tree
(through ``ctx.search("tree")``, which it answers first)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

omp_natives = pytest.importorskip(
    "omp_natives", reason="omp-natives is not installed (needs cargo; bash scripts/setup)"
)


def test_file_completion_ranks_with_the_natives_matcher(monkeypatch) -> None:
    completion = pytest.importorskip("omp_mode_interactive.completion")
    native, calls = omp_natives.load(), []
    real = native.fuzzy_rank

    def spy(query, paths, limit):
        calls.append(query)
        return real(query, paths, limit)

    monkeypatch.setattr(native, "fuzzy_rank", spy)
    paths = ["src/main.py", "docs/manual.md", "tests/test_main.py"]
    assert completion.rank_paths("main", paths, 2)[0] == "src/main.py"
    assert calls == ["main"]


def test_file_completion_keeps_the_workspace_list_on_the_natives_side(monkeypatch) -> None:
    completion = pytest.importorskip("omp_mode_interactive.completion")
    native, made = omp_natives.load(), []
    real = native.FuzzyIndex

    def counting(paths):
        made.append(len(paths))
        return real(paths)

    monkeypatch.setattr(native, "FuzzyIndex", counting)
    paths = [f"pkg{i}/module{i}.py" for i in range(500)] + ["src/main.py"]

    class Context:  # the session's handler context: ``ctx.search("find", ...)``
        async def search(self, kind, **params):
            return {"root": "/w", "paths": paths, "total": len(paths)}

    files = completion.WorkspaceFiles(SimpleNamespace(context=Context()))

    async def typing() -> list[list[str]]:
        return [await files.rank(query, 3) for query in ("m", "ma", "mai", "main")]

    ranked = asyncio.run(typing())
    assert ranked[-1][0] == "src/main.py"
    assert ranked == [completion.rank_paths(q, paths, 3) for q in ("m", "ma", "mai", "main")]
    assert made == [len(paths)]  # one index for the four keystrokes


def test_renderers_measure_with_unicode_width() -> None:
    width = pytest.importorskip("omp_mode_interactive.render.width")
    # A soft hyphen takes no cell in unicode-width, one in rich's table (the fallback).
    assert omp_natives.load().text_width("a\u00adb") == 2
    assert width.text_width("a\u00adb") == 2
    assert width.truncate("一二三四", 5) == omp_natives.load().truncate_to_width("一二三四", 5, "…")


def test_the_tree_search_is_answered_by_natives(tmp_path) -> None:
    from omp import SearchEvent
    from omp_natives import plugin

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("x\n")
    event = SearchEvent(kind="tree", params={"depth": 2}, cwd=str(tmp_path))
    answer = asyncio.run(plugin.omp_search(event, SimpleNamespace(settings=None)))
    assert answer["result"]["lines"] == ["pkg/ (1 file)", "  mod.py"]
