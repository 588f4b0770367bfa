"""A plugin declares the kernel versions it supports (its distribution's Requires-Dist
on omp-kernel); one built for another kernel is reported, not loaded."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import omp
import pytest
from omp.base.versions import satisfies
from omp.plugin.manager import build_plugin_host

PLUGIN = textwrap.dedent(
    """
    import omp

    LOADED = []

    @omp.hookimpl
    def omp_session_start(event):
        pass

    LOADED.append(True)
    """
)


def _fake_distribution(site: Path, name: str, requires: list[str]) -> None:
    module = name.replace("-", "_")
    (site / f"{module}.py").write_text(PLUGIN, encoding="utf-8")
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    lines = ["Metadata-Version: 2.1", f"Name: {name}", "Version: 1.0"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    (info / "METADATA").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        f"[omp.plugins]\n{module} = {module}\n", encoding="utf-8"
    )


@pytest.fixture
def site(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    yield site
    for name in [m for m in sys.modules if m.startswith("kr_")]:
        del sys.modules[name]


def _record(site: Path, tmp_path: Path, name: str):
    host = build_plugin_host(cwd=tmp_path, agent_dir=tmp_path / "agent", discover=False)
    return next(r for r in host.records if r.name == name)


def test_a_plugin_for_another_major_kernel_is_reported_not_loaded(site, tmp_path):
    _fake_distribution(site, "kr-future", ["omp-kernel>=2,<3"])
    record = _record(site, tmp_path, "kr_future")
    assert record.status == "failed"
    assert "omp-kernel>=2,<3" in record.error and omp.__version__ in record.error
    assert "kr_future" not in sys.modules


def test_a_plugin_whose_range_includes_this_kernel_loads(site, tmp_path):
    _fake_distribution(site, "kr-ranged", ["omp-kernel (>=0.1,<1)", "pluggy>=1"])
    record = _record(site, tmp_path, "kr_ranged")
    assert record.status == "loaded", record.error
    assert record.hooks == ["omp_session_start"]


def test_a_kernel_requirement_behind_an_extra_does_not_count(site, tmp_path):
    _fake_distribution(site, "kr-extra", ['omp-kernel>=9; extra == "dev"'])
    assert _record(site, tmp_path, "kr_extra").status == "loaded"


@pytest.mark.parametrize(
    ("version", "spec", "expected"),
    [
        ("0.1.0", "==0.1.0", True),
        ("0.1.0", ">=0.1,<1", True),
        ("0.1.0", ">=2,<3", False),
        ("0.1.0", "~=0.1", True),
        ("1.0.0", "~=0.1", False),
        ("0.1.5", "==0.1.*", True),
        ("0.2.0", "==0.1.*", False),
        ("0.1.0", "!=0.1.0", False),
        ("0.1.0", ">0.1", False),
        ("0.1.0", "<=0.1", True),
        ("0.1.0rc1", ">=0.1", True),
        ("0.1.0", "", True),
    ],
)
def test_version_specifiers(version, spec, expected):
    assert satisfies(version, spec) is expected
