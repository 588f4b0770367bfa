"""A turn too big for the context window even with its tool results moved to artifacts
(issue 24, item 7), seen from print mode: one line on stderr naming the turn, its size
and the window, exit 1, and the oversize context never sent (no compaction that would
only add a summary on top of it)."""

from __future__ import annotations

import json
import re


def test_print_mode_stops_with_one_line_when_the_turn_cannot_fit(omp_cli):
    (omp_cli.cwd / "small.txt").write_text("hello\n")
    settings = {"compaction": {"reserveTokens": 190_000}}  # 10,000 of the 200,000 window
    (omp_cli.agent_dir / "settings.json").write_text(json.dumps(settings))
    calls = [{"name": "read", "arguments": {"path": "small.txt"}}] * 1000
    script = omp_cli.script([{"tool_calls": calls}, {"text": "never sent"}])
    proc = omp_cli("-p", "--script", script, "read it a thousand times")

    assert proc.returncode == 1
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    (line,) = [x for x in omp_cli.stderr_lines(proc) if "replaying the script" not in x]
    assert line.startswith("omp: error: the current turn does not fit the context: ")
    assert 'the turn of the prompt "read it a thousand times"' in line
    assert "1,000 tool calls" in line and "200,000-token window" in line
    assert re.search(r"needs [\d,]+ tokens", line), line
    (session,) = omp_cli.session_files()
    entries = omp_cli.read_session(session)
    assert not [e for e in entries if e["type"] == "compaction"]
