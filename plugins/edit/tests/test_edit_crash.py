"""A ``write`` or ``edit`` killed (SIGKILL) while it writes a large file leaves the file
with its old bytes or its new ones, never a mix; the next write removes the killed
writer's temporary file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and POSIX renames")

LINE = 999
WRITE_LINES = 40_000  # 40 MB
EDIT_LINES = 15_000  # 15 MB: the edit tool refuses files over 16 MB

CHILD = """
import os, sys
from pathlib import Path
from types import SimpleNamespace

from omp import AbortSignal, FileLedger
from omp_tool_edit.edit import EditParams, EditTool
from omp_tool_edit.write import WriteParams, WriteTool

tool, path, lines, width = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
ctx = SimpleNamespace(cwd=os.path.dirname(path), file_reads=FileLedger())
ctx.file_reads.record(Path(path))
if tool == "write":
    params = WriteParams(path=path, content=("b" * width + "\\n") * lines)
    run = WriteTool().execute
else:
    swap = {"oldText": "alpha", "newText": "OMEGA", "replaceAll": True}
    params = EditParams(path=path, edits=[swap])
    run = EditTool().execute
print("ready", flush=True)
sys.stdin.readline()
result = run("c1", params, AbortSignal(), lambda p: None, ctx)
print("error" if result.is_error else "done", flush=True)
"""


def contents(tool: str) -> tuple[bytes, bytes]:
    if tool == "write":
        return (b"a" * LINE + b"\n") * WRITE_LINES, (b"b" * LINE + b"\n") * WRITE_LINES
    old = (b"alpha" + b"." * (LINE - 5) + b"\n") * EDIT_LINES
    return old, old.replace(b"alpha", b"OMEGA")


def writing(folder: Path, target: Path, before: os.stat_result) -> bool:
    """Whether the write has visibly begun: a temporary file next to the target, or
    the target itself changed."""
    if len(os.listdir(folder)) > 1:
        return True
    st = os.stat(target)
    return (st.st_ino, st.st_mtime_ns, st.st_size) != (
        before.st_ino,
        before.st_mtime_ns,
        before.st_size,
    )


def kill_while_writing(tool: str, folder: Path, polls: int) -> str:
    """Start the tool in a child, SIGKILL it at the ``polls``-th sight of its writing;
    what it had printed last ('killed' if nothing after ready)."""
    target = folder / "big.txt"
    script = folder.parent / "child.py"
    script.write_text(CHILD)
    lines = WRITE_LINES if tool == "write" else EDIT_LINES
    child = subprocess.Popen(
        [sys.executable, str(script), tool, str(target), str(lines), str(LINE)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert child.stdout.readline() == b"ready\n"
        before = os.stat(target)
        child.stdin.write(b"go\n")
        child.stdin.flush()
        seen = 0
        deadline = time.monotonic() + 120
        while child.poll() is None and time.monotonic() < deadline:
            if writing(folder, target, before):
                seen += 1
                if seen > polls:
                    break
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait()
    tail = child.stdout.read().decode().split()
    return tail[-1] if tail else "killed"


@pytest.mark.parametrize(
    ("tool", "polls"),
    [("write", 0), ("write", 3), ("write", 30), ("write", 300), ("edit", 0), ("edit", 30)],
)
def test_a_killed_write_leaves_the_old_or_the_new_bytes(
    tool: str, polls: int, tmp_path: Path
) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    old, new = contents(tool)
    target = folder / "big.txt"
    target.write_bytes(old)
    outcome = kill_while_writing(tool, folder, polls)
    data = target.read_bytes()
    held = "old" if data == old else "new" if data == new else f"a mix of {len(data):,} bytes"
    assert held in ("old", "new"), f"{tool} killed after {polls} polls ({outcome}): {held}"
    if outcome == "done":
        assert held == "new"


def test_the_next_write_removes_a_killed_writers_temporary_file(tmp_path: Path) -> None:
    from omp import write_file

    folder = tmp_path / "work"
    folder.mkdir()
    old, _ = contents("write")
    target = folder / "big.txt"
    target.write_bytes(old)
    kill_while_writing("write", folder, 0)
    assert len(os.listdir(folder)) == 2  # the target and the killed writer's temporary
    write_file(target, b"fresh\n")
    assert target.read_bytes() == b"fresh\n"
    assert os.listdir(folder) == ["big.txt"]
