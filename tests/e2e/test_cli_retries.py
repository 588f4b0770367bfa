"""Retries as a print-mode user sees them (issue 8, item 10): one stderr line per retry,
a dead local server given up on quickly with its URL named, and no key in any line."""

from __future__ import annotations

import json
import re
import socket
import time

SECRET = "sk-test-0123456789abcdefghijklmnop"


def use_provider(omp_cli, base_url: str, settings: dict) -> None:
    omp_cli.use_provider("fault", base_url, api_key="FAULT_KEY")
    omp_cli.env["FAULT_KEY"] = SECRET
    omp_cli.env["OMP_SETTINGS"] = json.dumps(settings)


def dead_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_dead_local_server_gets_one_quick_retry_shown_on_stderr(omp_cli):
    base = f"http://127.0.0.1:{dead_port()}/v1"
    use_provider(omp_cli, base, {"retry": {"baseDelayMs": 100, "maxRetries": 3}})
    started = time.monotonic()
    proc = omp_cli("-p", "--model", "fault/coder", "hi", timeout=30)
    elapsed = time.monotonic() - started
    assert proc.returncode == 1 and proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = omp_cli.stderr_lines(proc)
    url = re.escape(f"{base}/chat/completions")
    assert len(lines) == 2, lines
    assert re.fullmatch(
        rf"omp: retrying in \d+(\.\d)? s \(attempt 2 of 2\): connection refused by {url}.*",
        lines[0],
    ), lines[0]
    assert lines[1].startswith("omp: connection refused by ") and f"{base}/chat" in lines[1]
    assert SECRET not in proc.stderr
    assert elapsed < 15


def test_retry_lines_never_show_the_key(omp_cli, replay_server):
    use_provider(omp_cli, f"{replay_server.url}/v1", {"retry": {"baseDelayMs": 1}})
    limited = {"error": {"message": f"Rate limit for key {SECRET}", "type": "rate_limit_error"}}
    replay_server.add(json.dumps(limited), status=429, headers={"retry-after": "0"})
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "back"}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    replay_server.add(body, headers={"content-type": "text/event-stream"})
    proc = omp_cli("-p", "--model", "fault/coder", "hi", timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "back\n"
    [line] = omp_cli.stderr_lines(proc)
    assert line.startswith("omp: retrying in 0 s (attempt 2 of 11): HTTP 429")
    assert "Rate limit for key" in line and SECRET not in line
