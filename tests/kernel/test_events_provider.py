"""before_provider_request, after_provider_response and credential_disabled: a plugin
sees (and may change) the JSON body every HTTP provider sends, sees the response's
status and headers, and hears when a provider rejects its key."""

from __future__ import annotations

import json

import omp
from replay import PROXY_SECRET, chat_stream


def test_before_provider_request_can_patch_and_replace_the_payload(omp_harness, proxy):
    seen: list = []

    class Patch:
        @omp.hookimpl(tryfirst=True)
        def omp_before_provider_request(self, event):
            seen.append((event.model.key, event.payload["model"], event.payload["stream"]))
            return {"patch": {"temperature": 0, "stream_options": None}}

    class Replace:
        @omp.hookimpl(trylast=True)
        def omp_before_provider_request(self, event):
            seen.append(("temperature" in event.payload, "stream_options" in event.payload))
            return {**event.payload, "user": "plugin"}

    proxy.add(chat_stream("hi"), headers={"content-type": "text/event-stream"})
    session = omp_harness.session([Patch(), Replace()], model="proxy/coder")
    log = omp_harness.run(session, "hello")
    assert log.final_text() == "hi"
    assert seen == [("proxy/coder", "coder", True), (True, False)]
    sent = proxy.requests[0].json
    assert sent["temperature"] == 0 and sent["user"] == "plugin"
    assert "stream_options" not in sent


def test_after_provider_response_sees_status_and_headers_without_secrets(omp_harness, proxy):
    seen: list = []

    class Watch:
        @omp.hookimpl
        def omp_after_provider_response(self, event):
            seen.append((event.status, event.headers, event.model.key))

    proxy.add(
        chat_stream("ok"),
        headers={
            "content-type": "text/event-stream",
            "x-request-id": "req-1",
            "set-cookie": "session=abc",
            "x-ratelimit-remaining-tokens": "99",
        },
    )
    session = omp_harness.session([Watch()], model="proxy/coder")
    omp_harness.run(session, "hello")
    [(status, headers, model)] = seen
    assert (status, model) == (200, "proxy/coder")
    assert headers["x-request-id"] == "req-1"
    assert headers["x-ratelimit-remaining-tokens"] == "99"
    assert headers["set-cookie"] == "[redacted]"


def test_a_rejected_key_fires_credential_disabled_and_is_not_sent_again(omp_harness, proxy):
    seen: list = []

    class Watch:
        @omp.hookimpl
        def omp_credential_disabled(self, event):
            seen.append((event.provider, event.disabled_cause))

    body = json.dumps(
        {"error": {"message": f"Incorrect API key {PROXY_SECRET}", "type": "invalid"}}
    )
    proxy.add(body, status=401, headers={"content-type": "application/json"})
    session = omp_harness.session([Watch()], model="proxy/coder")
    log = omp_harness.run(session, "hello", "again")
    assert [provider for provider, _ in seen] == ["proxy"]
    assert "401" in seen[0][1] and PROXY_SECRET not in seen[0][1]
    assert len(proxy.requests) == 1  # the second prompt fails without sending the key
    errors = [
        e.message.error_message for e in log.of("message_end") if e.message.role == "assistant"
    ]
    assert "rejected" in errors[1] and PROXY_SECRET not in errors[1]
