"""What the plugin listing says is what runs (issue 8, item 19): a plugin recorded as
failed has no hook left in the manager, however far its registration got, and a plugin
recorded as loaded keeps every hook it is listed with."""

from __future__ import annotations

import types

import omp
import pytest
from omp.plugin.manager import build_plugin_host


def _host(tmp_path, paths=(), extra=()):
    (tmp_path / "work").mkdir(exist_ok=True)
    return build_plugin_host(
        cwd=tmp_path / "work",
        agent_dir=tmp_path / "agent",
        extension_paths=list(paths),
        entry_points=False,
        extra_plugins=list(extra),
        strict=False,
    )


def _running(host) -> dict[str, list[str]]:
    """Every plugin name with the hooks the manager would call for it."""
    found: dict[str, list[str]] = {}
    for name, caller in vars(host.pm.hook).items():
        if name.startswith("_"):
            continue
        for impl in caller.get_hookimpls():
            found.setdefault(impl.plugin_name, []).append(name)
    return {plugin: sorted(hooks) for plugin, hooks in found.items()}


def _listed(host) -> dict[str, tuple[str, list[str]]]:
    return {r.name: (r.status, sorted(r.hooks)) for r in host.records}


@pytest.mark.parametrize(
    "source",
    [
        # omp_agent_start registers before omp_tool_call fails pluggy's validation
        "@omp.hookimpl\ndef omp_agent_start():\n    pass\n\n"
        "@omp.hookimpl\ndef omp_tool_call(event, nonsense):\n    pass\n",
        # a misspelt hook is found after the good one is registered
        "@omp.hookimpl\ndef omp_agent_start():\n    pass\n\n"
        "@omp.hookimpl\ndef omp_tool_cal(event):\n    pass\n",
        # a hook function without the marker
        "@omp.hookimpl\ndef omp_agent_start():\n    pass\n\ndef omp_agent_end():\n    pass\n",
    ],
)
def test_a_plugin_failing_after_its_first_hooks_registered_runs_none(tmp_path, source):
    path = tmp_path / "half.py"
    path.write_text("import omp\n\n" + source, encoding="utf-8")

    host = _host(tmp_path, [path])

    assert _listed(host)["ext:half"] == ("failed", [])
    assert "ext:half" not in _running(host)


def test_the_same_plugin_object_registered_twice_keeps_the_first(tmp_path):
    plugin = types.ModuleType("twice")

    @omp.hookimpl
    def omp_agent_start():
        pass

    plugin.omp_agent_start = omp_agent_start

    host = _host(tmp_path, extra=[plugin, plugin])

    listed = _listed(host)
    assert listed["twice"] == ("loaded", ["omp_agent_start"])
    assert listed["twice-2"][0] == "failed"
    assert _running(host) == {"twice": ["omp_agent_start"]}
    for record in host.records:
        status, hooks = listed[record.name]
        assert _running(host).get(record.name, []) == (hooks if status == "loaded" else [])
