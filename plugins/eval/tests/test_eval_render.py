"""What a person sees of an eval call: one line per cell (its title, else its first line
of code), then each cell's status, output, error in red, images as placeholders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omp import ToolResult
from omp_tool_eval.render import render_call, render_result
from test_eval import Eval, run_with

RED, PLAIN = "\x1b[31m", "\x1b[0m"


def red(line: str) -> str:
    return f"{RED}{line}{PLAIN}"


ARGS = {"cells": [{"code": "import math", "title": "imports"}, {"code": "\n\nprint(1)\n2"}]}


def test_the_call_shows_each_cells_title_or_first_line_of_code() -> None:
    assert render_call(ARGS, {}) == ["eval", "  [1/2] imports", "  [2/2] print(1)"]
    assert render_call({"cells": [{"code": "x = 1"}], "reset": True}, {}) == ["eval (reset) x = 1"]
    assert render_call(ARGS, {"expanded": True}) == [
        "eval",
        "  [1/2] imports",
        "    import math",
        "  [2/2] print(1)",
        "    ",
        "    ",
        "    print(1)",
        "    2",
    ]
    assert render_call({"command": "ls"}, {}) is None  # not eval's shape: the default view


def test_a_real_run_shows_each_cells_output_and_its_error_in_red(tmp_path: Path) -> None:
    codes = ("print('hello')", "def f():\n    return 1 / 0\nf()", "print('never')")

    async def scenario(run: Eval) -> ToolResult:
        return await run(*codes, timeout=10)

    result = run_with(tmp_path, scenario)
    args = {"cells": [{"code": code} for code in codes]}
    lines = render_result(result, {"args": args, "width": 60})
    assert lines is not None
    durations = [c["durationMs"] for c in result.details["cells"]]
    assert lines[:3] == [
        f"✓ [1/3] print('hello') · {durations[0]}ms",
        "  hello",
        red(f"✗ [2/3] def f(): · {durations[1]}ms"),
    ]
    assert lines[3] == red("  Traceback (most recent call last):")
    assert lines[-2] == red("  ZeroDivisionError: division by zero")
    assert all(line.startswith(RED) for line in lines[3:-1])
    assert lines[-1] == "1 more cell(s) not run"
    assert render_result(result, {"args": args, "partial": True}) is None


def details(**cell: Any) -> dict[str, Any]:
    return {"cells": [{"index": 1, "status": "complete", **cell}], "notes": []}


def test_images_are_placeholders_and_long_output_folds_unless_expanded() -> None:
    output = "\n".join(f"line {i}" for i in range(30))
    result = ToolResult.text("...", details(output=output, images=["image/png"]))
    args = {"cells": [{"code": "plot()", "title": "chart"}]}
    folded = render_result(result, {"args": args})
    assert folded == [
        "✓ chart",
        "  … 20 earlier line(s)",
        *[f"  line {i}" for i in range(20, 30)],
        "  [image/png image]",
    ]
    full = render_result(result, {"args": args, "expanded": True})
    assert full is not None and len(full) == 1 + 30 + 1


def test_a_timeout_a_reset_and_a_spilled_output_are_shown() -> None:
    note = "Cell timed out after 1 s and was interrupted."
    shape = details(status="timeout", notes=[note], durationMs=1500)
    shape["notes"] = ["Kernel reset: all state cleared."]
    shape["artifact"] = "artifact://abc"
    lines = render_result(ToolResult.text("...", shape), {"args": {"cells": [{"code": "loop"}]}})
    assert lines == [
        "Kernel reset: all state cleared.",
        red("⏱ loop · 1.5s"),
        red(f"  {note}"),
        "full output: artifact://abc",
    ]
    long = render_result(ToolResult.text("...", shape), {"width": 20})
    assert long is not None and long[2] == red("  Cell timed out af…")
    assert render_result(ToolResult.text("plain"), {}) is None
