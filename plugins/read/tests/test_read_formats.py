"""``read`` beyond text: PDFs, notebooks, large images, archives, SQLite, binaries."""

from __future__ import annotations

import base64
import io
import json
import sqlite3
import sys
import tarfile
import zipfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from omp import AbortSignal, ImageContent, ToolResult
from omp_tool_read.tool import ReadParams, ReadTool
from pdfgen import make_pdf


class Settings:
    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


def run(
    path: str | Path, cwd: Path, settings: dict[str, Any] | None = None, **kw: Any
) -> ToolResult:
    ctx = SimpleNamespace(cwd=str(cwd), settings=Settings(settings or {}))
    params = ReadParams(path=str(path), **kw)
    return ReadTool().execute("c1", params, AbortSignal(), lambda p: None, ctx)


def text(result: ToolResult) -> str:
    return result.content[0].text


def png(width: int, height: int) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


# -- PDF ---------------------------------------------------------------------------


def test_pdf_text_per_page_from_compressed_streams(tmp_path: Path) -> None:
    data = make_pdf([f"Page text number {n}" for n in range(1, 4)])
    assert b"/FlateDecode" in data and b"Page text" not in data  # the text is compressed
    (tmp_path / "doc.pdf").write_bytes(data)
    result = run("doc.pdf", tmp_path)
    assert not result.is_error
    assert text(result) == (
        "--- Page 1 of 3 ---\nPage text number 1\n\n"
        "--- Page 2 of 3 ---\nPage text number 2\n\n"
        "--- Page 3 of 3 ---\nPage text number 3"
    )
    assert result.details["totalPages"] == 3


def test_pdf_offset_and_limit_are_page_ranges(tmp_path: Path) -> None:
    (tmp_path / "doc.pdf").write_bytes(make_pdf([f"text {n}" for n in range(1, 11)]))
    out = text(run("doc.pdf", tmp_path, offset=4, limit=2))
    assert out == (
        "--- Page 4 of 10 ---\ntext 4\n\n--- Page 5 of 10 ---\ntext 5\n\n"
        "[Showing pages 4-5 of 10. Use offset=6 to continue.]"
    )
    beyond = run("doc.pdf", tmp_path, offset=11)
    assert beyond.is_error and "beyond the end of the PDF (10 pages)" in text(beyond)


def test_pdf_setting_off_refuses_it_as_binary(tmp_path: Path) -> None:
    (tmp_path / "doc.pdf").write_bytes(make_pdf(["secret words"]))
    result = run("doc.pdf", tmp_path, settings={"read.pdf": False})
    assert result.is_error
    assert "binary file (PDF document, " in text(result)
    assert "setting read.pdf" in text(result) and "secret" not in text(result)


# -- Word documents --------------------------------------------------------------


def make_docx(path: Path) -> None:
    from docx import Document

    document = Document()
    document.add_heading("Report", level=1)
    document.add_paragraph("First paragraph.")
    document.add_paragraph("")  # empty: not a block
    document.add_heading("Details", level=2)
    document.add_paragraph("alpha", style="List Bullet")
    document.add_paragraph("beta", style="List Bullet")
    table = document.add_table(rows=2, cols=2)
    for row, cells in enumerate((("name", "count"), ("a|b", "2"))):
        for col, value in enumerate(cells):
            table.cell(row, col).text = value
    document.add_paragraph("Last words.")
    document.save(str(path))


def test_docx_as_markdown_in_document_order(tmp_path: Path) -> None:
    make_docx(tmp_path / "doc.docx")
    result = run("doc.docx", tmp_path)
    assert not result.is_error
    assert text(result) == (
        "# Report\n\nFirst paragraph.\n\n## Details\n\n- alpha\n- beta\n\n"
        "| name | count |\n| --- | --- |\n| a\\|b | 2 |\n\nLast words."
    )
    assert result.details["totalParagraphs"] == 7


def test_docx_offset_and_limit_count_paragraphs(tmp_path: Path) -> None:
    make_docx(tmp_path / "doc.docx")
    out = text(run("doc.docx", tmp_path, offset=4, limit=3))
    assert out == (
        "- alpha\n- beta\n\n| name | count |\n| --- | --- |\n| a\\|b | 2 |\n\n"
        "[Showing paragraphs 4-6 of 7. Use offset=7 to continue.]"
    )
    beyond = run("doc.docx", tmp_path, offset=8)
    assert beyond.is_error and "beyond the end of the document (7 paragraphs)" in text(beyond)


