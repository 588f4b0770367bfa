"""What an editor gets under a finished edit, write or ast_edit: the diffs, and a
language server's diagnostics after them (omp-lsp's ``details["diagnostics"]``)."""

from __future__ import annotations

from omp_mode_acp.updates import call_finished, tool_kind

NOTE = ["LSP diagnostics (new or changed):", 'm.py:2:7 [error] "y" is not defined']
EDIT_DIFF = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n x = 1\n-print(x)\n+print(y)\n"


def _result(text: str, **details: object) -> dict[str, object]:
    return {"content": [{"type": "text", "text": text}], "details": details}


def test_diagnostics_follow_the_edit_diff() -> None:
    result = _result("Edited m.py\n" + "\n".join(NOTE), diff=EDIT_DIFF, diagnostics=NOTE)
    args = {"path": "m.py", "edits": []}
    update = call_finished("e1", "edit", args, result, False, "/w")
    diff, note = update.content
    assert (diff.type, diff.path) == ("diff", "/w/m.py")
    assert (diff.old_text, diff.new_text) == ("x = 1\nprint(x)", "x = 1\nprint(y)")
    assert note.type == "content" and note.content.text == "\n".join(NOTE)


def test_diagnostics_follow_the_write_diff() -> None:
    result = _result("Wrote 9 bytes", bytes=9, diagnostics=NOTE)
    update = call_finished(
        "w1", "write", {"path": "m.py", "content": "print(y)\n"}, result, False, "/w"
    )
    written, note = update.content
    assert (written.path, written.old_text, written.new_text) == ("/w/m.py", None, "print(y)\n")
    assert NOTE[1] in note.content.text


def test_an_applied_ast_edit_is_a_diff_per_file() -> None:
    diff = (
        "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-print(1)\n+log(1)\n"
        "--- a/pkg/b.py\n+++ b/pkg/b.py\n@@ -1,2 +1,2 @@\n x = 2\n-print(x)\n+log(x)\n"
    )
    result = _result("Applied 2 replacements in 2 files.", diff=diff, applied=True)
    update = call_finished("a1", "ast_edit", {"ops": [], "paths": ["."]}, result, False, "/w")
    first, second = update.content
    assert (first.path, first.old_text, first.new_text) == ("/w/a.py", "print(1)", "log(1)")
    assert (second.path, second.old_text, second.new_text) == (
        "/w/pkg/b.py",
        "x = 2\nprint(x)",
        "x = 2\nlog(x)",
    )
    assert tool_kind("ast_edit") == "edit"


def test_an_ast_edit_preview_stays_text() -> None:
    diff = "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-print(1)\n+log(1)\n"
    result = _result("Preview (not applied): 1 replacement in 1 file.\n\n" + diff, diff=diff)
    update = call_finished("a1", "ast_edit", {"ops": [], "paths": ["a.py"]}, result, False, "/w")
    [text] = update.content
    assert text.type == "content" and "Preview (not applied)" in text.content.text
