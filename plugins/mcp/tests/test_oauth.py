"""OAuth for a remote server: ``omp mcp login`` in the browser ($BROWSER here visits the
URL), tokens stored 0600 and never shown, then used by ``omp mcp test`` and sessions."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_helpers import DEMO, free_port, run_omp, wait_for_port

VISIT = "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=30).read()"


@pytest.fixture
def oauth_server() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(DEMO.with_name("oauth_server.py")), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_port(port)
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    proc.wait(10)


def test_login_stores_tokens_privately_and_they_are_used(tmp_path: Path, oauth_server: str) -> None:
    run_omp(tmp_path, "mcp", "add", "secure", oauth_server)
    before = run_omp(tmp_path, "mcp", "test", "secure")
    assert before.returncode == 1
    assert "omp mcp login secure" in before.stdout

    visitor = tmp_path / "visit.py"
    visitor.write_text(VISIT)
    login = run_omp(
        tmp_path, "mcp", "login", "secure", env={"BROWSER": f"{sys.executable} {visitor} %s"}
    )
    assert login.returncode == 0, login.stderr
    store = tmp_path / "agent" / "mcp-auth.json"
    assert store.stat().st_mode & 0o777 == 0o600
    token = json.loads(store.read_text())["secure"]["tokens"]["access_token"]
    assert token not in login.stdout + login.stderr

    after = run_omp(tmp_path, "mcp", "test", "secure")
    assert after.returncode == 0, after.stdout + after.stderr
    assert "mcp__secure__shout" in after.stdout
    assert token not in after.stdout + after.stderr
