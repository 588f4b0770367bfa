"""The entry-point index (issue 10): a warm start finds the plugins without
importlib.metadata, and whatever pip or ``omp plugin add`` changes on sys.path is seen
on the very next start."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from omp.plugin.manager import build_plugin_host

PLUGIN = textwrap.dedent(
    """
    import omp

    @omp.hookimpl
    def omp_session_start(event):
        pass
    """
)


def _install(site: Path, name: str, version: str = "1.0", entry: str | None = None) -> Path:
    """A distribution as pip leaves it: the module and its dist-info."""
    module = name.replace("-", "_")
    (site / f"{module}.py").write_text(PLUGIN, encoding="utf-8")
    info = site / f"{module}-{version}.dist-info"
    info.mkdir()
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    (info / "METADATA").write_text(meta, encoding="utf-8")
    (info / "entry_points.txt").write_text(
        f"[omp.plugins]\n{entry or module} = {module}\n", encoding="utf-8"
    )
    return info


def _age(*paths: Path) -> None:
    """Old timestamps: an index is only written for a sys.path not changing right now."""
    for path in paths:
        for child in path.iterdir() if path.is_dir() else ():
            os.utime(child, (1_000_000_000, 1_000_000_000))
        os.utime(path, (1_000_000_000, 1_000_000_000))


@pytest.fixture
def site(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    yield site
    for name in [m for m in sys.modules if m.startswith("pi_")]:
        del sys.modules[name]


def _loaded(tmp_path: Path) -> dict[str, str]:
    host = build_plugin_host(cwd=tmp_path, agent_dir=tmp_path / "agent", discover=False)
    return {r.name: f"{r.status} {r.version}" for r in host.records if r.name.startswith("pi_")}


def _index_files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "agent").rglob("plugin-index-*.json"))


def test_the_index_is_written_and_a_new_distribution_is_seen_at_once(site, tmp_path):
    info = _install(site, "pi-first")
    _age(info, site)
    assert _loaded(tmp_path) == {"pi_first": "loaded 1.0"}
    [index] = _index_files(tmp_path)
    assert "pi_first" in index.read_text(encoding="utf-8")

    _install(site, "pi-second")  # installed after the index was written
    assert _loaded(tmp_path) == {"pi_first": "loaded 1.0", "pi_second": "loaded 1.0"}


def test_an_upgrade_and_an_uninstall_are_seen_at_once(site, tmp_path):
    import shutil

    old = _install(site, "pi-up")
    _age(old, site)
    assert _loaded(tmp_path) == {"pi_up": "loaded 1.0"}
    shutil.rmtree(old)
    _install(site, "pi-up", "2.0")
    assert _loaded(tmp_path) == {"pi_up": "loaded 2.0"}
    shutil.rmtree(site / "pi_up-2.0.dist-info")
    assert _loaded(tmp_path) == {}


def test_entry_points_rewritten_in_place_are_seen(site, tmp_path):
    """An egg-info (``setup.py develop``) rewrites entry_points.txt where it is."""
    info = _install(site, "pi-egg")
    _age(info, site)
    assert _loaded(tmp_path) == {"pi_egg": "loaded 1.0"}
    (info / "entry_points.txt").write_text("[omp.plugins]\npi_renamed = pi_egg\n")
    assert list(_loaded(tmp_path)) == ["pi_renamed"]


def test_a_damaged_index_is_rebuilt(site, tmp_path):
    info = _install(site, "pi-damaged")
    _age(info, site)
    _loaded(tmp_path)
    [index] = _index_files(tmp_path)
    index.write_text("{not json", encoding="utf-8")
    assert _loaded(tmp_path) == {"pi_damaged": "loaded 1.0"}
    json.loads(index.read_text(encoding="utf-8"))


PROBE = """
import sys
from pathlib import Path
from omp.plugin.manager import build_plugin_host
host = build_plugin_host(cwd=Path.cwd(), agent_dir=Path(sys.argv[1]), discover=False)
import pydantic
class Probe(pydantic.BaseModel):
    x: int
Probe(x=1)
loaded = sum(r.status == "loaded" for r in host.records)
print(loaded, "importlib.metadata" in sys.modules, "email" in sys.modules)
"""


def test_a_warm_start_does_not_import_importlib_metadata(tmp_path):
    """Neither for omp's plugins nor for pydantic's (pydantic looks for its plugins
    when it builds its first validator)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    agent = tmp_path / "agent"
    work = tmp_path / "work"  # on sys.path (python -c): old, as a project usually is
    work.mkdir()
    _age(work)

    def start() -> list[str]:
        args = [sys.executable, "-c", PROBE, str(agent)]
        run = subprocess.run(args, env=env, cwd=work, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        return run.stdout.split()

    cold = start()
    assert _index_files(tmp_path)
    warm = start()
    assert int(cold[0]) > 5 and warm[0] == cold[0]
    assert warm[1:] == ["False", "False"]


PYDANTIC_PLUGIN = textwrap.dedent(
    """
    print("pydantic plugin loaded")

    class Plugin:
        def new_schema_validator(self, *args, **kwargs):
            return None, None, None

    plugin = Plugin()
    """
)


def test_a_pydantic_plugin_is_still_loaded_by_pydantic(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "pi_pyd.py").write_text(PYDANTIC_PLUGIN, encoding="utf-8")
    info = site / "pi_pyd-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pi-pyd\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pydantic]\npi_pyd = pi_pyd:plugin\n")
    work = tmp_path / "work"
    work.mkdir()
    _age(info, site, work)
    env = {**os.environ, "PYTHONPATH": str(site)}
    args = [sys.executable, "-c", PROBE, str(tmp_path / "agent")]
    for _ in range(2):  # the second start reads the index
        run = subprocess.run(args, env=env, cwd=work, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert run.stdout.startswith("pydantic plugin loaded\n")
    assert _index_files(tmp_path)
