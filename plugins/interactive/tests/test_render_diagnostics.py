"""What a language server said after a write or edit (``details["diagnostics"]``, as
omp-lsp sets it), under the edit's diff; and a diff spanning several files (ast_edit's)."""

from __future__ import annotations

from typing import Any

import omp
import pytest
from omp_mode_interactive.render import Theme
from render_screen import Screen
from test_render_transcript import painted

NOTE = [
    "LSP diagnostics (new or changed):",
    'a.txt:2:7 [error] [checker] "undefined_thing" is not defined',
    "a.txt:3:1 [warning] [checker] unused expression",
]


class FakeServer:
    """Adds diagnostics to write/edit results the way omp-lsp's writethrough does."""

    @omp.hookimpl
    def omp_tool_result(self, event: Any) -> Any:
        if event.tool_name not in ("write", "edit") or event.is_error:
            return None
        details = {**(event.details or {}), "diagnostics": NOTE}
        return {
            "content": [*event.content, omp.TextContent(text="\n".join(NOTE))],
            "details": details,
        }


def _screen(omp_harness: Any, call: dict[str, Any], theme: Theme, **files: str) -> Screen:
    for name, text in files.items():
        (omp_harness.cwd / name).write_text(text)
    session = omp_harness.session([FakeServer()], script=[{"tool_calls": [call]}, {"text": "ok"}])
    return Screen(theme=theme).play(list(omp_harness.run(session, "go")))


def test_diagnostics_show_under_the_edit_diff_coloured_once(omp_harness: Any) -> None:
    edit = {"path": "a.txt", "edits": [{"oldText": "two", "newText": "TWO"}]}
    theme = Theme.dark()
    screen = _screen(
        omp_harness, {"name": "edit", "arguments": edit}, theme, **{"a.txt": "one\ntwo\n"}
    )
    text = screen.text
    assert "+TWO" in text
    assert text.index("+TWO") < text.index(NOTE[0]) < text.index(NOTE[1]) < text.index(NOTE[2])
    assert text.count("undefined_thing") == 1
    assert theme.styles["error"] in painted(screen.raw, NOTE[1])
    assert theme.styles["warning"] in painted(screen.raw, NOTE[2])


def test_diagnostics_are_kept_when_a_long_diff_is_cut(omp_harness: Any) -> None:
    before = "".join(f"line {i}\n" for i in range(40))
    edit = {"path": "a.txt", "edits": [{"oldText": before, "newText": before.upper()}]}
    screen = _screen(
        omp_harness, {"name": "edit", "arguments": edit}, Theme.dark(), **{"a.txt": before}
    )
    text = screen.text
    assert "Ctrl+O to expand" in text
    assert text.index("Ctrl+O to expand") < text.index(NOTE[1])


def test_diagnostics_show_under_a_write(omp_harness: Any) -> None:
    write = {"path": "a.txt", "content": "x\n"}
    screen = _screen(omp_harness, {"name": "write", "arguments": write}, Theme.dark())
    text = screen.text
    assert "Wrote 2 bytes" in text and NOTE[2] in text
    assert text.count("undefined_thing") == 1


def test_a_diff_over_several_files_names_each(omp_harness: Any) -> None:
    pytest.importorskip("omp_tool_ast", reason="ast_edit comes with omp-tool-ast")
    pytest.importorskip("ast_grep_py", reason="ast_edit needs the ast-grep engine")
    (omp_harness.cwd / "a.py").write_text("print(1)\n")
    (omp_harness.cwd / "b.py").write_text("x = 2\nprint(x)\n")
    ops = [{"pat": "print($A)", "out": "log($A)"}]
    call = {"name": "ast_edit", "arguments": {"ops": ops, "paths": ["a.py", "b.py"]}}
    session = omp_harness.session(
        script=[{"tool_calls": [call]}, {"text": "ok"}], builtins=["ast", "scripted"]
    )
    theme = Theme.dark()
    screen = Screen(theme=theme).play(list(omp_harness.run(session, "go")))
    text = screen.text
    assert "Preview (not applied): 2 replacements in 2 files" in text
    assert (
        text.index("▸ a.py") < text.index("+log(1)") < text.index("▸ b.py") < text.index("+log(x)")
    )
    assert "--- a/" not in text and "+++ b/" not in text
    assert theme.styles["diff_add"] in painted(screen.raw, "+log(x)")
