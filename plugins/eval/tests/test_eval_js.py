"""JavaScript cells (``language: "js"``) in a persistent node process per session."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from omp import AbortSignal, ToolResult
from omp_tool_eval.tool import EvalParams
from test_eval import Eval, call, gone, run_with, text, texts

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def js(*codes: str) -> list[dict[str, str]]:
    return [{"code": code, "language": "js"} for code in codes]


async def run_js(
    run: Eval, *codes: str, signal: AbortSignal | None = None, on_update: Any = None, **params: Any
) -> ToolResult:
    args = EvalParams(cells=js(*codes), **params)
    result = await run.tool.execute("c", args, signal or AbortSignal(), on_update, run.ctx)
    assert isinstance(result, ToolResult)
    return result


def test_js_state_is_kept_across_calls_and_node_dies_with_the_session(omp_harness: Any) -> None:
    mixed = [{"code": "print('from python')"}, *js("console.log('from js', x)")]
    session = omp_harness.session(
        script=[
            call(cells=js("var x = 40", "const wait = await Promise.resolve(2); x += wait")),
            call(cells=js("x")),
            call(cells=mixed),
            call(cells=js("typeof x"), reset=True),
            {"text": "done"},
        ],
        builtins=["eval"],
    )
    events = omp_harness.run(session, "count")
    assert texts(events) == [
        "[1/2]\n\n[2/2]",
        "42",
        "[1/2]\nfrom python\n\n[2/2]\nfrom js 42",
        "JavaScript process reset: all state cleared.\n\n'undefined'",
    ]
    pids = {e.result["details"]["nodePid"] for e in events.of("tool_execution_end")}
    assert len(pids) == 2 and None not in pids  # the reset started a new process
    assert all(gone(pid) for pid in pids)  # session shutdown killed node


def test_a_js_error_shows_the_users_stack_and_stops_the_cells(tmp_path: Path) -> None:
    async def scenario(run: Eval) -> ToolResult:
        return await run_js(run, "function f() { throw new Error('boom') }\nf()", "1")

    result = run_with(tmp_path, scenario)
    assert result.is_error
    out = text(result)
    assert "Error: boom\n    at f (cell[1]:1:22)\n    at cell[1]:2:1" in out
    assert "node:" not in out and out.endswith("Cell 2 was not run.")
    assert [c["status"] for c in result.details["cells"]] == ["error"]


def test_a_js_timeout_kills_node_the_model_is_told_and_the_next_call_works(
    tmp_path: Path,
) -> None:
    async def scenario(run: Eval) -> tuple[ToolResult, ToolResult, ToolResult]:
        first = await run_js(run, "globalThis.kept = 1")
        stuck = await run_js(run, "while (true) {}", timeout=1)
        assert gone(first.details["nodePid"])
        return first, stuck, await run_js(run, "typeof kept")

    _, stuck, after = run_with(tmp_path, scenario)
    assert stuck.is_error
    assert text(stuck) == (
        "Cell timed out after 1 s: the JavaScript process was killed, its state "
        "(variables, imports) was lost."
    )
    assert stuck.details["cells"][0]["status"] == "timeout"
    assert (text(after), after.is_error) == ("'undefined'", False)


def test_abort_kills_the_running_js_cell(tmp_path: Path) -> None:
    signal = AbortSignal()

    def on_update(update: ToolResult) -> None:
        if "started" in update.content[0].text:
            signal.abort()

    async def scenario(run: Eval) -> tuple[ToolResult, ToolResult]:
        code = "console.log('started'); while (true) {}"
        aborted = await run_js(run, code, signal=signal, on_update=on_update, timeout=60)
        return aborted, await run_js(run, "'again'")

    aborted, again = run_with(tmp_path, scenario)
    assert aborted.is_error
    assert text(aborted) == (
        "started\nCell was aborted: the JavaScript process was killed, its state "
        "(variables, imports) was lost."
    )
    assert text(again) == "'again'"


def test_js_cells_are_refused_without_node(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))

    async def scenario(run: Eval) -> ToolResult:
        return await run_js(run, "1")

    result = run_with(tmp_path, scenario)
    assert result.is_error
    assert text(result) == "JavaScript cells need node, which is not on PATH."
