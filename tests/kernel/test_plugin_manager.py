"""Loading plugins: failures are reported by name and the rest loads; strict mode."""

from __future__ import annotations

import pytest
from omp.base.errors import OmpError
from omp.plugin.manager import build_plugin_host


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def dirs(tmp_path):
    cwd, agent = tmp_path / "work", tmp_path / "agent"
    cwd.mkdir()
    agent.mkdir()
    return cwd, agent


def host_for(dirs, paths, **kwargs):
    cwd, agent = dirs
    return build_plugin_host(
        cwd=cwd, agent_dir=agent, extension_paths=paths, entry_points=False, strict=False, **kwargs
    )


def test_a_broken_extension_is_reported_and_the_others_load(dirs, tmp_path):
    good = write(
        tmp_path / "good.py", "import omp\n\n@omp.hookimpl\ndef omp_agent_start():\n    pass\n"
    )
    bad = write(tmp_path / "bad.py", "import not_a_real_package_xyz\n")
    host = host_for(dirs, [bad, good])
    status = {r.name: (r.status, r.error) for r in host.records}
    assert status["ext:good"] == ("loaded", None)
    assert status["ext:bad"][0] == "failed"
    assert "No module named 'not_a_real_package_xyz'" in status["ext:bad"][1]
    assert "install it, or disable the plugin" in status["ext:bad"][1]
    assert [r.hooks for r in host.records if r.name == "ext:good"] == [["omp_agent_start"]]


def test_strict_mode_makes_a_broken_plugin_fatal(dirs, tmp_path):
    bad = write(tmp_path / "bad.py", "raise RuntimeError('broken at import')\n")
    cwd, agent = dirs
    with pytest.raises(OmpError, match=r"ext:bad .*failed to load: RuntimeError: broken at"):
        build_plugin_host(
            cwd=cwd, agent_dir=agent, extension_paths=[bad], entry_points=False, strict=True
        )


def test_misspelt_and_unmarked_hooks_are_caught(dirs, tmp_path):
    typo = write(
        tmp_path / "typo.py", "import omp\n\n@omp.hookimpl\ndef omp_tool_cal(event):\n    pass\n"
    )
    unmarked = write(tmp_path / "unmarked.py", "def omp_tool_call(event):\n    pass\n")
    host = host_for(dirs, [typo, unmarked])
    errors = {r.name: r.error for r in host.records}
    assert "unknown hook(s) omp_tool_cal" in errors["ext:typo"]
    assert "omp_tool_call lack(s) the @omp.hookimpl marker" in errors["ext:unmarked"]
    assert not host.pm.get_plugins()


def test_a_hook_with_an_argument_the_spec_lacks_is_rejected(dirs, tmp_path):
    wrong = write(
        tmp_path / "wrong.py",
        "import omp\n\n@omp.hookimpl\ndef omp_tool_call(event, session):\n    pass\n",
    )
    (record,) = host_for(dirs, [wrong]).records
    assert record.status == "failed" and "session" in record.error


def test_discovered_extensions_disabled_plugins_and_no_discovery(dirs):
    cwd, agent = dirs
    (cwd / ".omp" / "extensions").mkdir(parents=True)
    (agent / "extensions").mkdir()
    write(cwd / ".omp" / "extensions" / "project.py", "X = 1\n")
    write(agent / "extensions" / "user.py", "X = 2\n")
    write(agent / "extensions" / "_private.py", "raise SystemExit('never imported')\n")
    host = host_for(dirs, [], disabled={"user"})
    assert {r.name: r.status for r in host.records} == {
        "ext:project": "loaded",
        "ext:user": "disabled",
    }
    assert host_for(dirs, [], discover=False).records == []


def test_a_misspelt_hook_names_the_closest_real_one(dirs, tmp_path):
    typo = write(
        tmp_path / "typo2.py",
        "import omp\n\n@omp.hookimpl\ndef omp_tool_reslt(event):\n    pass\n",
    )
    [record] = host_for(dirs, [typo]).records
    assert record.status == "failed"
    assert "omp_tool_reslt (did you mean omp_tool_result?)" in record.error


def test_an_optional_hook_a_newer_kernel_has_is_accepted(dirs, tmp_path):
    future = write(
        tmp_path / "future.py",
        "import omp\n\n@omp.hookimpl(optionalhook=True)\ndef omp_from_the_future(event):\n"
        "    pass\n\n@omp.hookimpl\ndef omp_agent_start():\n    pass\n",
    )
    [record] = host_for(dirs, [future]).records
    assert record.status == "loaded", record.error
