"""The startup gate through the CLI, in fresh processes: MCP servers configured must not
delay the first model request by more than ``mcp.startupGateMs`` - the SDK's import
(0.3-1.5 s) included, which a fresh ``omp`` pays on every run."""

from __future__ import annotations

import json
from pathlib import Path

from mcp_helpers import configure, run_omp, stdio_server

GATE_MS = 100
TIMING = """
import time
from pathlib import Path
import omp

OUT = Path({out!r})
marks = {{}}

@omp.hookimpl(tryfirst=True)  # before any plugin's start-up work, the MCP plugin's too
def omp_session_start(event):
    marks.setdefault("start", time.monotonic())

@omp.hookimpl
def omp_context(event):
    if "first" not in marks:
        marks["first"] = time.monotonic()
        OUT.write_text(str((marks["first"] - marks["start"]) * 1000))
"""


def first_request_ms(root: Path) -> float:
    out = root / "first-request-ms"
    extension = root / "timing.py"
    extension.write_text(TIMING.format(out=str(out)), encoding="utf-8")
    script = root / "script.jsonl"
    script.write_text(json.dumps({"text": "ok"}) + "\n", encoding="utf-8")
    proc = run_omp(root, "-p", "--script", str(script), "-e", str(extension), "hi")
    assert proc.returncode == 0, proc.stderr
    return float(out.read_text())


def test_three_stdio_servers_delay_the_first_request_by_at_most_the_gate(tmp_path: Path) -> None:
    plain, with_mcp = tmp_path / "plain", tmp_path / "mcp"
    for root in (plain, with_mcp):
        (root / "agent").mkdir(parents=True)
    configure(plain / "agent", {}, mcp={"startupGateMs": GATE_MS})
    configure(
        with_mcp / "agent",
        {f"demo{i}": stdio_server() for i in range(3)},
        mcp={"startupGateMs": GATE_MS},
    )
    # Best of two runs each, alternated: the machine is shared.
    without = min(first_request_ms(plain) for _ in range(2))
    added = min(first_request_ms(with_mcp) for _ in range(2)) - without
    assert added < GATE_MS + 200, f"3 servers added {added:.0f} ms (gate {GATE_MS} ms)"
