"""The ``write`` and ``edit`` tools on 1 MB and 100 MB files: the old in-place path
against the rename path (issue 24, item 1).

    .venv/bin/python bench/edit_write.py [--sizes 1,100] [--runs 5] [--dir PATH]

Each run starts from a fresh file of the size (written and synced, not timed), then
times the tool's ``execute`` through three paths, in turn so that drift on a busy
machine hits them alike:

- ``in place``: ``omp.config.atomic_write.write_in_place``, the code the tools used before
  (overwrite, read back, truncate, fsync); a kill midway leaves a mix;
- ``rename``: ``omp.config.atomic_write.write_file``, what they use now (a temporary file,
  fsync, owner/xattrs/mode copied, rename, directory fsync);
- ``hard-linked``: ``write_file`` on a file with a second link, which is written in
  place after a recovery copy of its old bytes is saved.

``write`` replaces the whole content; ``edit`` replaces one line in the middle (its
16 MB limit is lifted for the bench). The tool's own work (encoding, matching, the diff
of ``edit``) is in every figure; the last columns time the file write alone. Median
milliseconds of ``--runs``; ratio = rename / in place (target: at most 1.10). A report:
it exits 0 whatever it measured.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from omp.base.abort import AbortSignal
from omp.config import atomic_write
from omp.session.artifacts import FileLedger
from omp_tool_edit import edit as edit_module
from omp_tool_edit import write as write_module

LINE = b"x" * 99 + b"\n"
TARGET = 1.10


def old_content(size: int) -> bytes:
    lines = size // len(LINE)
    middle = lines // 2
    return LINE * middle + b"the line the edit changes\n" + LINE * (lines - middle - 1)


def fresh(path: Path, data: bytes, linked: bool) -> None:
    for leftover in path.parent.iterdir():
        leftover.unlink()
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    if linked:
        os.link(path, path.with_name("twin"))


def run_tool(tool: str, path: Path, size: int) -> float:
    ctx = SimpleNamespace(cwd=str(path.parent), file_reads=FileLedger())
    ctx.file_reads.record(path)
    if tool == "write":
        params = write_module.WriteParams(path=str(path), content="y" * (size - 1) + "\n")
        execute = write_module.WriteTool().execute
    else:
        swap = {"oldText": "the line the edit changes", "newText": "the line the edit changed"}
        params = edit_module.EditParams(path=str(path), edits=[swap])
        execute = edit_module.EditTool().execute
    start = time.perf_counter()
    result = execute("bench", params, AbortSignal(), lambda p: None, ctx)
    elapsed = time.perf_counter() - start
    if result.is_error:
        raise SystemExit(f"{tool} failed: {result.content[0].text}")
    return elapsed


def in_place(target: str, data: bytes, **_: Any) -> Path:
    atomic_write.write_in_place(target, data)
    return Path(target)


PATHS: dict[str, tuple[Callable[..., Path], bool]] = {
    "in place": (in_place, False),
    "rename": (atomic_write.write_file, False),
    "hard-linked": (atomic_write.write_file, True),
}


def use(writer: Callable[..., Path]) -> None:
    edit_module.write_file = writer  # type: ignore[attr-defined]
    write_module.write_file = writer  # type: ignore[attr-defined]


def time_write_alone(path: Path, data: bytes, new: bytes, name: str) -> float:
    writer, linked = PATHS[name]
    fresh(path, data, linked)
    start = time.perf_counter()
    writer(str(path), new)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,100", help="MB, comma-separated")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dir", help="where the files go (default: a temporary directory)")
    args = parser.parse_args()
    edit_module.MAX_BYTES = 1 << 40
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        os.environ["OMP_CODING_AGENT_DIR"] = str(Path(tmp) / "agent")  # recovery copies
        folder = Path(tmp) / "files"
        folder.mkdir()
        path = folder / "file.txt"
        print(f"{'size':>6}  {'tool':<5}  " + "  ".join(f"{n:>11}" for n in PATHS)
              + "   ratio  |  write alone: in place  rename  ratio")  # fmt: skip
        for size_mb in (int(s) for s in args.sizes.split(",")):
            size = size_mb * 1_000_000
            data = old_content(size)
            new = b"y" * (size - 1) + b"\n"
            for tool in ("write", "edit"):
                times: dict[str, list[float]] = {name: [] for name in PATHS}
                alone: dict[str, list[float]] = {"in place": [], "rename": []}
                for _ in range(args.runs):
                    for name, (writer, linked) in PATHS.items():
                        fresh(path, data, linked)
                        use(writer)
                        times[name].append(run_tool(tool, path, size))
                    for name in alone:
                        alone[name].append(time_write_alone(path, data, new, name))
                med = {name: statistics.median(v) * 1000 for name, v in times.items()}
                solo = {name: statistics.median(v) * 1000 for name, v in alone.items()}
                print(
                    f"{size_mb:>4} MB  {tool:<5}  "
                    + "  ".join(f"{med[n]:>8.1f} ms" for n in PATHS)
                    + f"   {med['rename'] / med['in place']:>5.2f}  |"
                    + f"  {solo['in place']:>17.1f} ms  {solo['rename']:>6.1f} ms"
                    + f"  {solo['rename'] / solo['in place']:>5.2f}",
                    flush=True,
                )
    print(f"target: rename at most {TARGET:.2f}x in place")


if __name__ == "__main__":
    main()
