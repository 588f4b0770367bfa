"""before_provider_request handlers through a real session (the dispatcher's patch and
replace rules) with incremental request building: a handler that patches top-level
keys keeps the cached message bytes, one that replaces the payload gets a full
encode, and both send the same bytes for the same payload."""

from __future__ import annotations

import copy
import json

import omp
from replay import chat_stream

SSE = {"content-type": "text/event-stream"}


class Patch:
    @omp.hookimpl
    def omp_before_provider_request(self, event):
        return {"patch": {"temperature": 0}}


class Replace:
    @omp.hookimpl
    def omp_before_provider_request(self, event):
        payload = copy.deepcopy(event.payload)  # reads every message: a full encode
        payload["temperature"] = 0
        return {"payload": payload}


def bodies(omp_harness, proxy, plugin) -> list[bytes]:
    start = len(proxy.requests)
    for text in ("first answer ✓", "second answer", "third"):
        proxy.add(chat_stream(text), headers=SSE)
    session = omp_harness.session([plugin], model="proxy/coder")
    log = omp_harness.run(session, "hello", "and again", "once more")
    assert log.final_text() == "third"
    return [request.body for request in proxy.requests[start:]]


def test_patching_and_replacing_handlers_send_identical_bytes(omp_harness, proxy):
    patched = bodies(omp_harness, proxy, Patch())
    replaced = bodies(omp_harness, proxy, Replace())
    assert len(patched) == len(replaced) == 3
    for one, other in zip(patched, replaced, strict=True):
        assert one == other
        sent = json.loads(one)
        assert sent["temperature"] == 0
        assert one == json.dumps(sent, ensure_ascii=False, separators=(",", ":")).encode()
    assert [m["content"] for m in json.loads(patched[2])["messages"][1:]] == [
        "hello", "first answer ✓", "and again", "second answer", "once more"
    ]  # fmt: skip
