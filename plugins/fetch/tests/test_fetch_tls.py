"""The fetch tool makes no verifying TLS context for an http:// page and shares the
process's one for https:// (each used to cost ~20 ms of CA-bundle loading per call)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from omp import AbortSignal, ArtifactStore
from omp_tool_fetch.tool import FetchParams, FetchTool


def fetch(url, tmp_path):
    ctx = SimpleNamespace(cwd=str(tmp_path), artifacts=ArtifactStore(tmp_path / "artifacts"))
    params = FetchParams(url=url)
    return asyncio.run(FetchTool().execute("c1", params, AbortSignal(), None, ctx))


def test_fetching_pages_makes_at_most_one_tls_context(replay_server, tmp_path, verifying_contexts):
    for _ in range(2):
        replay_server.add(b"hello", headers={"content-type": "text/plain"})
        result = fetch(f"{replay_server.url}/page.txt", tmp_path)
        assert not result.is_error and result.content[0].text.endswith("hello")
    assert verifying_contexts == []
    for _ in range(2):
        fetch("https://127.0.0.1:9/page.txt", tmp_path)  # refused: only the context matters
    assert len(verifying_contexts) == 1
