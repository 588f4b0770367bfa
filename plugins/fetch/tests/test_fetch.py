"""The built-in ``fetch`` tool (plugins/fetch) against a local HTTP server."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from omp import AbortSignal, ArtifactStore, ToolResult
from omp_tool_fetch.tool import FetchParams, FetchTool
from pdfgen import make_pdf

PAGE = b"""<!doctype html>
<html><head><title>Fruit facts</title>
<style>body { color: red }</style>
<script>var secret_tracker = 1;</script></head>
<body>
<nav><a href="/home">Home</a> | <a href="/about">About</a></nav>
<h1>Pineapples</h1>
<p>A <b>pineapple</b> is not a <a href="https://example.org/apple">apple</a>.</p>
<ul><li>sweet</li><li>spiky</li></ul>
<pre><code>def snake_case_name():
    return 42</code></pre>
<footer>Copyright nobody</footer>
</body></html>
"""
LONG_TEXT = "".join(f"line {i}\n" for i in range(1, 3001)).encode()
SLOW_RELEASE = threading.Event()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def send(self, status: int, body: bytes, content_type: str, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, status: int, location: str) -> None:
        self.send(status, b"", "text/plain", Location=location)

    def do_GET(self) -> None:
        path = self.path
        if path == "/page.html":
            self.send(200, PAGE, "text/html; charset=utf-8")
        elif path == "/data.json":
            self.send(200, b'{"name":"caf\xc3\xa9","tags":["a","b"],"n":1}', "application/json")
        elif path == "/notes.txt":
            self.send(200, b"plain  text\n\tindented\n", "text/plain")
        elif path == "/r1":
            self.redirect(302, "/r2")
        elif path == "/r2":
            self.redirect(301, f"http://127.0.0.1:{self.server.server_port}/page.html")
        elif path.startswith("/loop"):
            n = int(path[5:] or 0)
            self.redirect(302, f"/loop{n + 1}")
        elif path.startswith("/hops"):
            n = int(path[5:])
            if n:
                self.redirect(307, f"/hops{n - 1}")
            else:
                self.send(200, b"arrived", "text/plain")
        elif path == "/to-ftp":
            self.redirect(302, "ftp://127.0.0.1/file")
        elif path == "/slow":
            SLOW_RELEASE.wait(5)
            self.send(200, b"finally", "text/plain")
        elif path == "/long.txt":
            self.send(200, LONG_TEXT, "text/plain; charset=utf-8")
        elif path == "/huge.txt":
            self.send(200, b"x" * 99 + b"\n" * 1 + b"y" * (6 * 1024 * 1024), "text/plain")
        elif path == "/logo.png":
            self.send(200, b"\x89PNG\r\n\x1a\n" + b"\x00" * 32, "image/png")
        elif path == "/doc.pdf":
            self.send(200, make_pdf(["First page", "Second page"]), "application/pdf")
        elif path == "/latin1":
            self.send(200, "naïve".encode("latin-1"), "text/plain; charset=iso-8859-1")
        else:
            self.send(404, b"<html><body><h1>Not here</h1></body></html>", "text/html")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        SLOW_RELEASE.set()
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("all_proxy", raising=False)


def fetch(url: str, tmp_path: Path, signal: AbortSignal | None = None, **kw: Any) -> ToolResult:
    ctx = SimpleNamespace(cwd=str(tmp_path), artifacts=ArtifactStore(tmp_path / "artifacts"))
    params = FetchParams(url=url, **kw)
    return asyncio.run(FetchTool().execute("c1", params, signal or AbortSignal(), None, ctx))


def text_of(result: ToolResult) -> str:
    assert len(result.content) == 1
    return result.content[0].text


def test_html_becomes_markdown_without_noise(server: str, tmp_path: Path) -> None:
    result = fetch(f"{server}/page.html", tmp_path)
    assert not result.is_error
    text = text_of(result)
    head, body = text.split("\n---\n", 1)
    assert head.split("\n") == [
        f"URL: {server}/page.html",
        "Content-Type: text/html; charset=utf-8",
        "Title: Fruit facts",
    ]
    assert body.startswith(
        "# Pineapples\n\nA **pineapple** is not a [apple](https://example.org/apple)."
    )
    assert "- sweet\n- spiky" in body
    assert "def snake_case_name():\n    return 42" in body
    for noise in ("secret_tracker", "color: red", "Home", "About", "Copyright"):
        assert noise not in text
    assert result.details["status"] == 200


def test_raw_html_is_passed_through(server: str, tmp_path: Path) -> None:
    text = text_of(fetch(f"{server}/page.html", tmp_path, raw=True))
    assert text.split("\n---\n", 1)[1] == PAGE.decode()


def test_json_is_pretty_printed(server: str, tmp_path: Path) -> None:
    text = text_of(fetch(f"{server}/data.json", tmp_path))
    assert text == (
        f"URL: {server}/data.json\nContent-Type: application/json\n---\n"
        + json.dumps({"name": "café", "tags": ["a", "b"], "n": 1}, indent=2, ensure_ascii=False)
    )
    raw = text_of(fetch(f"{server}/data.json", tmp_path, raw=True))
    assert raw.endswith('---\n{"name":"café","tags":["a","b"],"n":1}')


def test_text_is_passed_through_and_charset_honoured(server: str, tmp_path: Path) -> None:
    text = text_of(fetch(f"{server}/notes.txt", tmp_path))
    assert text.endswith("Content-Type: text/plain\n---\nplain  text\n\tindented\n")
    assert text_of(fetch(f"{server}/latin1", tmp_path)).endswith("---\nnaïve")


def test_redirects_are_followed_and_reported(server: str, tmp_path: Path) -> None:
    result = fetch(f"{server}/r1", tmp_path)
    assert not result.is_error
    lines = text_of(result).split("\n")
    assert lines[:2] == [
        f"URL: {server}/page.html",
        f"Redirected: {server}/r1 -> {server}/r2 -> {server}/page.html",
    ]
    assert "# Pineapples" in text_of(result)
    assert result.details["redirects"] == [f"{server}/r1", f"{server}/r2", f"{server}/page.html"]


def test_five_redirects_are_fine_six_are_not(server: str, tmp_path: Path) -> None:
    five = fetch(f"{server}/hops5", tmp_path)
    assert not five.is_error
    assert text_of(five).endswith("---\narrived")
    assert len(five.details["redirects"]) == 6
    six = fetch(f"{server}/hops6", tmp_path)
    assert six.is_error
    assert text_of(six) == f"Fetching {server}/hops6 failed: more than 5 redirects."
    # /loop0 -> /loop1 -> ... : a chain that never ends
    result = fetch(f"{server}/loop0", tmp_path)
    assert result.is_error
    assert text_of(result) == f"Fetching {server}/loop0 failed: more than 5 redirects."


def test_redirect_to_another_scheme_is_an_error(server: str, tmp_path: Path) -> None:
    result = fetch(f"{server}/to-ftp", tmp_path)
    assert result.is_error
    assert "a redirect led to an unsupported URL" in text_of(result)


def test_slow_response_times_out(server: str, tmp_path: Path) -> None:
    result = fetch(f"{server}/slow", tmp_path, timeout=1)
    assert result.is_error
    assert text_of(result).startswith(f"Fetching {server}/slow timed out after 1 s.")


def test_abort_stops_the_fetch(server: str, tmp_path: Path) -> None:
    signal = AbortSignal()
    threading.Timer(0.2, signal.abort).start()
    result = fetch(f"{server}/slow", tmp_path, signal=signal, timeout=30)
    assert result.is_error
    assert text_of(result) == f"Fetching {server}/slow was aborted."


def test_long_output_is_cut_and_spilled_to_an_artifact(server: str, tmp_path: Path) -> None:
    result = fetch(f"{server}/long.txt", tmp_path)
    assert not result.is_error
    text = text_of(result)
    artifact_id = result.details["artifactId"]
    assert text.endswith(
        "line 2000\n\n[Output truncated: showing lines 1-2000 of 3001 (2000 lines / 50 KB "
        f"limit). The full text is saved: read path=artifact://{artifact_id} offset=2001 "
        "to continue.]"
    )
    assert "line 2001" not in text
    saved = ArtifactStore(tmp_path / "artifacts").path(f"artifact://{artifact_id}")
    assert saved.read_bytes() == LONG_TEXT
    assert result.details["truncated"] is True


def test_huge_body_stops_at_5_mb_and_output_at_50_kb(server: str, tmp_path: Path) -> None:
    result = fetch(f"{server}/huge.txt", tmp_path)
    assert not result.is_error
    text = text_of(result)
    assert len(text.encode()) <= 50 * 1024
    assert "Notes: the body is larger than 5 MB; only its start was read." in text
    assert result.details["bytes"] == 5 * 1024 * 1024
    saved = ArtifactStore(tmp_path / "artifacts").path(result.details["artifactId"])
    assert saved.stat().st_size == 5 * 1024 * 1024


def test_404_is_an_error_with_the_status(server: str, tmp_path: Path) -> None:
    result = fetch(f"{server}/nope", tmp_path)
    assert result.is_error
    assert text_of(result) == (
        f"HTTP 404 Not Found for {server}/nope\nURL: {server}/nope\n"
        "Content-Type: text/html\n---\n# Not here"
    )
    assert result.details["status"] == 404


def test_unsupported_content_type_is_named(server: str, tmp_path: Path) -> None:
    result = fetch(f"{server}/logo.png", tmp_path)
    assert result.is_error
    assert text_of(result).startswith(
        f"Cannot show {server}/logo.png: its content type is image/png"
    )


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("ftp://example.com/x", "only http:// and https:// URLs are supported, not ftp://"),
        ("file:///etc/passwd", "only http:// and https:// URLs are supported, not file://"),
        ("example.com/page", "give a full URL starting with https:// or http://"),
        ("https:///nohost", "the URL has no host"),
    ],
)
def test_non_http_urls_are_refused(url: str, expected: str, tmp_path: Path) -> None:
    result = fetch(url, tmp_path)
    assert result.is_error
    assert text_of(result) == f"Cannot fetch {url}: {expected}" + (
        ". Use the read tool for local files." if "supported" in expected else "."
    )


def test_connection_refused_is_an_error(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = fetch(f"http://127.0.0.1:{port}/", tmp_path, timeout=5)
    assert result.is_error
    assert text_of(result).startswith(f"Fetching http://127.0.0.1:{port}/ failed:")


def test_schema() -> None:
    spec = FetchTool().spec()
    assert spec["name"] == "fetch"
    assert spec["parameters"]["required"] == ["url"]
    assert set(spec["parameters"]["properties"]) == {"url", "timeout", "raw"}
    assert FetchTool.exclusive is False


def test_end_to_end_through_the_entry_point(omp_harness, server: str) -> None:
    session = omp_harness.session(
        session_path=str(omp_harness.root / "s.jsonl"),
        script=[
            {
                "tool_calls": [
                    {"name": "fetch", "arguments": {"url": f"{server}/data.json"}},
                    {"name": "fetch", "arguments": {"url": f"{server}/long.txt"}},
                    {"name": "fetch", "arguments": {"url": "gopher://old.example/"}},
                ]
            },
            {"text": "done"},
        ],
    )
    events = omp_harness.run(session, "go")
    ends = {e.tool_call_id: e for e in events.of("tool_execution_end")}
    data, long, gopher = (ends[k] for k in sorted(ends))
    assert not data.is_error
    assert '---\n{\n  "name": "café",\n  "tags": [\n    "a",' in data.result["content"][0].text
    assert not long.is_error
    artifact = session.artifacts.path(long.result["details"]["artifactId"])
    assert artifact.read_bytes() == LONG_TEXT
    assert artifact.is_relative_to(omp_harness.root)
    assert gopher.is_error
    assert "not gopher://" in gopher.result["content"][0].text
    assert events.final_text() == "done"


def test_images_and_pdfs_are_shown_as_read_shows_them(omp_harness, server: str) -> None:
    # The read plugin's presenter (session state) shows them; fetch adds its header.
    session = omp_harness.session(
        session_path=str(omp_harness.root / "s.jsonl"),
        script=[
            {
                "tool_calls": [
                    {"name": "fetch", "arguments": {"url": f"{server}/doc.pdf"}},
                    {"name": "fetch", "arguments": {"url": f"{server}/logo.png"}},
                ]
            },
            {"text": "done"},
        ],
    )
    events = omp_harness.run(session, "go")
    ends = {e.tool_call_id: e for e in events.of("tool_execution_end")}
    pdf, logo = (ends[k] for k in sorted(ends))
    assert not pdf.is_error
    assert pdf.result["content"][0].text == (
        f"URL: {server}/doc.pdf\nContent-Type: application/pdf\n---\n"
        "--- Page 1 of 2 ---\nFirst page\n\n--- Page 2 of 2 ---\nSecond page"
    )
    assert pdf.result["details"]["totalPages"] == 2
    assert not logo.is_error
    line, image = logo.result["content"]
    assert line.text == (
        f"URL: {server}/logo.png\nContent-Type: image/png\n---\n"
        f"Read image {server}/logo.png [image/png, 40 B]"
    )
    assert base64.b64decode(image.data) == b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
