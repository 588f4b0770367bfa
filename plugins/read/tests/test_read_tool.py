"""The built-in ``read`` tool (plugins/read)."""

from __future__ import annotations

import base64
import hashlib
import os
import struct
import sys
import zlib
from pathlib import Path
from types import SimpleNamespace

import pytest
from omp import AbortSignal, ArtifactStore, FileLedger, ImageContent, Tool, ToolResult
from omp_tool_read.tool import (
    DEFAULT_LIMIT,
    MAX_BYTES,
    MAX_LINE_CHARS,
    ReadParams,
    ReadTool,
)


def run(
    path: str | Path, cwd: Path, signal: AbortSignal | None = None, **kwargs: object
) -> ToolResult:
    params = ReadParams(path=str(path), **kwargs)
    ctx = SimpleNamespace(cwd=str(cwd))
    result = ReadTool().execute("c1", params, signal or AbortSignal(), lambda p: None, ctx)
    assert isinstance(result, ToolResult)
    return result


def text_of(result: ToolResult) -> str:
    assert len(result.content) == 1
    return result.content[0].text


def write_lines(path: Path, count: int, fmt: str = "line {}") -> Path:
    path.write_text("".join(fmt.format(i) + "\n" for i in range(1, count + 1)), encoding="utf-8")
    return path


def test_numbering_and_format(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_text("alpha\n\tbeta\n\ngamma", encoding="utf-8")  # no trailing newline
    result = run(f, tmp_path)
    assert not result.is_error
    assert text_of(result) == "     1\talpha\n     2\t\tbeta\n     3\t\n     4\tgamma"
    assert result.details == {
        "path": str(f),
        "offset": 1,
        "lines": 4,
        "totalLines": 4,
        "truncated": False,
    }


def test_crlf_and_invalid_utf8(tmp_path: Path) -> None:
    f = tmp_path / "w.txt"
    f.write_bytes(b"one\r\ntw\xffo\r\n")
    result = run(f, tmp_path)
    assert text_of(result) == "     1\tone\n     2\ttw\ufffdo"
    assert result.details["totalLines"] == 2


def test_offset_and_limit_paging(tmp_path: Path) -> None:
    f = write_lines(tmp_path / "big.txt", 50)
    result = run(f, tmp_path, offset=10, limit=5)
    lines = text_of(result).split("\n")
    assert lines[:5] == [f"{n:>6}\tline {n}" for n in range(10, 15)]
    assert lines[5] == ""
    assert lines[6] == "[Showing lines 10-14 of 50. Use offset=15 to continue.]"
    assert result.details == {
        "path": str(f),
        "offset": 10,
        "lines": 5,
        "totalLines": 50,
        "truncated": True,
    }

    # Following the note reaches the end: no note then.
    tail = run(f, tmp_path, offset=45, limit=10)
    assert text_of(tail).split("\n") == [f"{n:>6}\tline {n}" for n in range(45, 51)]
    assert tail.details["truncated"] is False


def test_default_limit_note(tmp_path: Path) -> None:
    f = write_lines(tmp_path / "long.txt", 5234, "x{}")
    result = run(f, tmp_path)
    text = text_of(result)
    assert text.endswith(
        f"\n\n[Showing lines 1-{DEFAULT_LIMIT} of 5234. Use offset={DEFAULT_LIMIT + 1} "
        "to continue.]"
    )
    assert result.details["lines"] == DEFAULT_LIMIT
    assert result.details["totalLines"] == 5234
    # A limit above the cap is clamped to it.
    clamped = run(f, tmp_path, offset=2001, limit=10_000)
    assert clamped.details["lines"] == DEFAULT_LIMIT
    assert text_of(clamped).endswith(
        "[Showing lines 2001-4000 of 5234. Use offset=4001 to continue.]"
    )


def test_offset_beyond_end(tmp_path: Path) -> None:
    f = write_lines(tmp_path / "short.txt", 812)
    result = run(f, tmp_path, offset=900)
    assert result.is_error
    assert text_of(result) == "Offset 900 is beyond the end of the file (812 lines)."
    # The last line itself is fine.
    last = run(f, tmp_path, offset=812)
    assert not last.is_error
    assert text_of(last) == "   812\tline 812"


def test_long_line_is_cut(tmp_path: Path) -> None:
    f = tmp_path / "wide.txt"
    f.write_text("short\n" + "y" * (MAX_LINE_CHARS + 345) + "\nend\n", encoding="utf-8")
    result = run(f, tmp_path)
    lines = text_of(result).split("\n")
    assert lines[0] == "     1\tshort"
    assert lines[1] == (
        "     2\t" + "y" * MAX_LINE_CHARS + "... [line truncated, 345 more characters]"
    )
    assert lines[2] == "     3\tend"
    assert result.details["lines"] == 3
    assert result.details["truncated"] is True


def test_byte_budget(tmp_path: Path) -> None:
    # 300 lines of ~1000 bytes: well under the line cap, well over 50 KiB.
    f = write_lines(tmp_path / "fat.txt", 300, "{:04d}" + "z" * 996)
    result = run(f, tmp_path)
    text = text_of(result)
    assert len(text.encode("utf-8")) <= MAX_BYTES
    shown = result.details["lines"]
    assert 0 < shown < 300
    assert result.details["truncated"] is True
    assert text.endswith(
        f"\n\n[Showing lines 1-{shown} of 300 (50 KiB output limit reached). "
        f"Use offset={shown + 1} to continue.]"
    )
    assert text.split("\n")[shown - 1].startswith(f"{shown:>6}\t{shown:04d}")
    # Paging on continues exactly where the budget stopped.
    nxt = run(f, tmp_path, offset=shown + 1)
    assert text_of(nxt).startswith(f"{shown + 1:>6}\t{shown + 1:04d}")


def test_missing_file(tmp_path: Path) -> None:
    result = run("nope.txt", tmp_path)
    assert result.is_error
    assert text_of(result) == "File not found: nope.txt"


def test_directory(tmp_path: Path) -> None:
    d = tmp_path / "pkg"
    d.mkdir()
    (d / "b.py").write_text("", encoding="utf-8")
    (d / "a.py").write_text("", encoding="utf-8")
    (d / "sub").mkdir()
    result = run(d, tmp_path)
    assert not result.is_error
    assert text_of(result) == f"Directory {d} (3 entries):\na.py\nb.py\nsub/"
    assert result.details["kind"] == "directory"
    assert result.details["entries"] == 3


def test_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "void").mkdir()
    result = run("void", tmp_path)
    assert not result.is_error
    assert text_of(result) == "Directory void is empty."


