"""Compaction seen from the command line: print mode says on stderr that it compacted
(tokens before -> after) and still prints the answer; json mode carries the events;
a prompt larger than the model's window is refused at once, naming both sizes."""

from __future__ import annotations

import json
import time

SUMMARY = {"when": "<conversation>", "text": "## Goal\nCount the lines of notes.txt"}
STEPS = [
    {
        "choose": [
            SUMMARY,
            {
                "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}],
                "usage": {"input": 180000, "output": 10},
            },
        ]
    },
    {"choose": [SUMMARY, {"text": "The notes have 3 lines."}]},
]


def _setup(omp_cli) -> str:
    (omp_cli.cwd / "notes.txt").write_text("one\ntwo\nthree\n")
    settings = {"compaction": {"keepRecentTokens": 10}}
    (omp_cli.agent_dir / "settings.json").write_text(json.dumps(settings))
    return str(omp_cli.script(STEPS))


def test_print_mode_reports_the_compaction_and_finishes(omp_cli):
    script = _setup(omp_cli)
    proc = omp_cli("-p", "Count the lines of notes.txt", "--script", script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "The notes have 3 lines.\n"
    line = next(x for x in proc.stderr.splitlines() if "compacted" in x)
    before, after = line.split(": ", 2)[-1].removesuffix(" tokens").split(" -> ")
    assert int(before.replace(",", "")) > 180000 > int(after.replace(",", ""))
    (session,) = omp_cli.session_files()
    entries = omp_cli.read_session(session)
    (compaction,) = [e for e in entries if e["type"] == "compaction"]
    assert compaction["summary"].startswith("## Goal\nCount the lines")
    assert "notes.txt" in compaction["summary"]  # the files read, as tags
    assert compaction["tokensBefore"] > 180000


def test_json_mode_carries_the_compaction_events(omp_cli):
    script = _setup(omp_cli)
    proc = omp_cli("--mode", "json", "--script", script, "Count the lines of notes.txt")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    kinds = [e["type"] for e in events]
    start, end = kinds.index("auto_compaction_start"), kinds.index("auto_compaction_end")
    assert start < end
    assert events[start]["reason"] == "threshold"
    result = events[end]["result"]
    assert result["tokensBefore"] > 180000 and result["firstKeptEntryId"]
    assert result["summary"].startswith("## Goal")


def test_a_prompt_larger_than_the_window_is_refused_before_sending(omp_cli):
    script = omp_cli.script([{"text": "never sent"}])
    huge = "word " * 240_000  # 1.2 MB, 240,000 tokens; the scripted model's window is 200,000
    started = time.monotonic()
    proc = omp_cli("-p", "--script", str(script), input=huge)
    assert time.monotonic() - started < 20
    assert proc.returncode == 1
    assert "never sent" not in proc.stdout
    assert "the prompt is 240,00" in proc.stderr and "window of 200,000 tokens" in proc.stderr
