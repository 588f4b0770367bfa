"""Guarantees about tools that hold through the real ``omp`` process (issue 24, "also
confirm"): a tool call the stream cut off never runs; a catastrophic regex is bounded
(by its time limit, and by Ctrl+C, which also ends its worker process); bash output is
capped in what the model sees, the session file, the events and the artifact.

The tool- and loop-level tests of the same guarantees: plugins/llm/tests/
test_stream_faults.py, plugins/search/tests/test_search_regex.py,
plugins/bash/tests/test_bash_limits.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from pathlib import Path

import pytest
from omp.base.partial_json import CUT_OFF_TEXT

SSE = {"content-type": "text/event-stream"}
CATASTROPHIC_TEXT = "a" * 40 + "!\n"
PYTHON_ONLY = r"(a+)+\1$"
"""Exponential in Python's re on CATASTROPHIC_TEXT, and beyond RE2 (a backreference)."""


def _sse(*objects: dict) -> list[bytes]:
    return [f"data: {json.dumps(o)}\n\n".encode() for o in objects]


def _delta(delta: dict, finish: str | None = None) -> dict:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _bash_call(arguments: str) -> dict:
    call = {"index": 0, "id": "call_0", "type": "function"}
    call["function"] = {"name": "bash", "arguments": arguments}
    return _delta({"tool_calls": [call]})


def _answer(text: str) -> list[bytes]:
    return [
        *_sse(_delta({"role": "assistant", "content": text}), _delta({}, "stop")),
        b"data: [DONE]\n\n",
    ]


def _provider(omp_cli, url: str) -> None:
    omp_cli.use_provider("local", f"{url}/v1")


@pytest.mark.parametrize("how", ["output limit", "connection closed"])
def test_a_bash_call_the_stream_cut_off_never_runs(omp_cli, replay_server, how):
    marker = omp_cli.root / "ran"
    arguments = json.dumps({"command": f"touch {marker}"})[:-2]  # the closing '"}' never came
    if how == "output limit":
        replay_server.add(
            [*_sse(_bash_call(arguments), _delta({}, "length")), b"data: [DONE]\n\n"], headers=SSE
        )
    else:
        replay_server.add(_sse(_bash_call(arguments)), headers=SSE, cut_after=1)
    replay_server.add(_answer("I will call it again."), headers=SSE)
    _provider(omp_cli, replay_server.url)

    proc = omp_cli("-p", "--model", "local/coder", "--tools", "bash", "touch it")

    assert not marker.exists()
    [session] = omp_cli.session_files()
    results = omp_cli.messages_of(omp_cli.read_session(session), "toolResult")
    assert [(r["isError"], omp_cli.text_of(r)) for r in results] == [(True, CUT_OFF_TEXT)]
    if how == "output limit":  # the model is told, and answers
        assert (proc.returncode, proc.stdout) == (0, "I will call it again.\n"), proc.stderr
    else:  # a dropped connection ends the run with one line
        assert proc.returncode != 0 and "Traceback" not in proc.stderr


def _grep_script(omp_cli, pattern: str) -> Path:
    return omp_cli.script(
        [
            {"tool_calls": [{"name": "grep", "arguments": {"pattern": pattern}}]},
            {"text": "searched"},
        ]
    )


def test_a_catastrophic_regex_ends_at_its_time_limit(omp_cli):
    (omp_cli.cwd / "a.txt").write_text(CATASTROPHIC_TEXT)
    (omp_cli.agent_dir / "settings.json").write_text(
        json.dumps({"search": {"regexTimeoutMs": 300}})
    )

    proc = omp_cli("-p", "find it", "--script", _grep_script(omp_cli, PYTHON_ONLY), timeout=60)

    assert (proc.returncode, proc.stdout) == (0, "searched\n"), proc.stderr
    [session] = omp_cli.session_files()
    [result] = omp_cli.messages_of(omp_cli.read_session(session), "toolResult")
    assert result["isError"]
    assert f"The regex {PYTHON_ONLY!r} timed out after 0.3 s on a.txt" in omp_cli.text_of(result)


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found.update(int(child) for child in text)
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads children from /proc")
def test_ctrl_c_ends_a_catastrophic_grep_and_its_worker(omp_cli):
    (omp_cli.cwd / "a.txt").write_text(CATASTROPHIC_TEXT)
    (omp_cli.agent_dir / "settings.json").write_text(
        json.dumps({"search": {"regexTimeoutMs": 600_000}})
    )
    proc = omp_cli.popen("-p", "find it", "--script", _grep_script(omp_cli, PYTHON_ONLY))
    try:
        deadline = time.monotonic() + 30
        workers: set[int] = set()
        while not workers:  # the regex runs in a worker process of omp's
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no regex worker was started"
            workers = _children(proc.pid)
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)

    try:
        assert proc.returncode == 130, err
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in workers), "the regex worker outlived omp"
    finally:
        for pid in workers:  # an orphan would burn a core until its own alarm
            with contextlib.suppress(OSError):
                if b"scan.py" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    os.kill(pid, signal.SIGKILL)


def test_bash_output_is_capped_everywhere_it_goes(omp_cli):
    settings = {"bash": {"outputHardLimitBytes": 8 * 1024 * 1024, "artifactMaxBytes": 256 * 1024}}
    (omp_cli.agent_dir / "settings.json").write_text(json.dumps(settings))
    script = omp_cli.script(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "yes", "timeout": 60}}]},
            {"text": "stopped"},
        ]
    )

    proc = omp_cli("--mode", "json", "-p", "flood", "--script", script, timeout=120)

    assert proc.returncode == 0, proc.stderr
    assert max(len(line) for line in proc.stdout.splitlines()) < 256 * 1024
    [session] = omp_cli.session_files()
    assert session.stat().st_size < 256 * 1024
    [result] = omp_cli.messages_of(omp_cli.read_session(session), "toolResult")
    text = omp_cli.text_of(result)
    assert len(text.encode()) <= 60 * 1024
    assert text.endswith(
        "Command stopped: its output passed the limit of 8.0 MB (bash.outputHardLimitBytes)"
    )
    artifacts = [p for p in omp_cli.agent_dir.rglob("*") if p.is_file() and "artifact" in str(p)]
    assert artifacts and all(p.stat().st_size <= 256 * 1024 for p in artifacts)