def test_directory_listing_capped(tmp_path: Path) -> None:
    d = tmp_path / "many"
    d.mkdir()
    for i in range(250):
        (d / f"f{i:03d}").touch()
    result = run(d, tmp_path)
    assert not result.is_error
    assert result.details["truncated"] is True
    text = text_of(result)
    assert "f199" in text
    assert "f200" not in text
    assert text.endswith("... and 50 more entries")


def test_binary(tmp_path: Path) -> None:
    f = tmp_path / "blob.bin"
    f.write_bytes(b"PK\x03\x04\x00\x00binary\x00stuff")
    result = run(f, tmp_path)
    assert result.is_error
    assert "binary" in text_of(result)
    assert "stuff" not in text_of(result)


def test_empty(tmp_path: Path) -> None:
    f = tmp_path / "empty.txt"
    f.touch()
    result = run(f, tmp_path)
    assert not result.is_error
    assert "empty" in text_of(result)
    assert result.details["totalLines"] == 0


def test_relative_path_uses_ctx_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sub = tmp_path / "proj" / "src"
    sub.mkdir(parents=True)
    (sub / "m.py").write_text("x = 1\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = run("src/m.py", tmp_path / "proj")
    assert text_of(result) == "     1\tx = 1"
    assert result.details["path"] == str(sub / "m.py")


def test_no_ctx_falls_back_to_process_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "here.txt").write_text("hi\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = ReadTool().execute(
        "c1", ReadParams(path="here.txt"), AbortSignal(), lambda p: None, None
    )
    assert text_of(result) == "     1\thi"


def test_abort_stops_reading(tmp_path: Path) -> None:
    f = write_lines(tmp_path / "huge.txt", 20_000)
    signal = AbortSignal()
    signal.abort()
    result = run(f, tmp_path, signal=signal, offset=15_000)
    assert result.is_error
    assert "abort" in text_of(result).lower()


@pytest.mark.skipif(
    sys.platform == "win32" or os.geteuid() == 0, reason="permissions are not enforced"
)
def test_unreadable_file(tmp_path: Path) -> None:
    f = tmp_path / "secret.txt"
    f.write_text("x\n", encoding="utf-8")
    f.chmod(0)
    try:
        result = run(f, tmp_path)
    finally:
        f.chmod(0o644)
    assert result.is_error
    assert text_of(result).startswith("Cannot read")


def test_params_schema_and_spec() -> None:
    tool = ReadTool()
    assert isinstance(tool, Tool)
    assert (tool.name, tool.label) == ("read", "Read")
    spec = tool.spec()
    assert spec["name"] == "read"
    assert "offset" in spec["description"]
    schema = spec["parameters"]
    assert schema["required"] == ["path"]
    assert set(schema["properties"]) == {"path", "offset", "limit"}
    for name in ("path", "offset", "limit"):
        assert schema["properties"][name]["description"]
    with pytest.raises(ValueError):
        ReadParams(path="x", offset=0)
    with pytest.raises(ValueError):
        ReadParams(path="x", limit=0)


