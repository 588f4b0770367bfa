"""A stream that stalls after its first event (issue 24, item 10): a role-only chunk and
then silence used to be retried up to 11 times. Two such stalls are the request's
budget; the user reads one retry line and one final line naming the endpoint (never
the key)."""

from __future__ import annotations

import json
import re

SECRET = "sk-test-0123456789abcdefghijklmnop"
SSE = {"content-type": "text/event-stream"}
ROLE_ONLY = b'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n'


def use_provider(omp_cli, base_url: str, settings: dict) -> None:
    omp_cli.use_provider("stall", base_url, api_key="STALL_KEY")
    omp_cli.env["STALL_KEY"] = SECRET
    omp_cli.env["OMP_SETTINGS"] = json.dumps(settings)


def test_a_role_only_chunk_then_a_stall_is_tried_twice_and_names_the_endpoint(
    omp_cli, replay_server
):
    base = f"{replay_server.url}/v1"
    settings = {"stream": {"idleTimeoutMs": 300}, "retry": {"baseDelayMs": 1}}
    use_provider(omp_cli, base, settings)
    for _ in range(11):
        replay_server.add(ROLE_ONLY, headers=SSE, stall_after=1)
    proc = omp_cli("-p", "--model", "stall/coder", "hi", timeout=60)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert len(replay_server.requests) == 2
    retry, final = omp_cli.stderr_lines(proc)
    assert re.match(r"omp: retrying in \d+(\.\d+)? s \(attempt 2 of 2\): ", retry), retry
    endpoint = f"{base}/chat/completions"
    assert final.startswith("omp: ") and endpoint in final, final
    assert "stalled" in final and "gave up after 2 stalls" in final, final
    assert SECRET not in proc.stderr


def test_a_stall_before_any_event_keeps_the_usual_retries(omp_cli, replay_server):
    """No first event at all (a server that accepted the request and then said nothing)
    is the first-event timeout's business: the stall budget does not cut it short."""
    use_provider(
        omp_cli,
        f"{replay_server.url}/v1",
        {"stream": {"firstEventTimeoutMs": 300}, "retry": {"baseDelayMs": 1, "maxRetries": 3}},
    )
    for _ in range(4):
        replay_server.add([], headers=SSE, stall_after=0)
    proc = omp_cli("-p", "--model", "stall/coder", "hi", timeout=60)
    assert proc.returncode == 1
    assert len(replay_server.requests) == 4
    assert SECRET not in proc.stderr
