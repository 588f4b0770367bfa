"""Fixtures for the MCP plugin's tests: real servers (the demo server on the official
SDK, over stdio or streamable HTTP on loopback) configured in the harness's agent dir."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from mcp_helpers import DEMO, free_port, wait_for_port


@pytest.fixture
def http_server() -> Iterator[str]:
    """The demo server over streamable HTTP on a loopback port; its URL."""
    yield from _serve("http", "/mcp")


@pytest.fixture
def sse_server() -> Iterator[str]:
    """The demo server over SSE on a loopback port; its URL."""
    yield from _serve("sse", "/sse")


def _serve(transport: str, path: str) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(DEMO), transport, str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_port(port)
    yield f"http://127.0.0.1:{port}{path}"
    proc.terminate()
    proc.wait(10)