def test_plugin_registers_the_tool() -> None:
    from omp_tool_read import plugin

    tools = plugin.omp_register_tools(api=None)
    assert [t.name for t in tools] == ["read"]


def test_plugin_module_is_cheap_to_import() -> None:
    import subprocess

    code = (
        "import sys, omp_tool_read.plugin; "
        "sys.exit(1 if 'pydantic' in sys.modules or 'omp_tool_read.tool' in sys.modules "
        "else 0)"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    assert subprocess.run([sys.executable, "-c", code], env=env, check=False).returncode == 0


# -- images, artifacts, the read ledger --------------------------------------------


def png_bytes(width: int, height: int) -> bytes:
    ihdr = struct.pack(">II", width, height) + b"\x08\x02\x00\x00\x00"
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr
    chunk += struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk + b"\x00\x00\x00\x00IEND\xaeB`\x82"


def jpeg_bytes(width: int, height: int) -> bytes:
    app0 = b"\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof0 = b"\xff\xc0\x00\x11\x08" + struct.pack(">HH", height, width) + b"\x03" + b"\x00" * 9
    return b"\xff\xd8" + app0 + sof0 + b"\xff\xd9"


IMAGES = {
    "pic.png": ("image/png", png_bytes(3, 2), (3, 2)),
    "pic.jpg": ("image/jpeg", jpeg_bytes(640, 480), (640, 480)),
    "pic.gif": ("image/gif", b"GIF89a" + struct.pack("<HH", 7, 5) + b"\x00" * 20, (7, 5)),
    "pic.webp": (
        "image/webp",
        b"RIFF\x24\x00\x00\x00WEBPVP8L\x0a\x00\x00\x00\x2f"
        + ((99) | (49 << 14)).to_bytes(4, "little")
        + b"\x00" * 8,
        (100, 50),
    ),
    "pic.jpeg": (  # a WebP with an extended header, named wrongly: the bytes decide
        "image/webp",
        b"RIFF\x24\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00"
        + (1919).to_bytes(3, "little")
        + (1079).to_bytes(3, "little"),
        (1920, 1080),
    ),
}


@pytest.mark.parametrize("name", sorted(IMAGES))
def test_image_is_returned_as_image_content(tmp_path: Path, name: str) -> None:
    mime, data, (width, height) = IMAGES[name]
    (tmp_path / name).write_bytes(data)
    result = run(name, tmp_path)
    assert not result.is_error
    line, image = result.content
    assert isinstance(image, ImageContent)
    assert image.mime_type == mime
    assert base64.b64decode(image.data) == data
    assert line.text == f"Read image {name} [{mime}, {width}x{height}, {len(data)} B]"
    assert result.details["kind"] == "image"
    assert (result.details["width"], result.details["height"]) == (width, height)


def test_image_over_20_mb_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "huge.png"
    with open(f, "wb") as fh:
        fh.write(png_bytes(10, 10))
        fh.truncate(21 * 1024 * 1024)  # sparse: cheap to make
    result = run(f, tmp_path)
    assert result.is_error
    assert len(result.content) == 1
    assert text_of(result).startswith(f"Cannot read {f}: the image is 21.0 MB, over the 20 MB")


def test_binary_with_image_extension_is_refused_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "fake.png").write_bytes(b"\x00\x01not an image at all")
    result = run("fake.png", tmp_path)
    assert result.is_error
    assert "image extension but is not a valid PNG, JPEG, GIF or WebP" in text_of(result)


def test_text_read_is_recorded_for_edit(tmp_path: Path) -> None:
    f = write_lines(tmp_path / "code.py", 30)
    ledger = FileLedger()
    ctx = SimpleNamespace(cwd=str(tmp_path), file_reads=ledger)
    params = ReadParams(path="code.py", offset=5, limit=3)
    result = ReadTool().execute("c1", params, AbortSignal(), lambda p: None, ctx)
    assert not result.is_error
    entry = ledger.last_read(f)
    assert entry is not None
    assert entry.sha256 == hashlib.sha256(f.read_bytes()).hexdigest()  # the whole file
    assert entry.mtime_ns == f.stat().st_mtime_ns
    assert ledger.changed_since_read(f) is False
    f.write_text("changed\n", encoding="utf-8")
    os.utime(f, ns=(entry.mtime_ns + 10**9, entry.mtime_ns + 10**9))
    assert ledger.changed_since_read(f) is True


