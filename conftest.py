"""Fixtures shared by every test folder (tests/, each plugin's plugins/<name>/tests and
natives/tests), and the hook-coverage check of the whole suite.

With ``OMP_HOOK_COVERAGE=1`` (``scripts/test`` sets it when it runs the whole suite),
every hook call of every runtime the tests build, in process and in the ``omp``
subprocesses of the end-to-end tests, is logged through pluggy's hook-call monitoring
(``OMP_TRACE_PLUGINS=<file>``); at the end the suite fails if a hook spec was never
called by anything, so a spec without a caller cannot land.
"""

from __future__ import annotations

import json
import os
import re
import ssl
import tempfile
from pathlib import Path

import pytest
from replay import PROXY_SECRET, ReplayServer

COVERAGE_LOG = "OMP_HOOK_COVERAGE_LOG"

NOT_YET_CALLED = {}
"""Hook specs whose caller an open issue owns; each leaves this list when it lands."""


@pytest.fixture
def replay_server():
    """A loopback HTTP server replaying queued responses (see tests/replay.py)."""
    server = ReplayServer()
    yield server
    server.close()


@pytest.fixture
def proxy(omp_harness, replay_server, monkeypatch):
    """A models.json provider ``proxy/coder`` (OpenAI Chat Completions) served by the
    loopback replay server; its key is ``replay.PROXY_SECRET``."""
    provider = {
        "baseUrl": f"{replay_server.url}/v1",
        "api": "openai-completions",
        "apiKey": "PROXY_KEY",
        "models": [{"id": "coder"}],
    }
    (omp_harness.agent_dir / "models.json").write_text(
        json.dumps({"providers": {"proxy": provider}})
    )
    monkeypatch.setenv("PROXY_KEY", PROXY_SECRET)
    return replay_server


@pytest.fixture
def verifying_contexts(monkeypatch):
    """Every verifying TLS context made from now on (each loads the CA bundle, ~20 ms),
    with the shared one forgotten and no proxy in the environment."""
    made: list[ssl.SSLContext] = []
    real = ssl.create_default_context

    def counting(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(ssl, "create_default_context", counting)
    monkeypatch.setattr("omp_llm.http._TLS", None)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    return made


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("OMP_HOOK_COVERAGE") != "1" or hasattr(config, "workerinput"):
        return
    handle, path = tempfile.mkstemp(prefix="omp-hook-coverage-", suffix=".log")
    os.close(handle)
    os.environ[COVERAGE_LOG] = path
    os.environ["OMP_TRACE_PLUGINS"] = path


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = os.environ.get(COVERAGE_LOG)
    if not path or exitstatus != 0:
        return
    log = Path(path).read_text(encoding="utf-8", errors="replace")
    # A test calling the dispatcher by hook name is no caller: only sessions count.
    called = set(re.findall(r"^\[omp trace\] (omp_\w+) <- (?!.*\(outside a session\)$)", log, re.M))
    Path(path).unlink(missing_ok=True)
    from omp.plugin import specs as hookspecs

    specs = {name for name in vars(hookspecs) if name.startswith("omp_")}
    missing = sorted(specs - called - set(NOT_YET_CALLED))
    stale = sorted(set(NOT_YET_CALLED) & called)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    for name in missing:
        reporter.write_line(f"hook coverage: no test made anything call {name}", red=True)
    for name in stale:
        reporter.write_line(f"hook coverage: {name} is called now; drop it from NOT_YET_CALLED")
    if missing or stale:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    else:
        reporter.write_line(
            f"hook coverage: all {len(specs - set(NOT_YET_CALLED))} hook specs called"
        )
