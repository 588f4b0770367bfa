"""``write`` and ``edit`` replace an existing file atomically (a new inode, renamed over
it) keeping its mode, owner and extended attributes and writing through a symlink; a
hard-linked file is written in place (its links see the change) with a recovery copy
kept meanwhile; a read-only file is refused, and a failed write leaves the old bytes."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from omp import AbortSignal, FileLedger, ToolResult
from omp.testing import DiskFaults
from omp_tool_edit.edit import EditParams, EditTool
from omp_tool_edit.write import WriteParams, WriteTool

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX inodes and modes")

OLD = b"header\n" + b"alpha\nbeta\ngamma\n" * 50


@pytest.fixture(autouse=True)
def agent_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where recovery copies go: never the real home."""
    folder = tmp_path_factory.mktemp("agent")
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(folder))
    return folder


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


def linked(path: Path) -> Path:
    twin = path.with_name("twin.txt")
    os.link(path, twin)
    return twin


@pytest.mark.parametrize("tool", ["write", "edit"])
def test_a_single_link_file_is_replaced_keeping_its_mode(
    tool: str, ctx: Any, tmp_path: Path
) -> None:
    target = existing(ctx, tmp_path / "f.txt", 0o640)
    before = target.stat()
    result = change(tool, ctx, "f.txt")
    assert not result.is_error, text_of(result)
    after = target.stat()
    assert after.st_ino != before.st_ino
    assert after.st_mode & 0o7777 == 0o640
    assert target.read_bytes() == expected(tool)
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


@pytest.mark.skipif(not hasattr(os, "setxattr"), reason="extended attributes are Linux's")
@pytest.mark.parametrize("tool", ["write", "edit"])
def test_extended_attributes_are_kept(tool: str, ctx: Any, tmp_path: Path) -> None:
    target = existing(ctx, tmp_path / "f.txt")
    try:
        os.setxattr(target, "user.origin", b"downloaded")
    except OSError as exc:
        pytest.skip(f"this file system has no user extended attributes ({exc.strerror})")
    assert not change(tool, ctx, "f.txt").is_error
    assert os.getxattr(target, "user.origin") == b"downloaded"
    assert target.read_bytes() == expected(tool)


@pytest.mark.parametrize("tool", ["write", "edit"])
def test_a_symlink_is_written_through_and_stays_a_link(tool: str, ctx: Any, tmp_path: Path) -> None:
    real = existing(ctx, tmp_path / "real.txt", 0o600)
    link = tmp_path / "link.txt"
    link.symlink_to("real.txt")
    ctx.file_reads.record(link)
    assert not change(tool, ctx, "link.txt").is_error
    assert link.is_symlink() and os.readlink(link) == "real.txt"
    assert real.read_bytes() == expected(tool)
    assert real.stat().st_mode & 0o7777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "real.txt"]


@pytest.mark.parametrize("tool", ["write", "edit"])
def test_a_hard_linked_file_keeps_its_inode_and_links(
    tool: str, ctx: Any, tmp_path: Path, agent_dir: Path
) -> None:
    target = existing(ctx, tmp_path / "f.txt")
    twin = linked(target)
    before = target.stat()
    result = change(tool, ctx, "f.txt")
    assert not result.is_error, text_of(result)
    after = target.stat()
    assert after.st_ino == before.st_ino
    assert after.st_mode & 0o7777 == 0o640
    assert after.st_nlink == 2
    assert target.read_bytes() == twin.read_bytes() == expected(tool)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt", "twin.txt"]
    assert list((agent_dir / "recovery").iterdir()) == []  # dropped once written


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


def fail_mid_write(faults: DiskFaults) -> list[bytes]:
    """The first write puts half its bytes into the file, then the disk is full."""
    real = faults.write
    calls: list[bytes] = []

    def flaky(fd: int, data: bytes) -> None:
        calls.append(data)
        if len(calls) == 1:
            real(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd, data)

    faults.inject(flaky)
    return calls


