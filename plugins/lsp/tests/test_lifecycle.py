"""The servers' lifecycle and configuration, on real basedpyright: tracked for SIGTERM,
stopped when idle, and project config only from a trusted project."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import omp
from lsp_helpers import group_alive
from omp.testing import settings_with
from omp_lsp.config import available_servers
from omp_lsp.manager import LspManager


def _manager(tmp_path: Path, **lsp: Any) -> LspManager:
    return LspManager(settings_with({"lsp": lsp}), tmp_path, False, tmp_path / "agent")


def test_server_is_tracked_reused_then_stopped_when_idle(tmp_path: Path) -> None:
    source = tmp_path / "a.py"
    source.write_text("value: int = 'text'\n")

    async def scenario() -> tuple[int, bool, list[dict[str, Any]], int]:
        manager = _manager(tmp_path, idleTimeoutMs=300)
        client = await manager.client_for(source)
        assert client is not None and client.pid is not None
        tracked = client.pid in omp.running_process_groups()  # killed on omp's SIGTERM
        seen = client.publications(source)
        await client.sync(source)
        found = await client.wait_diagnostics(source, seen, 60)
        assert (await manager.client_for(source)) is client  # reused
        for _ in range(600):  # the idle timer ends it
            if not group_alive(client.pid):
                break
            await asyncio.sleep(0.05)
        alive_after_idle = group_alive(client.pid)
        await manager.close()
        assert client.pid not in omp.running_process_groups()
        return client.pid, (tracked, alive_after_idle), found or [], len(manager.running())

    pid, ok, found, running = asyncio.run(scenario())
    assert ok == (True, False)  # tracked while up, then gone once idle
    assert any("is not assignable" in d["message"] and d["severity"] == 1 for d in found)
    assert running == 0
    assert not group_alive(pid)


def test_project_lsp_json_only_when_trusted(tmp_path: Path) -> None:
    (tmp_path / ".omp").mkdir()
    (tmp_path / ".omp" / "lsp.json").write_text(
        json.dumps({"servers": {"mine": {"command": "true", "fileTypes": ["zz"]}}})
    )
    settings = settings_with({})
    untrusted = [c.name for c in available_servers(settings, tmp_path, False, tmp_path)]
    trusted = {c.name: c for c in available_servers(settings, tmp_path, True, tmp_path)}
    assert "mine" not in untrusted
    assert trusted["mine"].extensions == (".zz",)


def test_setting_switches_a_server_off(tmp_path: Path) -> None:
    settings = settings_with({"lsp": {"servers": {"basedpyright": []}}})
    names = [c.name for c in available_servers(settings, tmp_path, False, tmp_path)]
    assert "basedpyright" not in names
