"""A loopback HTTP server that replays scripted responses (providers, fetch, e2e).

    def test_x(replay_server):
        replay_server.add(body=sse_bytes, headers={"content-type": "text/event-stream"})
        ...  # point the provider's baseUrl at replay_server.url
        assert replay_server.requests[0].json["model"] == "..."

Each queued response is served to one request, in order: a status, headers and a body
sent in chunks (optionally with pauses), optionally cut off (the connection is closed
mid-body) or stalled (the server stops sending and holds the connection open).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def fixture_bytes(relative: str) -> bytes:
    """A recorded stream from tests/fixtures (origins in ORIGIN.md), byte for byte."""
    path = FIXTURES / relative
    if not path.exists():
        pytest.fail(f"fixture {path} is missing from the checkout")
    return path.read_bytes()


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] = field(default_factory=list)
    pause: float = 0.0
    cut_after: int | None = None
    stall_after: int | None = None


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


class ReplayServer:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[Recorded] = []
        self._stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms stall

            def log_message(self, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                server.requests.append(
                    Recorded(
                        "POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body
                    )
                )
                reply = (
                    server.replies.pop(0)
                    if server.replies
                    else Reply(500, {}, [b'{"error": {"message": "no reply queued"}}'])
                )
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                total = sum(len(c) for c in reply.chunks)
                ends_early = reply.cut_after is not None or reply.stall_after is not None
                if ends_early:
                    self.send_header("transfer-encoding", "chunked")
                else:
                    self.send_header("content-length", str(total))
                self.end_headers()
                for index, chunk in enumerate(reply.chunks):
                    if self.ends_here(reply, index):
                        return
                    if ends_early:
                        self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    else:
                        self.wfile.write(chunk)
                    self.wfile.flush()
                    if reply.pause:
                        time.sleep(reply.pause)
                if self.ends_here(reply, len(reply.chunks)):
                    return
                if ends_early:
                    self.wfile.write(b"0\r\n\r\n")

            def ends_here(self, reply: Reply, index: int) -> bool:
                """Stall (hold the connection open) or cut (close it) before chunk
                ``index``; ``len(chunks)`` means after the last one."""
                if reply.stall_after is not None and index >= reply.stall_after:
                    self.wfile.flush()
                    server._stop.wait(30)
                    return True
                if reply.cut_after is not None and index >= reply.cut_after:
                    self.wfile.flush()
                    self.connection.shutdown(2)
                    return True
                return False

            do_GET = do_POST

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def add(
        self,
        body: bytes | str | list[bytes] = b"",
        status: int = 200,
        headers: dict[str, str] | None = None,
        **options: Any,
    ) -> None:
        """Queue one response; ``body`` as bytes (one chunk) or a list of chunks."""
        if isinstance(body, str):
            body = body.encode()
        chunks = body if isinstance(body, list) else [body]
        self.replies.append(Reply(status, dict(headers or {}), chunks, **options))

    def close(self) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def split_events(data: bytes) -> list[bytes]:
    """An SSE body cut after every event (so each arrives as its own chunk)."""
    separator = b"\r\n\r\n" if b"\r\n\r\n" in data else b"\n\n"
    parts = data.split(separator)
    return [p + separator for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


PROXY_SECRET = "sk-test-0123456789abcdefghijklmnop"
"""The key of the ``proxy/coder`` provider of the ``proxy`` fixture (conftest.py)."""


def chat_stream(text: str) -> bytes:
    """A Chat Completions SSE body answering ``text``, then stop and ``[DONE]``."""
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return body.encode()
