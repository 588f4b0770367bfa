"""The ``read`` tool on a generated 200-page PDF (FlateDecode content streams, about
1.5 KB of text a page): the first call (as many pages as the 50 KiB budget holds), all
pages paged through with ``offset`` until the end, and pypdf's own open and extraction
beside them (what the tool adds on top).

    .venv/bin/python bench/read_bench.py [--pages N] [--runs N] [--json]

In process, through ``ReadTool.execute``. A report: it exits 0 whatever it measures.
Figures are min and median over ``--runs``. Target: the first call < 1 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from omp import AbortSignal
from omp_tool_read.tool import ReadParams, ReadTool
from pdfgen import make_pdf

TEXT = "the quick brown fox jumps over a lazy dog while reading portable documents"


def page_text(number: int) -> str:
    vocabulary = TEXT.split()
    words = [vocabulary[(number + i) % len(vocabulary)] for i in range(260)]
    return f"Page {number}: " + " ".join(words)


def read(path: Path, offset: int | None = None) -> Any:
    ctx = SimpleNamespace(cwd=str(path.parent))
    params = ReadParams(path=str(path), offset=offset)
    return ReadTool().execute("b", params, AbortSignal(), lambda _: None, ctx)


def first_call(path: Path) -> int:
    return read(path).details["pages"]


def all_pages(path: Path) -> int:
    offset, calls = 1, 0
    while True:
        result = read(path, offset)
        calls += 1
        details = result.details
        offset = details["offset"] + details["pages"]
        if offset > details["totalPages"]:
            return calls


def pypdf_alone(path: Path) -> int:
    from pypdf import PdfReader

    return sum(len(p.extract_text()) for p in PdfReader(path).pages)


def timed(fn: Any, path: Path, runs: int) -> dict[str, Any]:
    times, value = [], None
    for _ in range(runs):
        start = time.perf_counter()
        value = fn(path)
        times.append(time.perf_counter() - start)
    return {"min_s": min(times), "median_s": statistics.median(times), "value": value}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "doc.pdf"
        path.write_bytes(make_pdf([page_text(n) for n in range(1, args.pages + 1)]))
        figures = {
            "pdf_bytes": path.stat().st_size,
            "first_call": timed(first_call, path, args.runs),
            "all_pages": timed(all_pages, path, args.runs),
            "pypdf_alone": timed(pypdf_alone, path, args.runs),
        }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"{args.pages}-page PDF, {figures['pdf_bytes'] / 1024:.0f} KiB, {args.runs} runs")
    rows = (
        ("first call", "first_call", "pages shown"),
        ("all pages, paged", "all_pages", "calls"),
        ("pypdf open+extract", "pypdf_alone", "chars"),
    )
    for label, key, unit in rows:
        f = figures[key]
        print(
            f"  {label:<20} min {f['min_s'] * 1000:7.1f} ms   median "
            f"{f['median_s'] * 1000:7.1f} ms   ({f['value']} {unit})"
        )


if __name__ == "__main__":
    main()
