"""Settings a plugin declares (``omp_register_settings``): ``omp config`` validates them,
shows their defaults and descriptions, and hides the secret ones (issue 25, gap 6)."""

from __future__ import annotations

import json

import pytest

PLUGIN = """
import omp
from omp.config.schema import SettingSpec


@omp.hookimpl
def omp_register_settings(api):
    return [
        SettingSpec("myplugin.greeting", "string", "Hello", "what the plugin says first"),
        SettingSpec("myplugin.retries", "integer", 3, "tries per greeting", minimum=0),
        SettingSpec("myplugin.token", "string", None, "the greeting service's token",
                    secret=True),
    ]
"""
SECRET = "plain-looking-value-42"


@pytest.fixture
def cli(omp_cli):
    folder = omp_cli.agent_dir / "extensions"
    folder.mkdir()
    (folder / "myplugin.py").write_text(PLUGIN, encoding="utf-8")
    return omp_cli


def user_file(omp_cli):
    return omp_cli.agent_dir / "settings.json"


def test_a_declared_key_is_set_and_read_back(cli):
    proc = cli("config", "set", "myplugin.greeting", "Ahoy")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(user_file(cli).read_text()) == {"myplugin": {"greeting": "Ahoy"}}
    got = cli("config", "get", "myplugin.greeting")
    assert (got.returncode, got.stdout, got.stderr) == (0, "Ahoy\n", "")
    default = cli("config", "get", "myplugin.retries")
    assert (default.returncode, default.stdout) == (0, "3\n")


def test_a_wrong_type_is_one_line_and_exit_2(cli):
    proc = cli("config", "set", "myplugin.retries", "many")
    line = cli.assert_one_line_error(proc)
    assert proc.returncode == 2
    assert "myplugin.retries must be a whole number" in line
    assert not user_file(cli).exists()


def test_an_undeclared_key_is_still_refused(cli):
    proc = cli("config", "set", "myplugin.greetin", "Ahoy")
    line = cli.assert_one_line_error(proc)
    assert proc.returncode == 2
    assert "unknown setting 'myplugin.greetin'" in line and "myplugin.greeting" in line


def test_list_shows_plugin_keys_with_defaults_descriptions_and_their_plugin(cli):
    proc = cli("config", "list")
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("myplugin.retries "))
    assert line.split()[:2] == ["myplugin.retries", "3"]
    assert "default" in line and "plugin ext:myplugin" in line and "tries per greeting" in line
    data = json.loads(cli("config", "list", "--json").stdout)
    assert data["myplugin.greeting"] == {
        "value": "Hello",
        "origin": "default",
        "default": "Hello",
        "description": "what the plugin says first",
        "plugin": "ext:myplugin",
    }


def test_a_secret_key_is_redacted_wherever_config_shows_it(cli):
    proc = cli("config", "set", "myplugin.token", SECRET)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(user_file(cli).read_text()) == {"myplugin": {"token": SECRET}}
    text = cli("config", "list")
    as_json = cli("config", "list", "--json")
    for output in (proc.stdout, text.stdout, as_json.stdout):
        assert SECRET not in output
    assert json.loads(as_json.stdout)["myplugin.token"]["value"] == "[redacted]"


def test_a_wrong_type_in_the_settings_file_is_reported_like_a_kernel_key(cli):
    user_file(cli).write_text(json.dumps({"myplugin": {"retries": "many"}}), encoding="utf-8")
    proc = cli("config", "get", "myplugin.retries")
    assert proc.returncode == 0
    assert proc.stdout == "3\n"
    assert proc.stderr.splitlines() == [
        f'omp: {user_file(cli)}: myplugin.retries: expected a whole number, got "many" '
        "(using the default 3)"
    ]


def test_a_disabled_plugin_declares_nothing(cli):
    proc = cli(
        "config", "set", "myplugin.greeting", "Ahoy", env={"OMP_DISABLED_PLUGINS": "myplugin"}
    )
    assert "unknown setting 'myplugin.greeting'" in cli.assert_one_line_error(proc)
