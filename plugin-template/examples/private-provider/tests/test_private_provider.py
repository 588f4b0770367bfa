"""The provider against a stand-in for the private endpoint: a loopback HTTP server that
answers /chat/completions with a streamed reply (no network, no real model)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from omp_private_provider import plugin

CHUNKS = [
    {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hello from "}}]},
    {"choices": [{"index": 0, "delta": {"content": "Acme."}, "finish_reason": "stop"}]},
    {"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}},
]


@pytest.fixture
def endpoint(monkeypatch):
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for chunk in CHUNKS:
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("ACME_BASE_URL", f"http://127.0.0.1:{server.server_port}/v1")
    monkeypatch.setenv("ACME_API_KEY", "acme-test-key")
    yield seen
    server.shutdown()
    server.server_close()


def test_the_model_answers_through_the_private_endpoint(omp_harness, endpoint):
    session = omp_harness.session([plugin], model="acme/acme-coder")
    events = omp_harness.run(session, "hi")
    assert events.final_text() == "Hello from Acme."
    assert endpoint[0]["path"] == "/v1/chat/completions"
    assert endpoint[0]["model"] == "acme-coder"
    assert endpoint[0]["auth"] == "Bearer acme-test-key"


def test_without_a_key_the_error_says_which_variable(omp_harness, monkeypatch):
    monkeypatch.delenv("ACME_API_KEY", raising=False)
    runtime = omp_harness.runtime([plugin])
    provider = next(p for p in runtime.contributions.of("providers") if p.name == "acme")
    assert "ACME_API_KEY" in (provider.unavailable_reason({}) or "")
