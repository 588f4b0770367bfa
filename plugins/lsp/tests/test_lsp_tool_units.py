"""The lsp tool's pure parts: positions the model gives, output bounds, and applying a
WorkspaceEdit all or nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from omp_lsp.actions_edits import EditError, apply_text_edits, apply_workspace_edit, summarize
from omp_lsp.actions_format import bounded, format_diagnostic, format_document_symbols
from omp_lsp.positions import PositionError, resolve_position, symbol_index
from omp_lsp.uris import path_to_uri


def edit(line: int, start: int, end: int, text: str, end_line: int | None = None) -> dict:
    return {
        "range": {
            "start": {"line": line, "character": start},
            "end": {"line": line if end_line is None else end_line, "character": end},
        },
        "newText": text,
    }


def test_symbol_is_found_as_a_whole_word_and_by_occurrence() -> None:
    line = "total = subtotal + total_tax + total"
    assert symbol_index(line, "total", 1) == 0
    assert symbol_index(line, "total#2", 1) == 31
    assert symbol_index(line, "TOTAL", 1) == 0  # case-insensitive only as a fallback
    with pytest.raises(PositionError, match=r"occurrence 3 is out of bounds on line 1 \(found 2\)"):
        symbol_index(line, "total#3", 1)
    with pytest.raises(PositionError, match='Symbol "nope" not found on line 1'):
        symbol_index(line, "nope", 1)


def test_position_from_symbol_column_or_first_non_blank(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("x = 1\n    s = '𝄞' + name\n")
    assert resolve_position(str(source), 2) == {"line": 1, "character": 4}
    assert resolve_position(str(source), 2, column=5) == {"line": 1, "character": 4}
    # the clef is two UTF-16 units: "name" is at code point 14, LSP character 15
    assert resolve_position(str(source), 2, symbol="name") == {"line": 1, "character": 15}
    with pytest.raises(PositionError, match="Line 9 is past the end of the file"):
        resolve_position(str(source), 9)
    with pytest.raises(PositionError, match="File not found"):
        resolve_position(str(tmp_path / "gone.py"), 1)


def test_output_is_bounded_with_how_many_more() -> None:
    assert bounded(["a", "b", "c"], 3, "things") == ["a", "b", "c"]
    assert bounded(["a", "b", "c", "d"], 2, "things") == ["a", "b", "  … 2 more things"]


def test_diagnostic_and_symbol_lines() -> None:
    diagnostic = {
        **edit(2, 4, 9, ""),
        "severity": 2,
        "source": "basedpyright",
        "message": "unused\n  import",
        "code": "reportUnusedImport",
    }
    assert format_diagnostic(diagnostic, "a.py") == (
        "a.py:3:5 [warning] [basedpyright] unused import (reportUnusedImport)"
    )
    tree = [
        {
            "name": "C",
            "kind": 5,
            **edit(0, 0, 1, ""),
            "children": [{"name": "m", "kind": 6, "detail": "(self)", **edit(1, 4, 5, "")}],
        }
    ]
    assert format_document_symbols(tree) == ["Class C @ line 1", "  Method m (self) @ line 2"]


def test_text_edits_keep_crlf_and_apply_in_array_order() -> None:
    content = "a = 1\r\nb = a\r\n"
    assert apply_text_edits(content, [edit(0, 0, 1, "x"), edit(1, 4, 5, "x")]) == (
        "x = 1\r\nb = x\r\n"
    )
    assert apply_text_edits("ab", [edit(0, 1, 1, "1"), edit(0, 1, 1, "2")]) == "a12b"
    with pytest.raises(EditError, match="overlapping LSP edits"):
        apply_text_edits("abcdef", [edit(0, 0, 3, "x"), edit(0, 2, 4, "y")])


def test_workspace_edit_is_all_or_nothing(tmp_path: Path) -> None:
    one, two = tmp_path / "one.py", tmp_path / "two.py"
    one.write_text("old()\n")
    two.write_text("old()\n")
    good = {"changes": {path_to_uri(one): [edit(0, 0, 3, "new")]}}
    missing = {path_to_uri(tmp_path / "gone.py"): [edit(0, 0, 3, "new")]}
    with pytest.raises(EditError, match="file not found"):
        apply_workspace_edit({"changes": {**good["changes"], **missing}}, str(tmp_path))
    assert one.read_text() == "old()\n"  # rolled back

    blocked = tmp_path / "taken"
    blocked.write_text("")
    with pytest.raises(EditError):  # the move fails (its parent is a file): edits undone
        apply_workspace_edit(good, str(tmp_path), then_move=(str(two), str(blocked / "x.py")))
    assert one.read_text() == "old()\n" and two.exists()

    assert apply_workspace_edit(
        good, str(tmp_path), then_move=(str(two), str(tmp_path / "d" / "t.py"))
    ) == ["Applied 1 edit(s) to one.py"]
    assert one.read_text() == "new()\n"
    assert (tmp_path / "d" / "t.py").read_text() == "old()\n" and not two.exists()


def test_document_changes_with_resource_operations(tmp_path: Path) -> None:
    source = tmp_path / "a.py"
    source.write_text("A = 1\n")
    change = {
        "documentChanges": [
            {
                "textDocument": {"uri": path_to_uri(source), "version": None},
                "edits": [edit(0, 0, 1, "B")],
            },
            {
                "kind": "rename",
                "oldUri": path_to_uri(source),
                "newUri": path_to_uri(tmp_path / "b.py"),
            },
            {"kind": "create", "uri": path_to_uri(tmp_path / "c.py")},
        ]
    }
    assert summarize(change, str(tmp_path)) == [
        "a.py: 1 edit",
        '  line 1:1 → "B"',
        "RENAME: a.py → b.py",
        "CREATE: c.py",
    ]
    assert apply_workspace_edit(change, str(tmp_path)) == [
        "Applied 1 edit(s) to a.py",
        "Renamed a.py → b.py",
        "Created c.py",
    ]
    assert (tmp_path / "b.py").read_text() == "B = 1\n" and (tmp_path / "c.py").read_text() == ""