def test_failed_and_binary_reads_are_not_recorded(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02")
    write_lines(tmp_path / "short.txt", 3)
    ledger = FileLedger()
    ctx = SimpleNamespace(cwd=str(tmp_path), file_reads=ledger)
    tool = ReadTool()
    for params in (ReadParams(path="blob.bin"), ReadParams(path="short.txt", offset=9)):
        assert tool.execute("c1", params, AbortSignal(), lambda p: None, ctx).is_error
    assert ledger.last_read(tmp_path / "blob.bin") is None
    assert ledger.last_read(tmp_path / "short.txt") is None


def test_artifact_is_read_and_paged(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path / "artifacts")
    artifact_id = store.save("".join(f"out {i}\n" for i in range(1, 3001)))
    ctx = SimpleNamespace(cwd=str(tmp_path), artifacts=store, file_reads=FileLedger())
    ref = f"artifact://{artifact_id}"
    tool = ReadTool()
    first = tool.execute("c1", ReadParams(path=ref), AbortSignal(), lambda p: None, ctx)
    assert not first.is_error
    text = text_of(first)
    assert text.startswith("     1\tout 1\n")
    assert text.endswith("[Showing lines 1-2000 of 3000. Use offset=2001 to continue.]")
    assert first.details["artifact"] == ref
    rest = tool.execute("c2", ReadParams(path=ref, offset=2999), AbortSignal(), lambda p: None, ctx)
    assert text_of(rest) == "  2999\tout 2999\n  3000\tout 3000"


def test_unknown_artifact_is_an_error_the_model_can_act_on(tmp_path: Path) -> None:
    ctx = SimpleNamespace(cwd=str(tmp_path), artifacts=ArtifactStore(tmp_path / "a"))
    params = ReadParams(path="artifact://deadbeef.txt")
    result = ReadTool().execute("c1", params, AbortSignal(), lambda p: None, ctx)
    assert result.is_error
    assert text_of(result) == (
        "Cannot read artifact://deadbeef.txt: no artifact deadbeef.txt in this session. "
        "Use the exact artifact://ID from an earlier tool result of this session."
    )


def test_end_to_end_through_the_entry_point(omp_harness) -> None:
    work = omp_harness.cwd
    (work / "notes.txt").write_text("pineapple\nbanana\n", encoding="utf-8")
    (work / "shot.png").write_bytes(png_bytes(4, 4))
    (work / "src").mkdir()
    (work / "src" / "m.py").touch()
    session = omp_harness.session(
        session_path=str(omp_harness.root / "s.jsonl"),
        script=[
            {
                "tool_calls": [
                    {"name": "read", "arguments": {"path": "notes.txt"}},
                    {"name": "read", "arguments": {"path": "shot.png"}},
                    {"name": "read", "arguments": {"path": "src"}},
                    {"name": "read", "arguments": {"path": "artifact://nope.txt"}},
                ]
            },
            {"text": "done"},
        ],
    )
    events = omp_harness.run(session, "go")
    ends = {e.tool_call_id: e for e in events.of("tool_execution_end")}
    results = [ends[k] for k in sorted(ends)]
    assert [e.is_error for e in results] == [False, False, False, True]
    text, image, listing, missing = (e.result["content"] for e in results)
    assert text[0].text == "     1\tpineapple\n     2\tbanana"
    assert image[1].mime_type == "image/png"
    assert base64.b64decode(image[1].data) == png_bytes(4, 4)
    assert listing[0].text == "Directory src (1 entry):\nm.py"
    assert "no artifact nope.txt" in missing[0].text
    assert session.file_reads.changed_since_read(work / "notes.txt") is False
    assert session.file_reads.last_read(work / "shot.png") is None


def test_small_local_files_are_read_on_the_loop_and_the_rest_in_a_worker(tmp_path: Path) -> None:
    from omp import FileAccess
    from omp_tool_read.tool import INLINE_BYTES

    class EditorFiles(FileAccess):  # an editor's buffers: reading them waits on the loop
        pass

    small = tmp_path / "small.txt"
    small.write_text("x\n")
    large = tmp_path / "large.txt"
    large.write_bytes(b"y\n" * (INLINE_BYTES // 2 + 1))
    tool = ReadTool()

    def inline(path: str, files: object = None) -> bool:
        ctx = SimpleNamespace(cwd=str(tmp_path), files=files or FileAccess())
        return tool.runs_inline(ReadParams(path=path), ctx)

    assert inline("small.txt") and inline("missing.txt")
    assert not inline("large.txt")
    assert not inline(str(tmp_path))  # a directory: a listing may be long
    assert not inline("artifact://abc")
    assert not inline("small.txt", EditorFiles())
