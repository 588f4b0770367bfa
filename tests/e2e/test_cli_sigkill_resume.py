"""SIGKILL at random points of a run, then resume: nothing written before is lost
(issue 24, "also confirm"). Seeded trials kill a print-mode run that appends a tool
call and its result every few milliseconds; the next run on the same session must load
it, keep every complete line byte for byte (a torn last line is moved aside, not
dropped), and go on from the last entry. The one fixed-point kill is in
test_cli_sessions.py::test_sigkill_mid_run_leaves_a_session_that_continues."""

from __future__ import annotations

import json
import random
import signal
import time

import pytest

STEPS = 30
SEED = 24


def _busy_script(omp_cli):
    call = {"name": "read", "arguments": {"path": "notes.txt"}}
    steps = [{"delay": 0.03, "text": f"step {n}", "tool_calls": [call]} for n in range(STEPS)]
    return omp_cli.script([*steps, {"text": "finished"}])


def _killed_at(omp_cli, session, script, delay: float) -> bytes:
    """Start a run on ``session``, SIGKILL it ``delay`` s after the file appears; what
    the file held then."""
    proc = omp_cli.popen("--session", session, "-p", "work", "--script", script)
    try:
        deadline = time.monotonic() + 30
        while not session.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the session file never appeared"
            time.sleep(0.005)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=20)
    return session.read_bytes()


@pytest.mark.parametrize("trial", range(5))
def test_a_run_killed_at_a_random_point_resumes_with_nothing_lost(omp_cli, trial):
    delay = random.Random(SEED * 100 + trial).uniform(0.0, 0.6)  # the run lasts > 0.9 s
    (omp_cli.cwd / "notes.txt").write_text("kiwi\n", encoding="utf-8")
    session = omp_cli.root / "session.jsonl"
    before = _killed_at(omp_cli, session, _busy_script(omp_cli), delay)

    complete = before[: before.rfind(b"\n") + 1]
    torn = before[len(complete) :]
    kept = [json.loads(line) for line in complete.decode("utf-8").splitlines()]
    assert b'"finished"' not in before, "the run ended before it was killed"
    resume = omp_cli.script([{"text": "resumed"}] * (STEPS + 3))

    proc = omp_cli("--session", session, "-p", "go on", "--script", resume)

    assert (proc.returncode, proc.stdout) == (0, "resumed\n"), (delay, proc.stderr)
    after = session.read_bytes()
    assert after.startswith(complete), delay
    entries = omp_cli.read_session(session)
    assert entries[: len(kept)] == kept
    if len(kept) > 1:
        assert entries[len(kept)]["parentId"] == kept[-1]["id"]
    texts = [omp_cli.text_of(m) for m in omp_cli.messages_of(entries)]
    assert texts[-2:] == ["go on", "resumed"]
    if torn:
        [aside] = session.parent.glob(f"{session.name}.torn-*")
        assert aside.read_bytes() == torn
