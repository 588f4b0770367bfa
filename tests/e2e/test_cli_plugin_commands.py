"""``omp plugin ...`` without pip: list, info, enable/disable, remove refusals, doctor,
new, sync and the input it refuses (issue 11). Installing for real is in
plugins/plugin-manager/tests/test_add_for_real.py."""

from __future__ import annotations

import json
import textwrap
import tomllib

import pytest

MISSPELT = textwrap.dedent(
    """
    import omp

    @omp.hookimpl
    def omp_tool_cal(event):
        return None
    """
)


def _settings(path):
    return json.loads(path.read_text(encoding="utf-8"))


def test_list_names_every_plugin_with_its_source_state_and_contributions(omp_cli):
    proc = omp_cli("plugin", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    plugins = {p["name"]: p for p in json.loads(proc.stdout)}
    read = plugins["read"]
    assert read["source"] == "built-in" and read["distribution"] == "omp-tool-read"
    assert read["enabled"] is True and read["contributes"] == {"tools": ["read"]}
    assert plugins["plugin_manager"]["contributes"]["subcommands"] == ["plugin"]
    assert "omp_session_start" in plugins["scripted"]["hooks"]
    text = omp_cli("plugin", "list")
    assert text.returncode == 0 and "read " in text.stdout and "tools: read" in text.stdout


def test_info_shows_one_plugin_and_unknown_names_get_the_closest(omp_cli):
    proc = omp_cli("plugin", "info", "read")
    assert proc.returncode == 0, proc.stderr
    assert "built-in (omp-tool-read)" in proc.stdout and "omp-kernel==" in proc.stdout
    line = omp_cli.assert_one_line_error(omp_cli("plugin", "info", "reed"))
    assert "no plugin is called 'reed'; did you mean read?" in line


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("x; rm -rf /", "shell metacharacters"),
        ("$(reboot)", "shell metacharacters"),
        ("--index-url=http://127.0.0.1:9/simple", "looks like an option"),
        ("not a name!", "shell metacharacters"),
        ("./no-such-dir", "no such file or directory"),
    ],
)
def test_add_refuses_bad_specs_in_one_line_before_running_anything(omp_cli, spec, says):
    line = omp_cli.assert_one_line_error(omp_cli("plugin", "add", spec))
    assert says in line


def test_removing_a_built_in_is_refused_and_disable_offered(omp_cli):
    line = omp_cli.assert_one_line_error(omp_cli("plugin", "remove", "read"))
    assert "built into omp" in line and "omp plugin disable read" in line
    line = omp_cli.assert_one_line_error(omp_cli("plugin", "remove", "raed"))
    assert "did you mean read?" in line


def test_disable_and_enable_write_disabled_plugins(omp_cli):
    user = omp_cli.agent_dir / "settings.json"
    assert omp_cli("plugin", "disable", "read").returncode == 0
    assert _settings(user)["disabledPlugins"] == ["read"]
    listed = {p["name"]: p for p in json.loads(omp_cli("plugin", "list", "--json").stdout)}
    assert listed["read"]["enabled"] is False
    assert omp_cli("plugin", "enable", "read").returncode == 0
    assert _settings(user)["disabledPlugins"] == []

    project = omp_cli.cwd / ".omp" / "settings.json"
    assert omp_cli("plugin", "disable", "fetch", "--project").returncode == 0
    assert _settings(project)["disabledPlugins"] == ["fetch"]
    line = omp_cli.assert_one_line_error(omp_cli("plugin", "disable", "plugin_manager"))
    assert "would remove `omp plugin` itself" in line


def test_doctor_is_clean_then_names_a_misspelt_hook_with_its_fix(omp_cli):
    clean = omp_cli("plugin", "doctor")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "no problems found" in clean.stdout
    omp_cli.extension(MISSPELT, "typo.py", omp_cli.agent_dir / "extensions")
    proc = omp_cli("plugin", "doctor")
    assert proc.returncode == 1
    assert "ext:typo: does not load" in proc.stdout
    assert "omp_tool_cal (did you mean omp_tool_call?)" in proc.stdout
    assert "fix: " in proc.stdout and "Traceback" not in proc.stderr


def test_doctor_says_what_an_untrusted_directory_would_load(omp_cli):
    omp_cli.extension("import omp\n", "local.py", omp_cli.cwd / ".omp" / "extensions")
    (omp_cli.cwd / ".omp" / "settings.json").write_text(
        json.dumps({"plugins": ["omp-guard>=1"], "disabledPlugins": ["read"]})
    )
    proc = omp_cli("plugin", "doctor")
    assert "not trusted; once trusted (omp --trust) it would load:" in proc.stdout
    assert "extension file .omp/extensions/local.py" in proc.stdout
    assert "plugin omp-guard>=1" in proc.stdout and "disabledPlugins read" in proc.stdout
    sync = omp_cli.assert_one_line_error(omp_cli("plugin", "sync"))
    assert "not trusted" in sync and "omp-guard>=1" in sync


def test_new_renders_a_ready_project(omp_cli):
    proc = omp_cli("plugin", "new", "omp-guard", "--dir", "plugins")
    assert proc.returncode == 0, proc.stderr
    root = omp_cli.cwd / "plugins" / "omp-guard"
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    assert project["name"] == "omp-guard"
    assert project["dependencies"] == ["omp-kernel>=0.1,<1"]
    assert project["entry-points"]["omp.plugins"] == {"guard": "omp_guard.plugin"}
    plugin = (root / "src" / "omp_guard" / "plugin.py").read_text()
    assert 'TOOL = "guard_hello"' in plugin and 'FLAG = "guard-greeting"' in plugin
    assert "omp_harness" in (root / "tests" / "test_plugin.py").read_text()
    assert (root / "README.md").is_file() and not (root / "examples").exists()
    assert "template" not in plugin.lower()
    again = omp_cli.assert_one_line_error(omp_cli("plugin", "new", "omp-guard", "--dir", "plugins"))
    assert "already exists" in again
    bad = omp_cli.assert_one_line_error(omp_cli("plugin", "new", "9lives"))
    assert "not a usable plugin name" in bad


def test_unknown_subcommand_and_no_subcommand(omp_cli):
    line = omp_cli.assert_one_line_error(omp_cli("plugin", "instal", "x"))
    assert "invalid choice" in line
    usage = omp_cli("plugin")
    assert usage.returncode == 2 and "add SPEC" in usage.stdout


def test_without_the_plugin_manager_the_family_is_not_installed(omp_cli):
    script = omp_cli.script([{"text": "I am the model"}])
    proc = omp_cli(
        "plugin", "add", "foo", "--script", script, env={"OMP_DISABLED_PLUGINS": "plugin_manager"}
    )
    assert "`omp plugin` is not installed" in omp_cli.assert_one_line_error(proc)
    assert omp_cli.all_session_files() == []
