"""What language servers cost (issue 27): plugins/lsp's writethrough on real basedpyright.

A small Python project in a temporary folder (a 40-line module). Reported:

- server start to first diagnostics: from spawning basedpyright-langserver to its first
  ``publishDiagnostics`` for the module (initialize, didOpen, analysis), median of the runs;
- added latency of write/edit with a warm server: what ``omp_lsp.writethrough`` adds to
  one ``edit`` (sync the new text, wait for the server's diagnostics, diff, format the
  note), median and p90 over the edits, alternating a clean and a broken version;
- RSS of a warm basedpyright: the resident memory of every process in its group.

    .venv/bin/python bench/lsp_bench.py [--runs 3] [--edits 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from omp.testing import settings_with
from omp_lsp.manager import LspManager
from omp_lsp.writethrough import diagnostics_note

CLEAN = "".join(f"def f{i}(x: int) -> int:\n    return x + {i}\n\n\n" for i in range(10))
BROKEN = CLEAN + "print(undefined_name)\n"


def group_rss_mb(pgid: int) -> float:
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.getpgid(int(entry)) != pgid:
                continue
            with open(f"/proc/{entry}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except (OSError, ProcessLookupError):
            continue
    return total / 1024


async def one_run(root: Path, edits: int) -> tuple[float, list[float], float]:
    module = root / "m.py"
    module.write_text(CLEAN)
    manager = LspManager(settings_with({}), root, False, root / "agent")
    began = time.perf_counter()
    client = await manager.client_for(module)
    assert client is not None, "basedpyright-langserver not found (requirements-dev.txt)"
    seen = client.publications(module)
    await client.sync(module)
    await client.wait_diagnostics(module, seen, 60)
    first = time.perf_counter() - began
    added = []
    for i in range(edits):
        module.write_text(BROKEN if i % 2 == 0 else CLEAN)
        t = time.perf_counter()
        await diagnostics_note(manager, module, 30.0)
        added.append(time.perf_counter() - t)
    rss = group_rss_mb(client.pid or 0)
    await manager.close()
    return first, added, rss


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--edits", type=int, default=20)
    args = parser.parse_args()
    firsts, added, rss = [], [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "pyproject.toml").write_text("[project]\nname = 'bench'\n")
            f, a, r = asyncio.run(one_run(root, args.edits))
            firsts.append(f)
            added.extend(a)
            rss.append(r)
    added.sort()
    print(f"server start to first diagnostics: {statistics.median(firsts) * 1000:.0f} ms")
    print(
        f"added latency per edit (warm): median {statistics.median(added) * 1000:.1f} ms, "
        f"p90 {added[int(len(added) * 0.9)] * 1000:.1f} ms"
    )
    print(f"RSS of a warm basedpyright (its process group): {statistics.median(rss):.0f} MB")


if __name__ == "__main__":
    main()
