"""The shared rate limit: one pair of buckets per provider for every worker."""

from __future__ import annotations

import json
import multiprocessing

from omp import Settings
from omp_batch.ratelimit import FileLimiter, Limit, limits_from_settings, reserve, spend


def test_a_bucket_grants_its_limit_then_says_how_long_to_wait():
    state: dict[str, float] = {}
    limit = Limit(requests=60)
    assert [reserve(state, limit, 1, 0, 100.0) for _ in range(60)] == [0.0] * 60
    assert reserve(state, limit, 1, 0, 100.0) == 1.0  # one request a second refills
    assert reserve(state, limit, 1, 0, 101.0) == 0.0


def test_tokens_spent_after_an_answer_delay_the_next_request():
    state: dict[str, float] = {}
    limit = Limit(tokens=6000)  # 100 a second
    assert reserve(state, limit, 1, 1000, 0.0) == 0.0
    spend(state, limit, 5500, 0.0)  # the answer's output: below zero now
    assert reserve(state, limit, 1, 1000, 0.0) == 15.0  # from -500 to 1000


def _take(folder: str, limits: dict[str, Limit], grants: object) -> None:
    limiter = FileLimiter(folder, limits)
    granted = sum(1 for _ in range(4) if limiter.take("anthropic", 10) == 0)
    with grants.get_lock():  # type: ignore[attr-defined]
        grants.value += granted  # type: ignore[attr-defined]


def test_worker_processes_share_one_bucket(tmp_path):
    limits = {"anthropic": Limit(requests=6)}
    grants = multiprocessing.Value("i", 0)
    context = multiprocessing.get_context("fork")
    workers = [
        context.Process(target=_take, args=(str(tmp_path), limits, grants)) for _ in range(2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    assert grants.value == 6  # 8 asked, 6 a minute allowed between them
    assert FileLimiter(str(tmp_path), limits).take("openai", 10) == 0  # no limit there


def test_limits_come_from_settings_per_provider_or_for_all():
    settings = Settings(
        {"batch": {"requestsPerMinute": {"anthropic": 50, "*": 10}, "tokensPerMinute": {"*": 9}}}
    )
    limits = limits_from_settings(settings)
    assert limits["anthropic"] == Limit(requests=50)
    assert limits["*"] == Limit(requests=10, tokens=9)


def test_every_request_of_every_worker_goes_through_the_shared_bucket(batch, replay_server):
    from replay import chat_stream

    batch.proxy_model(
        replay_server.url,
        {"id": "coder"},
        requestsPerMinute={"proxy": 6},
        tokensPerMinute={"*": 10_000_000},
    )
    for n in range(3):
        replay_server.add(chat_stream(f"answer {n}"), headers={"content-type": "text/event-stream"})
    tasks = batch.tasks(
        [{"id": f"t{n}", "prompt": "hi", "cwd": "work", "model": "proxy/coder"} for n in range(3)]
    )
    proc = batch.run(str(tasks), "--out", "out", "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    bucket = json.loads((batch.root / "out" / ".ratelimit" / "proxy.json").read_text())
    assert 3 <= bucket["requests"] < 3.5  # three taken from six (plus 0.1 a second refilled)
    assert bucket["tokens"] < 10_000_000 - 300  # the requests' estimated tokens were taken


def _tool_call_stream(number: int) -> bytes:
    """A Chat Completions SSE body calling read on a.txt, with its usage."""
    call = {"index": 0, "id": f"call_{number}", "type": "function"}
    call["function"] = {"name": "read", "arguments": json.dumps({"path": "a.txt"})}
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [call]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        {"choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 10}},
    ]
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


def test_a_429_is_retried_with_backoff_and_a_cost_budget_stops_a_priced_model(batch, replay_server):
    from replay import chat_stream

    priced = {"id": "coder", "cost": {"input": 10_000, "output": 10_000}}
    batch.proxy_model(replay_server.url, priced)  # $1.10 an answer below: 100 in, 10 out
    sse = {"content-type": "text/event-stream"}
    replay_server.add('{"error": {"message": "slow down"}}', status=429)
    replay_server.add(chat_stream("after a retry"), headers=sse)
    for number in range(3):
        replay_server.add(_tool_call_stream(number), headers=sse)
    fast = {"retry": {"baseDelayMs": 20}}
    task = {"prompt": "hi", "cwd": "work", "model": "proxy/coder", "settings": fast}
    tasks = batch.tasks(
        [{"id": "retried", **task}, {"id": "pricey", **task, "budget": {"cost": 2.5}}]
    )
    proc = batch.run(str(tasks), "--out", "out", "--jobs", "1")
    assert proc.returncode == 1, proc.stderr
    results = {r["id"]: r for r in batch.results()}
    retried = results["retried"]
    assert retried["status"] == "done" and retried["answer"] == "after a retry", retried
    log = (batch.root / "out" / "retried" / "attempt-1" / "log.txt").read_text()
    assert "retrying in" in log and "slow down" in log, log
    pricey = results["pricey"]
    assert pricey["status"] == "budget_exceeded", pricey
    assert pricey["error"] == "cost budget of $2.5 spent"
    assert pricey["cost"] == 3.3 and pricey["turns"] == 3  # stopped after the third answer
    assert len(replay_server.requests) == 5  # no fourth request for the priced task