def test_docx_setting_off_refuses_it_as_binary(tmp_path: Path) -> None:
    make_docx(tmp_path / "doc.docx")
    result = run("doc.docx", tmp_path, settings={"read.docx": False})
    assert result.is_error
    assert "binary file (Word document, " in text(result)
    assert "setting read.docx" in text(result) and "Report" not in text(result)


def test_docx_without_python_docx_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_docx(tmp_path / "doc.docx")
    monkeypatch.setitem(sys.modules, "docx", None)  # as if not installed
    result = run("doc.docx", tmp_path)
    assert result.is_error
    assert text(result) == (
        "Cannot read doc.docx: it is a Word document and reading .docx files needs "
        "python-docx (pip install 'omp-tool-read[formats]')."
    )


def test_broken_docx_is_a_one_line_error(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "bad.docx", "w") as zf:
        zf.writestr("hello.txt", "not a Word document")
    result = run("bad.docx", tmp_path)
    assert result.is_error
    assert text(result).startswith("Cannot read bad.docx: not a readable Word document (")
    assert "\n" not in text(result)


# -- notebooks ---------------------------------------------------------------------


def test_notebook_cells_outputs_and_image_output(tmp_path: Path) -> None:
    image = base64.b64encode(png(4, 4)).decode()
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Title\n", "intro"]},
            {
                "cell_type": "code",
                "metadata": {},
                "execution_count": 1,
                "source": "print('hi')\nplot()",
                "outputs": [
                    {"output_type": "stream", "name": "stdout", "text": ["hi\n"]},
                    {
                        "output_type": "display_data",
                        "metadata": {},
                        "data": {"image/png": image, "text/plain": ["<Figure>"]},
                    },
                ],
            },
        ],
    }
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook))
    result = run("nb.ipynb", tmp_path)
    assert not result.is_error
    body, picture = result.content
    assert body.text == (
        "# %% [markdown] cell:1\n# Title\nintro\n\n"
        "# %% [code] cell:2\nprint('hi')\nplot()\n# >>> output\nhi\n"
        "[image/png output: image 1 below]"
    )
    assert isinstance(picture, ImageContent)
    assert (picture.mime_type, picture.data) == ("image/png", image)
    second = run("nb.ipynb", tmp_path, offset=2, limit=1)
    assert text(second).startswith("# %% [code] cell:2")


# -- images ------------------------------------------------------------------------


def test_large_image_is_downscaled_to_fit_provider_limits(tmp_path: Path) -> None:
    (tmp_path / "big.png").write_bytes(png(4000, 1000))
    result = run("big.png", tmp_path)
    assert not result.is_error
    line, image = result.content
    assert line.text.startswith("Read image big.png [image/png, 4000x1000, ")
    assert "sent downscaled to 2000x500 image/png" in line.text
    from PIL import Image

    with Image.open(io.BytesIO(base64.b64decode(image.data))) as sent:
        assert sent.size == (2000, 500)


