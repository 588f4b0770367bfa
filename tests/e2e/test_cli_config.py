"""`omp config list|get|set|unset`: settings read and written through the schema, by the
config-command plugin (issue 11)."""

from __future__ import annotations

import json


def user_file(omp_cli):
    return omp_cli.agent_dir / "settings.json"


def project_file(omp_cli):
    return omp_cli.cwd / ".omp" / "settings.json"


def test_set_then_get_a_nested_setting_in_the_user_file(omp_cli):
    proc = omp_cli("config", "set", "retry.maxRetries", "4")
    assert proc.returncode == 0, proc.stderr
    assert "retry.maxRetries = 4" in proc.stdout and str(user_file(omp_cli)) in proc.stdout
    assert json.loads(user_file(omp_cli).read_text()) == {"retry": {"maxRetries": 4}}
    got = omp_cli("config", "get", "retry.maxRetries")
    assert (got.returncode, got.stdout, got.stderr) == (0, "4\n", "")
    group = omp_cli("config", "get", "retry")
    assert json.loads(group.stdout)["maxRetries"] == 4
    assert json.loads(group.stdout)["baseDelayMs"] == 500


def test_unknown_key_is_refused_with_the_closest_known_one(omp_cli):
    proc = omp_cli("config", "set", "steringMode", "all")
    line = omp_cli.assert_one_line_error(proc)
    assert "unknown setting 'steringMode'" in line and "steeringMode" in line
    assert not user_file(omp_cli).exists()
    line = omp_cli.assert_one_line_error(omp_cli("config", "get", "retry.maxRetrys"))
    assert "retry.maxRetries" in line


def test_a_bad_value_is_one_line_and_leaves_the_file_alone(omp_cli):
    user_file(omp_cli).write_text('{"defaultModel": "kept"}\n')
    line = omp_cli.assert_one_line_error(omp_cli("config", "set", "retry.maxRetries", "many"))
    assert "retry.maxRetries must be a whole number" in line
    line = omp_cli.assert_one_line_error(omp_cli("config", "set", "interruptMode", "later"))
    assert '"immediate", "wait"' in line
    assert json.loads(user_file(omp_cli).read_text()) == {"defaultModel": "kept"}


def test_unset_removes_the_key_and_its_empty_group(omp_cli):
    user_file(omp_cli).write_text('{"retry": {"maxRetries": 2}, "defaultModel": "m"}\n')
    proc = omp_cli("config", "unset", "retry.maxRetries")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(user_file(omp_cli).read_text()) == {"defaultModel": "m"}
    again = omp_cli("config", "unset", "retry.maxRetries")
    assert again.returncode == 0 and "was not set" in again.stdout
    assert omp_cli("config", "get", "retry.maxRetries").stdout == "10\n"


def test_project_values_and_trust(omp_cli):
    proc = omp_cli("config", "set", "--project", "sessionDir", "/tmp/elsewhere")
    assert proc.returncode == 0, proc.stderr
    assert "not applied until you trust this directory" in proc.stdout
    assert json.loads(project_file(omp_cli).read_text()) == {"sessionDir": "/tmp/elsewhere"}
    assert omp_cli("config", "set", "defaultModel", "user-model").returncode == 0
    assert omp_cli("config", "set", "--project", "defaultModel", "team-model").returncode == 0

    got = omp_cli("config", "get", "sessionDir")
    assert got.returncode == 0
    assert got.stdout == "null\n"
    assert "not applied" in got.stderr and "not trusted" in got.stderr
    assert "omp --trust" in got.stderr
    assert omp_cli("config", "get", "defaultModel").stdout == "team-model\n"
    assert omp_cli("config", "get", "--project", "sessionDir").stdout == "/tmp/elsewhere\n"

    user_file(omp_cli).write_text(
        json.dumps({"trustedDirectories": [str(omp_cli.cwd.resolve())]}), encoding="utf-8"
    )
    trusted = omp_cli("config", "get", "sessionDir")
    assert (trusted.stdout, trusted.stderr) == ("/tmp/elsewhere\n", "")


def test_a_project_can_never_set_trusted_directories(omp_cli):
    line = omp_cli.assert_one_line_error(
        omp_cli("config", "set", "--project", "trustedDirectories", "/")
    )
    assert "user settings" in line
    assert not project_file(omp_cli).exists()


def test_list_shows_values_with_their_origin_and_never_a_secret(omp_cli):
    user_file(omp_cli).write_text(
        json.dumps(
            {
                "retry": {"maxRetries": 3},
                "providers": {"acme": {"apiKey": "sk-live-abcdef123456", "baseUrl": "http://x"}},
                "myToken": "ghp_abcdefghijklmnop",
            }
        ),
        encoding="utf-8",
    )
    proc = omp_cli("config", "list", env={"OMP_MODEL": "env-model"})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert any("retry.maxRetries" in line and "3" in line and "user" in line for line in lines), (
        proc.stdout
    )
    assert any("defaultModel" in line and "OMP_MODEL" in line for line in lines)
    assert any("retry.baseDelayMs" in line and "default" in line for line in lines)
    assert any("providers.acme.apiKey" in line and "unknown" in line for line in lines)
    as_json = omp_cli("config", "list", "--json")
    for text in (proc.stdout, as_json.stdout):
        assert "sk-live-abcdef123456" not in text and "ghp_abcdefghijklmnop" not in text
    data = json.loads(as_json.stdout)
    assert data["retry.maxRetries"]["value"] == 3
    assert data["providers.acme.apiKey"]["value"] == "[redacted]"


def test_bad_usage_is_one_line(omp_cli):
    line = omp_cli.assert_one_line_error(omp_cli("config", "frob"))
    assert "list, get, set or unset" in line
    line = omp_cli.assert_one_line_error(omp_cli("config", "set", "defaultModel"))
    assert "usage: omp config set KEY VALUE" in line
    line = omp_cli.assert_one_line_error(omp_cli("config"))
    assert "omp config --help" in line
    usage = omp_cli("config", "--help")
    assert usage.returncode == 0 and "omp config set KEY VALUE [--project]" in usage.stdout
    assert "config" in omp_cli("--help").stdout


def test_with_the_plugin_disabled_config_is_not_installed_not_a_prompt(omp_cli):
    proc = omp_cli("config", "list", env={"OMP_DISABLED_PLUGINS": "config_command"})
    assert "`omp config` is not installed" in omp_cli.assert_one_line_error(proc)
