"""The built-in ``write`` and ``edit`` tools (plugins/edit), against real files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from omp import AbortSignal, FileLedger, ToolResult
from omp_tool_edit.edit import EditParams, EditTool
from omp_tool_edit.write import WriteParams, WriteTool

POSIX_PERMS = sys.platform != "win32" and os.geteuid() != 0


def make_ctx(cwd: Path) -> SimpleNamespace:
    return SimpleNamespace(cwd=str(cwd), file_reads=FileLedger())


def edit(ctx: Any, path: str, *edits: dict[str, Any], signal: AbortSignal | None = None):
    params = EditParams(path=path, edits=list(edits))
    result = EditTool().execute("c1", params, signal or AbortSignal(), lambda p: None, ctx)
    assert isinstance(result, ToolResult)
    return result


def write(ctx: Any, path: str, content: str) -> ToolResult:
    params = WriteParams(path=path, content=content)
    return WriteTool().execute("c1", params, AbortSignal(), lambda p: None, ctx)


def text_of(result: ToolResult) -> str:
    assert len(result.content) == 1
    return result.content[0].text


def put(ctx: Any, path: Path, data: bytes) -> Path:
    """A file the model has read (so no stale-read note)."""
    path.write_bytes(data)
    ctx.file_reads.record(path)
    return path


@pytest.fixture
def ctx(tmp_path: Path) -> SimpleNamespace:
    return make_ctx(tmp_path)


# -- write ----------------------------------------------------------------------------


def test_write_creates_directories_and_reports_counts(ctx: Any, tmp_path: Path) -> None:
    content = "".join(f"line {i} é\n" for i in range(1, 57)) + "x" * 500
    result = write(ctx, "src/deep/x.py", content)
    target = tmp_path / "src" / "deep" / "x.py"
    assert not result.is_error
    size = len(content.encode("utf-8"))
    assert size > 1000
    assert text_of(result) == f"Wrote {size:,} bytes (57 lines) to src/deep/x.py"
    assert target.read_bytes() == content.encode("utf-8")
    assert result.details == {
        "path": str(target),
        "bytes": size,
        "lines": 57,
        "created": True,
    }
    assert ctx.file_reads.changed_since_read(target) is False  # the model knows it
    assert [p.name for p in target.parent.iterdir()] == ["x.py"]  # no temp file left


def test_write_overwrites_keeping_mode_and_bytes_exact(ctx: Any, tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_text("old content that is longer\n")
    target.chmod(0o750)
    result = write(ctx, str(target), "#!/bin/sh\r\necho hi")
    assert text_of(result) == "Wrote 18 bytes (2 lines) to run.sh"
    assert result.details["created"] is False
    assert target.read_bytes() == b"#!/bin/sh\r\necho hi"
    assert target.stat().st_mode & 0o777 == 0o750
    assert text_of(write(ctx, "one.txt", "x")) == "Wrote 1 byte (1 line) to one.txt"
    assert text_of(write(ctx, "empty.txt", "")) == "Wrote 0 bytes (0 lines) to empty.txt"


def test_write_expands_home_and_follows_symlinks(
    ctx: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    assert not write(ctx, "~/notes/a.md", "# hi\n").is_error
    assert (home / "notes" / "a.md").read_text() == "# hi\n"
    real = tmp_path / "real.txt"
    real.write_text("before")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write(ctx, "link.txt", "after")
    assert link.is_symlink()
    assert real.read_text() == "after"


def test_write_errors(ctx: Any, tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    result = write(ctx, "pkg", "x")
    assert result.is_error
    assert text_of(result) == "pkg is a directory; give the path of a file to write."
    (tmp_path / "plain").write_text("i am a file")
    result = write(ctx, "plain/sub/x.txt", "x")
    assert result.is_error
    assert "a parent of it is a file" in text_of(result)
    assert (tmp_path / "plain").read_text() == "i am a file"


@pytest.mark.skipif(not POSIX_PERMS, reason="permissions are not enforced")
def test_write_permission_problems(ctx: Any, tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "f.txt").write_text("keep")
    readonly = tmp_path / "ro.txt"
    readonly.write_text("keep")
    readonly.chmod(0o444)
    locked.chmod(0o555)
    try:
        in_locked = write(ctx, "locked/new.txt", "x")
        nested = write(ctx, "locked/sub/new.txt", "x")
        ro = write(ctx, "ro.txt", "changed")
    finally:
        locked.chmod(0o755)
    assert in_locked.is_error and "permission denied" in text_of(in_locked)
    assert nested.is_error and "permission denied" in text_of(nested)
    assert ro.is_error and text_of(ro) == "Cannot write ro.txt: it is read-only (mode 0444)."
    assert readonly.read_text() == "keep"
    assert sorted(p.name for p in locked.iterdir()) == ["f.txt"]


# -- edit: exact matching and file conventions ----------------------------------------


def test_crlf_file_stays_crlf_byte_exactly(ctx: Any, tmp_path: Path) -> None:
    f = put(ctx, tmp_path / "w.txt", b"alpha\r\nbeta\r\ngamma\r\ndelta\r\n")
    result = edit(
        ctx,
        "w.txt",
        {"oldText": "beta\ngamma", "newText": "BETA\nnew line\nGAMMA"},
        {"oldText": "delta\r\n", "newText": "omega\r\n"},  # CRLF from the model works too
    )
    assert not result.is_error, text_of(result)
    assert f.read_bytes() == b"alpha\r\nBETA\r\nnew line\r\nGAMMA\r\nomega\r\n"
    assert text_of(result) == "Edited w.txt: 2 replacements, +4 -3 lines"
    # No final newline stays absent.
    g = put(ctx, tmp_path / "n.txt", b"one\r\ntwo")
    edit(ctx, "n.txt", {"oldText": "two", "newText": "2\n2b"})
    assert g.read_bytes() == b"one\r\n2\r\n2b"


def test_bom_and_mixed_line_endings(ctx: Any, tmp_path: Path) -> None:
    f = put(ctx, tmp_path / "bom.cs", b"\xef\xbb\xbfclass A {}\r\n")
    edit(ctx, "bom.cs", {"oldText": "class A", "newText": "class B"})
    assert f.read_bytes() == b"\xef\xbb\xbfclass B {}\r\n"
    # Mixed endings: lines the edit did not touch keep theirs; new lines get the
    # dominant one (CRLF here).
    m = put(ctx, tmp_path / "mixed.txt", b"a\r\nb\nc\r\nd\r\ne\n")
    result = edit(ctx, "mixed.txt", {"oldText": "c\nd", "newText": "C\nx\nD"})
    assert not result.is_error
    assert m.read_bytes() == b"a\r\nb\nC\r\nx\r\nD\r\ne\n"


def test_non_utf8_bytes_survive(ctx: Any, tmp_path: Path) -> None:
    f = put(ctx, tmp_path / "latin.txt", b"caf\xe9 = 1\nname = 'x'\n")
    result = edit(ctx, "latin.txt", {"oldText": "'x'", "newText": "'y'"})
    assert not result.is_error
    assert f.read_bytes() == b"caf\xe9 = 1\nname = 'y'\n"


def test_tabs_exact(ctx: Any, tmp_path: Path) -> None:
    src = b"func main() {\n\tif ok {\n\t\treturn\n\t}\n}\n"
    f = put(ctx, tmp_path / "main.go", src)
    result = edit(ctx, "main.go", {"oldText": "\t\treturn\n", "newText": "\t\treturn nil\n"})
    assert text_of(result) == "Edited main.go: 1 replacement, +1 -1 lines"
    assert result.details["fuzzy"] is False
    assert f.read_bytes() == src.replace(b"return", b"return nil")


def test_unicode_emoji_and_combining(ctx: Any, tmp_path: Path) -> None:
    decomposed = "cafe\u0301"  # e + COMBINING ACUTE ACCENT
    src = f'greeting = "👋 hello"\nname = "{decomposed}"\nflag = "🇫🇷"\n'
    f = put(ctx, tmp_path / "u.py", src.encode("utf-8"))
    result = edit(
        ctx,
        "u.py",
        {"oldText": '"👋 hello"', "newText": '"👋🏽 salut"'},
        {"oldText": "🇫🇷", "newText": "🇩🇪"},
    )
    assert not result.is_error
    expected = src.replace("👋 hello", "👋🏽 salut").replace("🇫🇷", "🇩🇪")
    assert f.read_bytes() == expected.encode("utf-8")
    # The composed form (what a model usually sends) finds the decomposed line, as a
    # loose match, and the rest of the file keeps its exact bytes.
    result = edit(ctx, "u.py", {"oldText": 'name = "caf\u00e9"', "newText": 'name = "bar"'})
    assert not result.is_error, text_of(result)
    assert result.details["fuzzy"] is True
    assert f.read_bytes() == expected.replace(f'"{decomposed}"', '"bar"').encode("utf-8")


def test_multiple_edits_apply_in_order(ctx: Any, tmp_path: Path) -> None:
    f = put(ctx, tmp_path / "m.py", b"a = 1\nb = 1\nz = 3\n")
    result = edit(
        ctx,
        "m.py",
        {"oldText": "b = 1", "newText": "b = 2\nc = 2"},
        # Unique only once the first edit has changed "b = 1".
        {"oldText": "= 1", "newText": "= 5"},
        {"oldText": "z = 3\n", "newText": ""},
    )
    assert not result.is_error, text_of(result)
    assert f.read_bytes() == b"a = 5\nb = 2\nc = 2\n"
    assert text_of(result) == "Edited m.py: 3 replacements, +3 -3 lines"
    assert result.details["replacements"] == 3
    assert result.details["firstChangedLine"] == 1


def test_overlapping_edits_refused_file_unchanged(ctx: Any, tmp_path: Path) -> None:
    src = b"def a():\n    return 1\n\ndef b():\n    return 2\n"
    f = put(ctx, tmp_path / "o.py", src)
    before = f.stat().st_mtime_ns
    # The second edit's oldText is text the first one wrote.
    result = edit(
        ctx,
        "o.py",
        {"oldText": "return 1", "newText": "return 100"},
        {"oldText": "return 100\n\ndef", "newText": "return 1\n\nasync def"},
    )
    assert result.is_error
    assert text_of(result).startswith("edits[1] overlaps text changed by edits[0]")
    assert text_of(result).endswith("No edits were applied; o.py is unchanged.")
    # Both edits aim at the same original text.
    result = edit(
        ctx,
        "o.py",
        {"oldText": "def a():\n    return 1", "newText": "def a():\n    return 5"},
        {"oldText": "return 1\n\ndef b", "newText": "return 1\n\ndef c"},
    )
    assert result.is_error
    assert "edits[1] overlaps text changed by edits[0]" in text_of(result)
    assert f.read_bytes() == src
    assert f.stat().st_mtime_ns == before


def test_non_unique_match_lists_every_candidate(ctx: Any, tmp_path: Path) -> None:
    lines = ["total = 0", "count += 1", "pass", "count += 1", "x", "y", "count += 1"]
    f = put(ctx, tmp_path / "n.py", ("\n".join(lines) + "\n").encode())
    result = edit(ctx, "n.py", {"oldText": "count += 1", "newText": "count += 2"})
    assert result.is_error
    assert text_of(result).startswith(
        "edits[0].oldText matches 3 places in n.py (lines 2, 4, 7). Add surrounding lines"
    )
    assert "replaceAll" in text_of(result)
    # A trailing newline does not make a candidate span two lines ...
    result = edit(ctx, "n.py", {"oldText": "count += 1\n", "newText": ""})
    assert "(lines 2, 4, 7)" in text_of(result)
    # ... and a multi-line candidate is listed as a range.
    put(ctx, tmp_path / "g.py", b"a\nb\nc\na\nb\n")
    result = edit(ctx, "g.py", {"oldText": "a\nb", "newText": "q"})
    assert "matches 2 places in g.py (lines 1-2, 4-5)" in text_of(result)
    assert f.read_bytes() == ("\n".join(lines) + "\n").encode()


def test_replace_all(ctx: Any, tmp_path: Path) -> None:
    f = put(ctx, tmp_path / "r.py", b"foo(1)\nbar(foo)\nfoofoo\n")
    result = edit(ctx, "r.py", {"oldText": "foo", "newText": "baz", "replaceAll": True})
    assert f.read_bytes() == b"baz(1)\nbar(baz)\nbazbaz\n"
    assert text_of(result) == "Edited r.py: 4 replacements, +3 -3 lines"
    # Overlapping occurrences are replaced left to right without overlap.
    g = put(ctx, tmp_path / "aa.txt", b"aaa\n")
    edit(ctx, "aa.txt", {"oldText": "aa", "newText": "b", "replaceAll": True})
    assert g.read_bytes() == b"ba\n"


# -- edit: loose matching and helpful failures -----------------------------------------


def test_whitespace_tolerant_match_reindents(ctx: Any, tmp_path: Path) -> None:
    src = (
        "class A:\n"
        "    def run(self):\n"
        "        if self.ready:\n"
        "            go(  1,2 )\n"
        "        return None\n"
    )
    f = put(ctx, tmp_path / "a.py", src.encode())
    # The model dropped the class indentation and collapsed a space run.
    result = edit(
        ctx,
        "a.py",
        {
            "oldText": "    if self.ready:\n        go( 1,2 )\n",
            "newText": "    if self.ready:\n        go(1, 2)\n        log()\n",
        },
    )
    assert not result.is_error, text_of(result)
    assert f.read_text() == (
        "class A:\n"
        "    def run(self):\n"
        "        if self.ready:\n"
        "            go(1, 2)\n"
        "            log()\n"
        "        return None\n"
    )
    assert text_of(result).split("\n")[1] == (
        "edits[0] matched ignoring whitespace differences (line 3); newText was re-indented to fit."
    )
    assert result.details["fuzzy"] is True
    assert result.details["firstChangedLine"] == 4


def test_whitespace_tolerant_spaces_to_tabs(ctx: Any, tmp_path: Path) -> None:
    src = "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n"
    f = put(ctx, tmp_path / "f.go", src.encode())
    result = edit(
        ctx,
        "f.go",
        {"oldText": "if x {\n    return\n}", "newText": "if y {\n    return nil\n}"},
    )
    assert not result.is_error, text_of(result)
    assert f.read_text() == "func f() {\n\tif y {\n\t\treturn nil\n\t}\n}\n"


def test_fuzzy_ambiguity_is_refused(ctx: Any, tmp_path: Path) -> None:
    src = b"if a:\n    x()\nif b:\n  x()\n"
    f = put(ctx, tmp_path / "d.py", src)
    result = edit(ctx, "d.py", {"oldText": " x() ", "newText": "y()"})
    assert result.is_error
    assert text_of(result).startswith(
        "edits[0].oldText matches 2 places in d.py ignoring whitespace differences (lines 2, 4)"
    )
    assert f.read_bytes() == src


def test_no_match_shows_nearest_text(ctx: Any, tmp_path: Path) -> None:
    body = [f"def helper_{i}(value):\n    return value * {i}\n\n" for i in range(30)]
    put(ctx, tmp_path / "h.py", "".join(body).encode())
    result = edit(
        ctx,
        "h.py",
        {"oldText": "def helper_17(val):\n    return val * 17", "newText": "pass"},
    )
    assert result.is_error
    text = text_of(result)
    lines = text.split("\n")
    assert lines[0] == "edits[0].oldText was not found in h.py (not even ignoring whitespace)."
    assert lines[1].startswith("The most similar text is at lines 52-53 (")
    assert lines[2] == "    52\tdef helper_17(value):"
    assert lines[3] == "    53\t    return value * 17"
    assert text.endswith("No edits were applied; h.py is unchanged.")
    # Nothing alike at all.
    result = edit(ctx, "h.py", {"oldText": "@@@@@@@@@@@@@@@", "newText": "x"})
    assert "Nothing in the file is similar" in text_of(result)
    # Already applied.
    result = edit(ctx, "h.py", {"oldText": "helper_99", "newText": "helper_17("})
    assert "newText is already in the file" in text_of(result)


def test_failures_leave_the_file_byte_identical(ctx: Any, tmp_path: Path) -> None:
    src = b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\ntwo\r\n"
    f = put(ctx, tmp_path / "keep.txt", src)
    old = 1_600_000_000_000_000_000
    os.utime(f, ns=(old, old))
    failing = [
        [{"oldText": "one", "newText": "1"}, {"oldText": "missing", "newText": "x"}],
        [{"oldText": "one", "newText": "1"}, {"oldText": "two", "newText": "2"}],
        [{"oldText": "three", "newText": "three"}],
        [{"oldText": "one", "newText": "1"}, {"oldText": "1", "newText": "one"}],
        [{"oldText": "one", "newText": "\ud800"}],
    ]
    for edits in failing:
        result = edit(ctx, "keep.txt", *edits)
        assert result.is_error, edits
        assert f.read_bytes() == src
        assert f.stat().st_mtime_ns == old
    aborted = AbortSignal()
    aborted.abort()
    result = edit(ctx, "keep.txt", {"oldText": "one", "newText": "1"}, signal=aborted)
    assert result.is_error and "aborted" in text_of(result).lower()
    assert f.read_bytes() == src and f.stat().st_mtime_ns == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_edit_error_results(ctx: Any, tmp_path: Path) -> None:
    result = edit(ctx, "nope.py", {"oldText": "a", "newText": "b"})
    assert result.is_error
    assert text_of(result) == "File not found: nope.py. Use write to create it."
    (tmp_path / "dir").mkdir()
    assert text_of(edit(ctx, "dir", {"oldText": "a", "newText": "b"})) == (
        "dir is a directory, not a file."
    )
    put(ctx, tmp_path / "bin.dat", b"\x00\x01a")
    assert "binary" in text_of(edit(ctx, "bin.dat", {"oldText": "a", "newText": "b"}))
    with pytest.raises(ValueError):
        EditParams(path="x", edits=[])
    with pytest.raises(ValueError):
        EditParams(path="x", edits=[{"oldText": "", "newText": "b"}])


@pytest.mark.skipif(not POSIX_PERMS, reason="permissions are not enforced")
def test_edit_file_read_only_for_its_owner(ctx: Any, tmp_path: Path) -> None:
    f = put(ctx, tmp_path / "ro.txt", b"abc\n")
    f.chmod(0o466)  # others may write; the owner (us) may not
    result = edit(ctx, "ro.txt", {"oldText": "abc", "newText": "xyz"})
    assert result.is_error
    assert text_of(result) == "Cannot edit ro.txt: permission denied."
    assert f.read_bytes() == b"abc\n"


def test_mode_and_symlink_kept(ctx: Any, tmp_path: Path) -> None:
    real = put(ctx, tmp_path / "tool.sh", b"#!/bin/sh\necho old\n")
    real.chmod(0o755)
    link = tmp_path / "alias.sh"
    link.symlink_to(real)
    assert not edit(ctx, "alias.sh", {"oldText": "old", "newText": "new"}).is_error
    assert link.is_symlink()
    assert real.read_bytes() == b"#!/bin/sh\necho new\n"
    assert real.stat().st_mode & 0o777 == 0o755


def test_stale_read_warning(ctx: Any, tmp_path: Path) -> None:
    f = tmp_path / "src" / "x.py"
    f.parent.mkdir()
    f.write_bytes(b"a = 1\nb = 2\n")
    ctx.file_reads.record(f)  # the model read it ...
    f.write_bytes(b"a = 1\nb = 3\n")  # ... then something else changed it
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # a distinct mtime
    result = edit(ctx, "src/x.py", {"oldText": "a = 1", "newText": "a = 5"})
    assert not result.is_error
    assert f.read_bytes() == b"a = 5\nb = 3\n"
    assert text_of(result) == (
        "Edited src/x.py: 1 replacement, +1 -1 lines\n"
        "note: src/x.py changed on disk since you last read it"
    )
    # The edit itself counts as the model's latest view: no note the next time.
    again = edit(ctx, "src/x.py", {"oldText": "b = 3", "newText": "b = 4"})
    assert text_of(again) == "Edited src/x.py: 1 replacement, +1 -1 lines"
    # Never read in this session.
    g = tmp_path / "g.py"
    g.write_bytes(b"q = 1\n")
    result = edit(ctx, "g.py", {"oldText": "q", "newText": "r"})
    assert text_of(result).endswith("\nnote: g.py was not read in this session before this edit")
    # A failed match on a stale file says so too.
    ctx.file_reads.record(g)
    g.write_bytes(b"s = 1\n")
    os.utime(g, ns=(0, 10**18))
    result = edit(ctx, "g.py", {"oldText": "r = 1", "newText": "t = 1"})
    assert result.is_error
    assert text_of(result).endswith("note: g.py changed on disk since you last read it")


def test_diff_details(ctx: Any, tmp_path: Path) -> None:
    src = "".join(f"line {i}\n" for i in range(1, 21)) + "last"
    put(ctx, tmp_path / "d.txt", src.encode())
    result = edit(
        ctx,
        "d.txt",
        {"oldText": "line 10\n", "newText": "line ten\nline 10.5\n"},
        {"oldText": "last", "newText": "final"},
    )
    diff = result.details["diff"]
    assert diff.startswith("--- a/d.txt\n+++ b/d.txt\n@@ -7,7 +7,8 @@\n line 7\n")
    assert "-line 10\n+line ten\n+line 10.5\n" in diff
    assert diff.endswith(
        "-last\n\\ No newline at end of file\n+final\n\\ No newline at end of file\n"
    )
    assert result.details["firstChangedLine"] == 10
    assert result.details["replacements"] == 2
    assert text_of(result) == "Edited d.txt: 2 replacements, +3 -2 lines"


# -- plugin and end to end ------------------------------------------------------------


def test_plugin_registers_both_tools_and_is_cheap_to_import() -> None:
    from omp_tool_edit import plugin

    assert [t.name for t in plugin.omp_register_tools(api=None)] == ["write", "edit"]
    code = (
        "import sys, omp_tool_edit.plugin; "
        "sys.exit(1 if 'pydantic' in sys.modules or 'omp_tool_edit.edit' in sys.modules "
        "else 0)"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    assert subprocess.run([sys.executable, "-c", code], env=env, check=False).returncode == 0


def test_schemas_use_pi_parameter_names() -> None:
    edit_schema = EditTool().spec()["parameters"]
    assert edit_schema["required"] == ["path", "edits"]
    item = edit_schema["properties"]["edits"]["items"]  # nested model inlined, no $ref
    assert set(item["properties"]) == {"oldText", "newText", "replaceAll"}
    assert item["required"] == ["oldText", "newText"]
    assert WriteTool().spec()["parameters"]["required"] == ["path", "content"]


def tool_ends(events: Any) -> list[Any]:
    return events.of("tool_execution_end")


def test_end_to_end_read_then_edit(omp_harness: Any) -> None:
    target = omp_harness.cwd / "app.py"
    target.write_bytes(b"def main():\r\n    print('hi')\r\n")
    session = omp_harness.session(
        script=[
            {"tool_calls": [{"name": "read", "arguments": {"path": "app.py"}}]},
            {
                "tool_calls": [
                    {
                        "name": "edit",
                        "arguments": {
                            "path": "app.py",
                            "edits": [{"oldText": "print('hi')", "newText": "print('bye')"}],
                        },
                    }
                ]
            },
            {"text": "done"},
        ]
    )
    events = omp_harness.run(session, "go")
    read_end, edit_end = tool_ends(events)
    assert (read_end.tool_name, read_end.is_error) == ("read", False)
    assert (edit_end.tool_name, edit_end.is_error) == ("edit", False)
    assert edit_end.result["content"][0].text == "Edited app.py: 1 replacement, +1 -1 lines"
    assert "+    print('bye')" in edit_end.result["details"]["diff"]
    assert target.read_bytes() == b"def main():\r\n    print('bye')\r\n"
    assert events.final_text() == "done"


def test_end_to_end_write_then_failed_edit(omp_harness: Any) -> None:
    session = omp_harness.session(
        script=[
            {
                "tool_calls": [
                    {"name": "write", "arguments": {"path": "pkg/m.py", "content": "a\n"}}
                ]
            },
            {
                "tool_calls": [
                    {
                        "name": "edit",
                        "arguments": {
                            "path": "pkg/m.py",
                            "edits": [{"oldText": "b", "newText": "c"}],
                        },
                    }
                ]
            },
            {"text": "done"},
        ]
    )
    events = omp_harness.run(session, "go")
    write_end, edit_end = tool_ends(events)
    assert not write_end.is_error
    assert write_end.result["content"][0].text == "Wrote 2 bytes (1 line) to pkg/m.py"
    assert edit_end.is_error
    text = edit_end.result["content"][0].text
    assert "not found in pkg/m.py" in text and "note:" not in text
    assert (omp_harness.cwd / "pkg" / "m.py").read_bytes() == b"a\n"
