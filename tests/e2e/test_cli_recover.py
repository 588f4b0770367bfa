"""A hard-linked file is written in place, after its old bytes are saved; when the writer
is killed midway, the next omp start says so in one line and ``omp recover`` restores or
discards the copy (issue 24, item 1)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and hard links")

OLD = b"the old content\n" * 4096
NEW = b"THE NEW CONTENT, LONGER\n" * 4096

KILLED_WRITER = """
import os, signal, sys
from omp.config import atomic_write
real_put = atomic_write._put
when = sys.argv[3]

def killed(fd, data, old_size):
    if when == "midway":
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, data[: len(data) // 2])
    else:
        real_put(fd, data, old_size)
    os.kill(os.getpid(), signal.SIGKILL)

atomic_write._put = killed
atomic_write.write_file(sys.argv[1], open(sys.argv[2], "rb").read())
"""


def killed_in_place_write(omp_cli, when: str = "midway") -> tuple[Path, Path]:
    """A hard-linked file whose in-place write was killed ``midway`` or ``after`` the
    new bytes were in; the file and its twin."""
    target = omp_cli.cwd / "notes.txt"
    target.write_bytes(OLD)
    twin = omp_cli.root / "twin.txt"
    os.link(target, twin)
    new = omp_cli.root / "new.bin"
    new.write_bytes(NEW)
    script = omp_cli.root / "writer.py"
    script.write_text(KILLED_WRITER)
    proc = subprocess.run(
        [sys.executable, str(script), str(target), str(new), when],
        env=omp_cli.env,
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == -9, proc.stderr
    return target, twin


def recovery_files(omp_cli) -> list[str]:
    folder = omp_cli.agent_dir / "recovery"
    return sorted(p.suffix for p in folder.iterdir()) if folder.exists() else []


def test_a_cut_off_write_is_offered_at_the_next_start_and_restored(omp_cli):
    target, twin = killed_in_place_write(omp_cli)
    assert target.read_bytes() not in (OLD, NEW)  # torn: what the copy is for
    assert recovery_files(omp_cli) == [".bak", ".json"]
    script = omp_cli.script([{"text": "hello"}])
    run = omp_cli("-p", "hi", "--script", script)
    assert run.returncode == 0 and run.stdout == "hello\n", run.stderr
    (notice,) = [line for line in omp_cli.stderr_lines(run) if "cut off" in line]
    assert notice.startswith(f"omp: a write to {target} was cut off; its old content is saved: ")
    copy_id = notice.split("`omp recover restore ")[1].split("`")[0]

    listed = omp_cli("recover")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[0].startswith(f"{copy_id}  ")
    assert f"{len(OLD):,} bytes  {target}  (interrupted)" in listed.stdout

    restored = omp_cli("recover", "restore", copy_id[:12])
    assert (restored.returncode, restored.stderr) == (0, "")
    assert (
        restored.stdout
        == f"restored {target} ({len(OLD):,} bytes) from the recovery copy {copy_id}\n"
    )
    assert target.read_bytes() == twin.read_bytes() == OLD
    assert os.stat(target).st_ino == os.stat(twin).st_ino
    assert recovery_files(omp_cli) == []
    again = omp_cli("-p", "hi", "--script", script)
    assert again.returncode == 0 and "cut off" not in again.stderr


def test_a_copy_whose_file_holds_the_new_bytes_is_dropped_without_a_word(omp_cli):
    target, _ = killed_in_place_write(omp_cli, when="after")
    assert target.read_bytes() == NEW
    assert recovery_files(omp_cli) == [".bak", ".json"]
    listed = omp_cli("recover")
    assert (listed.returncode, listed.stdout) == (0, "no recovery copies: no write was cut off\n")
    assert recovery_files(omp_cli) == []


def test_discard_and_a_wrong_id(omp_cli):
    target, _ = killed_in_place_write(omp_cli)
    torn = target.read_bytes()
    wrong = omp_cli("recover", "restore", "nope")
    line = omp_cli.assert_one_line_error(wrong)
    assert wrong.returncode == 2 and "no recovery copy with the id 'nope'" in line
    copy_id = omp_cli("recover").stdout.split()[0]
    dropped = omp_cli("recover", "discard", copy_id)
    assert dropped.returncode == 0
    assert dropped.stdout == f"discarded the recovery copy {copy_id} of {target}\n"
    assert recovery_files(omp_cli) == []
    assert target.read_bytes() == torn
    usage = omp_cli("recover", "restore")
    assert usage.returncode == 2 and "usage: omp recover" in usage.stderr