def write_wrong_bytes(faults: DiskFaults) -> list[bytes]:
    """The first write silently loses its last byte (only reading back can tell)."""
    real = faults.write
    calls: list[bytes] = []

    def lossy(fd: int, data: bytes) -> None:
        calls.append(data)
        real(fd, data[:-1] + b"?" if len(calls) == 1 else data)

    faults.inject(lossy)
    return calls


@pytest.mark.parametrize("tool", ["write", "edit"])
def test_failure_mid_write_leaves_the_file_untouched(
    tool: str,
    ctx: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    omp_disk_faults: DiskFaults,
) -> None:
    target = existing(ctx, tmp_path / "f.txt")
    inode = target.stat().st_ino
    calls = fail_mid_write(omp_disk_faults)
    result = change(tool, ctx, "f.txt")
    assert len(calls) == 1  # into the temporary file, which is dropped
    assert result.is_error
    assert text_of(result).splitlines()[0] == "Cannot write f.txt: no space left on device."
    assert "unchanged" in text_of(result)
    assert target.read_bytes() == OLD
    assert target.stat().st_ino == inode
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]
    monkeypatch.undo()
    assert not change(tool, ctx, "f.txt").is_error
    assert target.read_bytes() == expected(tool)


@pytest.mark.parametrize("tool", ["write", "edit"])
@pytest.mark.parametrize(
    ("breakage", "why"),
    [
        (fail_mid_write, "no space left on device"),
        (write_wrong_bytes, "the bytes read back differ from those written"),
    ],
)
def test_failure_mid_write_in_place_restores_the_original_bytes(
    tool: str,
    breakage: Any,
    why: str,
    ctx: Any,
    tmp_path: Path,
    agent_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    omp_disk_faults: DiskFaults,
) -> None:
    target = existing(ctx, tmp_path / "f.txt")
    twin = linked(target)
    inode = target.stat().st_ino
    calls = breakage(omp_disk_faults)
    omp_disk_faults.spare_recovery()
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
    assert list((agent_dir / "recovery").iterdir()) == []
    monkeypatch.undo()
    assert not change(tool, ctx, "f.txt").is_error
    assert target.read_bytes() == expected(tool)


def test_shorter_and_longer_content_in_place(ctx: Any, tmp_path: Path) -> None:
    target = existing(ctx, tmp_path / "f.txt")
    linked(target)
    inode = target.stat().st_ino
    for content in ["short\n", "x" * 100_000, ""]:
        assert not write(ctx, "f.txt", content).is_error
        assert target.read_bytes() == content.encode()
        assert target.stat().st_ino == inode


def test_interrupt_mid_write_leaves_the_old_bytes_then_propagates(
    ctx: Any, tmp_path: Path, omp_disk_faults: DiskFaults
) -> None:
    target = existing(ctx, tmp_path / "f.txt")
    real = omp_disk_faults.write

    def interrupted(fd: int, data: bytes) -> None:
        real(fd, data[:3])
        raise KeyboardInterrupt

    omp_disk_faults.inject(interrupted)
    with pytest.raises(KeyboardInterrupt):
        write(ctx, "f.txt", "brand new content\n")
    assert target.read_bytes() == OLD
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


@pytest.mark.parametrize("tool", ["write", "edit"])
def test_failed_restore_is_not_reported_as_unchanged(
    tool: str, ctx: Any, tmp_path: Path, agent_dir: Path, omp_disk_faults: DiskFaults
) -> None:
    target = existing(ctx, tmp_path / "f.txt")
    linked(target)
    real = omp_disk_faults.write

    def broken_disk(fd: int, data: bytes) -> None:
        real(fd, data[:5])
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    omp_disk_faults.inject(broken_disk)
    omp_disk_faults.spare_recovery()
    result = change(tool, ctx, "f.txt")
    assert result.is_error
    (record,) = (agent_dir / "recovery").glob("*.json")
    assert text_of(result) == (
        "Cannot write f.txt: input/output error, and the original content could not be put "
        f"back; the old content is saved: `omp recover restore {record.stem}` puts it back."
    )
    assert (agent_dir / "recovery" / f"{record.stem}.bak").read_bytes() == OLD
