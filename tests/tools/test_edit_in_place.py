"""``write`` and ``edit`` write into an existing file: its inode, hard links, mode and
owner survive, a read-only file is refused, and a failed write leaves the old bytes."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from omp.abort import AbortSignal
from omp.artifacts import FileLedger
from omp.tools import ToolResult
from omp_tool_edit import fileio
from omp_tool_edit.edit import EditParams, EditTool
from omp_tool_edit.write import WriteParams, WriteTool

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX inodes and modes")

OLD = b"header\n" + b"alpha\nbeta\ngamma\n" * 50


@pytest.fixture
def ctx(tmp_path: Path) -> SimpleNamespace:
    return SimpleNamespace(cwd=str(tmp_path), file_reads=FileLedger())


def write(ctx: Any, path: str, content: str) -> ToolResult:
    params = WriteParams(path=path, content=content)
    return WriteTool().execute("c1", params, AbortSignal(), lambda p: None, ctx)


def edit(ctx: Any, path: str, old: str, new: str) -> ToolResult:
    params = EditParams(path=path, edits=[{"oldText": old, "newText": new}])
    return EditTool().execute("c1", params, AbortSignal(), lambda p: None, ctx)


def text_of(result: ToolResult) -> str:
    return result.content[0].text


def existing(ctx: Any, path: Path, mode: int = 0o640) -> Path:
    path.write_bytes(OLD)
    path.chmod(mode)
    ctx.file_reads.record(path)
    return path


def change(tool: str, ctx: Any, name: str) -> ToolResult:
    if tool == "write":
        return write(ctx, name, "brand new\n")
    return edit(ctx, name, "header", "HEADER")


def expected(tool: str) -> bytes:
    if tool == "write":
        return b"brand new\n"
    return OLD.replace(b"header", b"HEADER")


@pytest.mark.parametrize("tool", ["write", "edit"])
def test_inode_hard_link_and_mode_are_kept(tool: str, ctx: Any, tmp_path: Path) -> None:
    target = existing(ctx, tmp_path / "f.txt")
    twin = tmp_path / "twin.txt"
    os.link(target, twin)
    before = target.stat()
    result = change(tool, ctx, "f.txt")
    assert not result.is_error, text_of(result)
    after = target.stat()
    assert after.st_ino == before.st_ino
    assert after.st_mode & 0o7777 == 0o640
    assert after.st_nlink == 2
    assert target.read_bytes() == twin.read_bytes() == expected(tool)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt", "twin.txt"]


@pytest.mark.skipif(
    sys.platform == "win32" or os.geteuid() != 0,
    reason="only root can give a file to another owner",
)
@pytest.mark.parametrize("tool", ["write", "edit"])
def test_owner_is_kept(tool: str, ctx: Any, tmp_path: Path) -> None:
    target = existing(ctx, tmp_path / "theirs.txt", 0o644)
    os.chown(target, 4321, 8765)
    assert not change(tool, ctx, "theirs.txt").is_error
    st = target.stat()
    assert (st.st_uid, st.st_gid) == (4321, 8765)
    assert target.read_bytes() == expected(tool)


@pytest.mark.parametrize("tool", ["write", "edit"])
@pytest.mark.parametrize("mode", [0o444, 0o400, 0o555])
def test_read_only_file_is_refused_even_for_root(
    tool: str, mode: int, ctx: Any, tmp_path: Path
) -> None:
    target = existing(ctx, tmp_path / "ro.txt", mode)
    result = change(tool, ctx, "ro.txt")
    assert result.is_error
    verb = "write" if tool == "write" else "edit"
    assert text_of(result) == f"Cannot {verb} ro.txt: it is read-only (mode 0{mode:o})."
    assert target.read_bytes() == OLD
    assert target.stat().st_mode & 0o7777 == mode


def test_new_file_is_still_created(ctx: Any, tmp_path: Path) -> None:
    result = write(ctx, "new/one.txt", "x\n")
    assert not result.is_error and result.details["created"] is True
    assert (tmp_path / "new" / "one.txt").read_bytes() == b"x\n"
    assert [p.name for p in (tmp_path / "new").iterdir()] == ["one.txt"]


def fail_mid_write(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The first write puts half its bytes into the file, then the disk is full."""
    real = fileio._write_all
    calls: list[bytes] = []

    def flaky(fd: int, data: bytes) -> None:
        calls.append(data)
        if len(calls) == 1:
            real(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd, data)

    monkeypatch.setattr(fileio, "_write_all", flaky)
    return calls


def write_wrong_bytes(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The first write silently loses its last byte (only reading back can tell)."""
    real = fileio._write_all
    calls: list[bytes] = []

    def lossy(fd: int, data: bytes) -> None:
        calls.append(data)
        real(fd, data[:-1] + b"?" if len(calls) == 1 else data)

    monkeypatch.setattr(fileio, "_write_all", lossy)
    return calls


@pytest.mark.parametrize("tool", ["write", "edit"])
@pytest.mark.parametrize(
    ("breakage", "why"),
    [
        (fail_mid_write, "no space left on device"),
        (write_wrong_bytes, "the bytes read back differ from those written"),
    ],
)
def test_failure_mid_write_restores_the_original_bytes(
    tool: str, breakage: Any, why: str, ctx: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = existing(ctx, tmp_path / "f.txt")
    twin = tmp_path / "twin.txt"
    os.link(target, twin)
    inode = target.stat().st_ino
    calls = breakage(monkeypatch)
    result = change(tool, ctx, "f.txt")
    assert len(calls) == 2  # the failed write, then the restore
    assert result.is_error
    first = text_of(result).splitlines()[0]
    assert first.startswith(f"Cannot write f.txt: {why}.")
    assert "unchanged" in text_of(result)
    assert target.read_bytes() == OLD
    assert twin.read_bytes() == OLD
    assert target.stat().st_ino == inode
    assert target.stat().st_mode & 0o7777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt", "twin.txt"]
    monkeypatch.undo()
    assert not change(tool, ctx, "f.txt").is_error
    assert target.read_bytes() == expected(tool)


def test_shorter_and_longer_content_in_place(ctx: Any, tmp_path: Path) -> None:
    target = existing(ctx, tmp_path / "f.txt")
    inode = target.stat().st_ino
    for content in ["short\n", "x" * 100_000, ""]:
        assert not write(ctx, "f.txt", content).is_error
        assert target.read_bytes() == content.encode()
        assert target.stat().st_ino == inode


def test_interrupt_mid_write_restores_then_propagates(
    ctx: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = existing(ctx, tmp_path / "f.txt")
    real = fileio._write_all
    calls: list[bytes] = []

    def interrupted(fd: int, data: bytes) -> None:
        calls.append(data)
        if len(calls) == 1:
            real(fd, data[:3])
            raise KeyboardInterrupt
        real(fd, data)

    monkeypatch.setattr(fileio, "_write_all", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write(ctx, "f.txt", "brand new content\n")
    assert target.read_bytes() == OLD


@pytest.mark.parametrize("tool", ["write", "edit"])
def test_failed_restore_is_not_reported_as_unchanged(
    tool: str, ctx: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    existing(ctx, tmp_path / "f.txt")
    real = fileio._write_all

    def broken_disk(fd: int, data: bytes) -> None:
        real(fd, data[:5])
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(fileio, "_write_all", broken_disk)
    result = change(tool, ctx, "f.txt")
    assert result.is_error
    assert text_of(result) == (
        "Cannot write f.txt: input/output error, and the original content could not be put back."
    )
