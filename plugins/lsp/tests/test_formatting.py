"""Format-on-write applies the server's TextEdits (UTF-16 positions, last first)."""

from __future__ import annotations

from omp_lsp.formatting import apply_text_edits


def _edit(l1: int, c1: int, l2: int, c2: int, text: str) -> dict:
    return {
        "range": {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}},
        "newText": text,
    }


def test_edits_apply_from_the_end_with_utf16_columns() -> None:
    source = "a=1\ns='😀'+x\n"
    edits = [_edit(0, 1, 0, 2, " = "), _edit(1, 6, 1, 7, " + ")]  # the emoji is 2 UTF-16 units
    assert apply_text_edits(source, edits) == "a = 1\ns='😀' + x\n"


def test_an_edit_past_the_end_appends() -> None:
    assert apply_text_edits("x\n", [_edit(5, 0, 5, 0, "y\n")]) == "x\ny\n"