def test_images_setting_off_refuses_the_image(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(png(2, 2))
    result = run("a.png", tmp_path, settings={"read.images": False})
    assert result.is_error and len(result.content) == 1
    assert "binary file (PNG image, " in text(result)


# -- archives ----------------------------------------------------------------------


def make_zip(path: Path) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("src/", "")
        zf.writestr("src/main.py", "print('one')\nprint('two')\n")
        zf.writestr("README", "hello\n")


def test_zip_listing_and_member(tmp_path: Path) -> None:
    make_zip(tmp_path / "pkg.zip")
    listing = run("pkg.zip", tmp_path)
    assert not listing.is_error
    assert text(listing) == (
        "Archive pkg.zip (2 files, 32 B uncompressed):\n"
        "src/\nsrc/main.py  (26 B)\nREADME  (6 B)\n\n"
        "[Read a member with path=pkg.zip:<member path>.]"
    )
    member = run("pkg.zip:src/main.py", tmp_path, offset=2)
    assert not member.is_error
    assert text(member) == "     2\tprint('two')"
    assert member.details["member"] == "src/main.py"
    missing = run("pkg.zip:nope.txt", tmp_path)
    assert missing.is_error and "no member 'nope.txt' in the archive" in text(missing)


def test_tar_listing_and_member(tmp_path: Path) -> None:
    with tarfile.open(tmp_path / "pkg.tar.gz", "w:gz") as tf:
        for name, data in (("pkg/a.txt", b"alpha\n"), ("pkg/b.txt", b"beta\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    listing = run("pkg.tar.gz", tmp_path)
    assert text(listing).splitlines()[:3] == [
        "Archive pkg.tar.gz (2 files, 11 B uncompressed):",
        "pkg/a.txt  (6 B)",
        "pkg/b.txt  (5 B)",
    ]
    assert text(run("pkg.tar.gz:pkg/b.txt", tmp_path)) == "     1\tbeta"


# -- SQLite ------------------------------------------------------------------------


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "app.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);"
        "CREATE INDEX users_name ON users(name);"
        "INSERT INTO users (name) VALUES ('ada'), ('bob'), ('cy');"
    )
    conn.commit()
    conn.close()
    return path


def test_sqlite_schema(db: Path) -> None:
    result = run("app.db", db.parent)
    assert not result.is_error
    assert text(result).splitlines()[:5] == [
        "SQLite database app.db:",
        "",
        "-- table users: 3 rows",
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);",
        "",
    ]
    assert "-- index users_name" in text(result)


def test_sqlite_rows_and_query(db: Path) -> None:
    rows = run("app.db:users", db.parent, offset=2, limit=1)
    assert text(rows) == "id | name\n2 | bob\n\n[Showing rows 2-2 of 3. Use offset=3 to continue.]"
    query = run("app.db?q=SELECT name FROM users WHERE id > 1 ORDER BY id", db.parent)
    assert not query.is_error
    assert text(query) == "name\nbob\ncy"


def test_sqlite_write_is_refused(db: Path) -> None:
    writes = (
        "INSERT INTO users (name) VALUES ('eve')",
        "DROP TABLE users",
        "PRAGMA user_version = 7",
        f"ATTACH DATABASE '{db.parent / 'made.db'}' AS m",  # would create the file
        f"VACUUM INTO '{db.parent / 'copy.db'}'",
    )
    for sql in writes:
        result = run(f"app.db?q={sql}", db.parent)
        assert result.is_error, sql
        assert text(result).startswith("SQLite error: ")
        assert "The database is opened read-only" in text(result)
    assert sorted(p.name for p in db.parent.iterdir()) == ["app.db"]
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT COUNT(*), MAX(name) FROM users").fetchone() == (3, "cy")
    assert conn.execute("PRAGMA user_version").fetchone() == (0,)
    conn.close()


def test_sqlite_query_is_taken_as_written(db: Path) -> None:
    sql = "SELECT id + 1 AS next, name FROM users WHERE name LIKE '%a%'"
    assert text(run(f"app.db?q={sql}", db.parent)) == "next | name\n2 | ada"


# -- binaries ----------------------------------------------------------------------


def test_binary_is_refused_with_its_type_and_size(tmp_path: Path) -> None:
    (tmp_path / "tool").write_bytes(b"\x7fELF\x02\x01\x01" + b"\x00" * 2041)
    result = run("tool", tmp_path)
    assert result.is_error
    assert text(result) == (
        "Cannot read tool: it is a binary file (ELF executable, 2.0 KB); "
        "its contents are not shown."
    )
    assert result.details["detectedType"] == "ELF executable"


def test_format_settings_through_the_entry_point(omp_harness) -> None:
    (omp_harness.agent_dir / "settings.json").write_text(
        json.dumps({"read": {"pdf": False}}), encoding="utf-8"
    )
    work = omp_harness.cwd
    (work / "doc.pdf").write_bytes(make_pdf(["hidden text"]))
    make_zip(work / "pkg.zip")
    session = omp_harness.session(
        session_path=str(omp_harness.root / "s.jsonl"),
        script=[
            {
                "tool_calls": [
                    {"name": "read", "arguments": {"path": "doc.pdf"}},
                    {"name": "read", "arguments": {"path": "pkg.zip:README"}},
                ]
            },
            {"text": "done"},
        ],
    )
    events = omp_harness.run(session, "go")
    ends = {e.tool_call_id: e for e in events.of("tool_execution_end")}
    pdf, member = (ends[k] for k in sorted(ends))
    assert pdf.is_error
    assert "Reading this format is turned off (setting read.pdf)" in pdf.result["content"][0].text
    assert not member.is_error and member.result["content"][0].text == "     1\thello"


def test_pdf_without_pypdf_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)  # as if not installed
    (tmp_path / "doc.pdf").write_bytes(make_pdf(["x"]))
    result = run("doc.pdf", tmp_path)
    assert result.is_error
    assert text(result) == (
        "Cannot read doc.pdf: it is a PDF document and reading PDFs needs pypdf "
        "(pip install 'omp-tool-read[formats]')."
    )
