"""Settings: layers, precedence, environment table, file errors, validation, saving."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from omp.base.errors import OmpError
from omp.config.settings import (
    DEFAULTS,
    Settings,
    agent_dir,
    deep_merge,
    load_settings,
    save_user_setting,
)


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """An agent dir, a project dir and an env dict pointing at them (never the real home)."""
    agent = tmp_path / "agent"
    project = tmp_path / "project"
    agent.mkdir()
    (project / ".omp").mkdir(parents=True)
    env = {"OMP_CODING_AGENT_DIR": str(agent), "HOME": str(tmp_path / "home")}
    return agent, project, env


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# --- agent_dir -------------------------------------------------------------------------


def test_agent_dir_default_is_under_home(tmp_path: Path) -> None:
    assert agent_dir({"HOME": str(tmp_path)}) == tmp_path / ".omp" / "agent"


def test_agent_dir_default_uses_path_home(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert agent_dir({}) == tmp_path / ".omp" / "agent"


def test_agent_dir_relocated(tmp_path: Path) -> None:
    env = {"OMP_CODING_AGENT_DIR": str(tmp_path / "a"), "PI_CODING_AGENT_DIR": "/nope"}
    assert agent_dir(env) == tmp_path / "a"


def test_agent_dir_pi_mirror(tmp_path: Path) -> None:
    assert agent_dir({"PI_CODING_AGENT_DIR": str(tmp_path / "pi")}) == tmp_path / "pi"


def test_agent_dir_expands_user_and_ignores_empty(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert agent_dir({"OMP_CODING_AGENT_DIR": "~/x"}) == tmp_path / "x"
    assert agent_dir({"OMP_CODING_AGENT_DIR": "", "HOME": str(tmp_path)}) == (
        tmp_path / ".omp" / "agent"
    )


def test_agent_dir_reads_os_environ_by_default(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(tmp_path / "env"))
    assert agent_dir() == tmp_path / "env"


# --- defaults and precedence -------------------------------------------------------------


def test_defaults_when_nothing_is_set(dirs) -> None:
    _, project, env = dirs
    settings = load_settings(project, env=env)
    assert settings.data == DEFAULTS
    assert settings.sources == []
    assert settings.get("retry.maxRetries") == 10
    assert settings["steeringMode"] == "one-at-a-time"
    assert settings.get("defaultThinkingLevel") == "off"


def test_defaults_are_not_mutated(dirs) -> None:
    _, project, env = dirs
    settings = load_settings(project, env=env)
    settings.data["retry"]["maxRetries"] = 1
    settings.data["disabledPlugins"].append("x")
    assert DEFAULTS["retry"]["maxRetries"] == 10
    assert DEFAULTS["disabledPlugins"] == []


def test_precedence_across_all_layers(dirs) -> None:
    agent, project, env = dirs
    user_file = write_json(
        agent / "settings.json",
        {
            "defaultModel": "user/model",
            "defaultThinkingLevel": "low",
            "disabledPlugins": ["a", "b"],
            "retry": {"maxRetries": 3, "extra": {"x": 1, "y": 1}},
            "theme": "dark",
        },
    )
    project_file = write_json(
        project / ".omp" / "settings.json",
        {
            "defaultModel": "project/model",
            "disabledPlugins": ["c"],
            "retry": {"baseDelayMs": 100, "extra": {"y": 2}},
            "steeringMode": "all",
        },
    )
    env = {**env, "OMP_MODEL": "env/model", "OMP_SETTINGS": '{"retry": {"extra": {"z": 3}}}'}
    cli = {"defaultModel": "cli/model", "retry": {"enabled": False}}

    settings = load_settings(project, cli=cli, env=env, trust=True)

    assert settings.sources == [user_file, project_file]
    assert settings["defaultModel"] == "cli/model"
    assert settings["defaultThinkingLevel"] == "low"  # only the user file set it
    assert settings["theme"] == "dark"
    assert settings["steeringMode"] == "all"
    assert settings["disabledPlugins"] == ["c"]  # arrays replace wholesale
    # objects deep-merge through every layer
    assert settings["retry"] == {
        "enabled": False,
        "maxRetries": 3,
        "baseDelayMs": 100,
        "extra": {"x": 1, "y": 2, "z": 3},
    }


def test_env_beats_project_and_cli_beats_env(dirs) -> None:
    _, project, env = dirs
    write_json(project / ".omp" / "settings.json", {"interruptMode": "wait", "defaultModel": "p"})
    env = {**env, "OMP_INTERRUPT_MODE": "immediate", "OMP_MODEL": "e"}
    settings = load_settings(project, env=env)
    assert settings["interruptMode"] == "immediate"
    assert settings["defaultModel"] == "e"
    settings = load_settings(project, cli={"interruptMode": "wait"}, env=env)
    assert settings["interruptMode"] == "wait"
    assert settings["defaultModel"] == "e"


def test_array_replaced_by_empty_array(dirs) -> None:
    agent, project, env = dirs
    write_json(agent / "settings.json", {"extensions": ["one", "two"]})
    write_json(project / ".omp" / "settings.json", {"extensions": []})
    assert load_settings(project, env=env, trust=True)["extensions"] == []


def test_scalar_replaces_object_and_object_replaces_scalar(dirs) -> None:
    agent, project, env = dirs
    write_json(agent / "settings.json", {"y": {"b": 2}, "x": 1})
    write_json(project / ".omp" / "settings.json", {"x": {"a": 1}, "y": False})
    settings = load_settings(project, env=env, trust=True)
    assert settings["y"] is False
    assert settings["x"] == {"a": 1}


def test_cli_none_values_mean_flag_not_given(dirs) -> None:
    _, project, env = dirs
    env = {**env, "OMP_MODEL": "e"}
    settings = load_settings(
        project, cli={"defaultModel": None, "retry": {"enabled": None}}, env=env
    )
    assert settings["defaultModel"] == "e"
    assert settings["retry.enabled"] is True


def test_only_cwd_project_file_is_read(dirs) -> None:
    _, project, env = dirs
    write_json(project / ".omp" / "settings.json", {"defaultModel": "parent"})
    child = project / "sub"
    child.mkdir()
    assert load_settings(child, env=env)["defaultModel"] is None


def test_missing_agent_dir_is_fine(tmp_path: Path) -> None:
    env = {"OMP_CODING_AGENT_DIR": str(tmp_path / "does" / "not" / "exist")}
    assert load_settings(tmp_path, env=env).data == DEFAULTS


def test_empty_file_counts_as_empty_object(dirs) -> None:
    agent, project, env = dirs
    (agent / "settings.json").write_text("  \n", encoding="utf-8")
    settings = load_settings(project, env=env)
    assert settings.data == DEFAULTS
    assert settings.sources == [agent / "settings.json"]


def test_utf8_bom_is_accepted(dirs) -> None:
    agent, project, env = dirs
    (agent / "settings.json").write_text('\ufeff{"defaultModel": "m"}', encoding="utf-8")
    assert load_settings(project, env=env)["defaultModel"] == "m"


# --- environment table ------------------------------------------------------------------


def test_env_table(dirs) -> None:
    _, project, env = dirs
    env = {
        **env,
        "OMP_MODEL": "anthropic/claude",
        "OMP_THINKING": "high",
        "OMP_DISABLED_PLUGINS": " a, b ,,c ",
        "OMP_SESSION_DIR": "/sessions",
        "OMP_STEERING_MODE": "all",
        "OMP_FOLLOW_UP_MODE": "all",
        "OMP_INTERRUPT_MODE": "wait",
    }
    settings = load_settings(project, env=env)
    assert settings["defaultModel"] == "anthropic/claude"
    assert settings["defaultThinkingLevel"] == "high"
    assert settings["disabledPlugins"] == ["a", "b", "c"]
    assert settings["sessionDir"] == "/sessions"
    assert settings["steeringMode"] == "all"
    assert settings["followUpMode"] == "all"
    assert settings["interruptMode"] == "wait"


def test_session_dir_pi_mirror_and_priority(dirs) -> None:
    _, project, env = dirs
    pi = {**env, "PI_CODING_AGENT_SESSION_DIR": "/pi"}
    assert load_settings(project, env=pi)["sessionDir"] == "/pi"
    both = {**pi, "OMP_SESSION_DIR": "/omp"}
    assert load_settings(project, env=both)["sessionDir"] == "/omp"


def test_empty_env_values_are_ignored(dirs) -> None:
    agent, project, env = dirs
    write_json(agent / "settings.json", {"defaultModel": "user", "disabledPlugins": ["x"]})
    env = {**env, "OMP_MODEL": "", "OMP_DISABLED_PLUGINS": "", "OMP_SETTINGS": " "}
    settings = load_settings(project, env=env)
    assert settings["defaultModel"] == "user"
    assert settings["disabledPlugins"] == ["x"]


def test_omp_settings_json_and_specific_variables_win(dirs) -> None:
    _, project, env = dirs
    env = {
        **env,
        "OMP_SETTINGS": '{"defaultModel": "json", "theme": "light", "retry": {"maxRetries": 2}}',
        "OMP_MODEL": "specific",
    }
    settings = load_settings(project, env=env)
    assert settings["defaultModel"] == "specific"
    assert settings["theme"] == "light"
    assert settings.get("retry.maxRetries") == 2
    assert settings.get("retry.baseDelayMs") == 500


@pytest.mark.parametrize(
    ("raw", "needle"),
    [("{nope", "line 1, column 2"), ("[1, 2]", "expected a JSON object, got an array")],
)
def test_omp_settings_invalid(dirs, raw: str, needle: str) -> None:
    _, project, env = dirs
    with pytest.raises(OmpError) as info:
        load_settings(project, env={**env, "OMP_SETTINGS": raw})
    message = str(info.value)
    assert "OMP_SETTINGS" in message
    assert needle in message
    assert "\n" not in message


def test_reads_os_environ_when_env_not_given(dirs, monkeypatch) -> None:
    agent, project, _ = dirs
    monkeypatch.setenv("OMP_CODING_AGENT_DIR", str(agent))
    monkeypatch.setenv("OMP_MODEL", "from/os")
    write_json(agent / "settings.json", {"theme": "light"})
    settings = load_settings(project)
    assert settings["defaultModel"] == "from/os"
    assert settings["theme"] == "light"


# --- malformed files and validation ------------------------------------------------------


def test_malformed_json_names_file_line_and_column(dirs) -> None:
    _, project, env = dirs
    path = project / ".omp" / "settings.json"
    path.write_text('{\n  "a": 1,\n  "b": 2\n  "c": 3\n}\n', encoding="utf-8")
    with pytest.raises(OmpError) as info:
        load_settings(project, env=env)
    message = str(info.value)
    assert message == f"invalid settings file {path}: line 4, column 3: Expecting ',' delimiter"


def test_malformed_user_file(dirs) -> None:
    agent, project, env = dirs
    path = agent / "settings.json"
    path.write_text('{"a": }', encoding="utf-8")
    with pytest.raises(OmpError, match=r"settings\.json: line 1, column 7"):
        load_settings(project, env=env)


@pytest.mark.parametrize("body", ["[]", '"text"', "42", "null"])
def test_top_level_must_be_object(dirs, body: str) -> None:
    agent, project, env = dirs
    path = agent / "settings.json"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(OmpError) as info:
        load_settings(project, env=env)
    message = str(info.value)
    assert str(path) in message
    assert "expected a JSON object" in message
    assert "\n" not in message


def test_not_utf8(dirs) -> None:
    agent, project, env = dirs
    (agent / "settings.json").write_bytes(b'{"a": "\xff"}')
    with pytest.raises(OmpError, match="not UTF-8"):
        load_settings(project, env=env)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions")
def test_unreadable_file(dirs) -> None:
    agent, project, env = dirs
    path = write_json(agent / "settings.json", {})
    path.chmod(0)
    try:
        with pytest.raises(OmpError, match="cannot read settings file"):
            load_settings(project, env=env)
    finally:
        path.chmod(0o600)


def test_bad_enum_value_in_file_is_left_out_and_said(dirs, capsys) -> None:
    _, project, env = dirs
    path = write_json(project / ".omp" / "settings.json", {"steeringMode": "sometimes"})
    settings = load_settings(project, env=env)
    assert settings["steeringMode"] == "one-at-a-time"
    line = (
        f'{path}: steeringMode: expected one of "all", "one-at-a-time", got "sometimes" '
        '(using the default "one-at-a-time")'
    )
    assert settings.problems == [line]
    assert capsys.readouterr().err == f"omp: {line}\n"


def test_bad_enum_value_from_env_names_variable(dirs) -> None:
    _, project, env = dirs
    settings = load_settings(project, env={**env, "OMP_INTERRUPT_MODE": "later"})
    assert settings["interruptMode"] == "immediate"
    assert settings.problems == [
        'OMP_INTERRUPT_MODE: interruptMode: expected one of "immediate", "wait", got "later" '
        '(using the default "immediate")'
    ]


def test_bad_value_from_cli_is_checked_the_same_way(dirs) -> None:
    _, project, env = dirs
    settings = load_settings(project, cli={"followUpMode": 3, "retry": {"maxRetries": 2}}, env=env)
    assert settings["followUpMode"] == "one-at-a-time"
    assert settings["retry.maxRetries"] == 2
    [line] = settings.problems
    assert line.startswith("the command line: followUpMode: expected one of")


def test_bad_value_in_overridden_layer_is_still_reported(dirs) -> None:
    agent, project, env = dirs
    user = write_json(agent / "settings.json", {"interruptMode": "soon"})
    write_json(project / ".omp" / "settings.json", {"interruptMode": "wait"})
    settings = load_settings(project, env=env)
    assert settings["interruptMode"] == "wait"
    [line] = settings.problems
    assert line.startswith(f"{user}: interruptMode:")


def test_a_bad_value_keeps_the_lower_layers_value(dirs) -> None:
    agent, project, env = dirs
    write_json(agent / "settings.json", {"retry": {"maxRetries": 4, "enabled": False}})
    settings = load_settings(project, env={**env, "OMP_SETTINGS": '{"retry": {"maxRetries": -1}}'})
    assert settings["retry.maxRetries"] == 4
    assert settings["retry.enabled"] is False
    assert settings.problems == [
        "OMP_SETTINGS: retry.maxRetries: expected at least 0, got -1 (using 4)"
    ]


def test_unknown_keys_are_kept_for_plugins_not_installed(dirs) -> None:
    agent, project, env = dirs
    write_json(agent / "settings.json", {"myPlugin": {"level": "x"}, "retry": {"later": 1}})
    settings = load_settings(project, env=env)
    assert settings["myPlugin.level"] == "x"
    assert settings["retry.later"] == 1
    assert settings.problems == []


def test_map_entries_are_checked_one_by_one(dirs) -> None:
    agent, project, env = dirs
    approval = {"bash": "maybe", "read": "allow"}
    write_json(
        agent / "settings.json", {"tools": {"approval": approval}, "hookTimeouts": {"a": None}}
    )
    settings = load_settings(project, env=env)
    assert settings["tools.approval"] == {"read": "allow"}
    assert settings["hookTimeouts"] == {"a": None}
    [line] = settings.problems
    assert 'tools.approval.bash: expected one of "allow", "deny", "prompt", got "maybe"' in line


def test_each_problem_is_said_once_per_process(dirs, capsys) -> None:
    agent, project, env = dirs
    write_json(agent / "settings.json", {"retry": {"baseDelayMs": "soon"}})
    first = load_settings(project, env=env)
    second = load_settings(project, env=env)
    assert first.problems == second.problems and len(first.problems) == 1
    assert capsys.readouterr().err.count("retry.baseDelayMs") == 1


# --- Settings object -----------------------------------------------------------------------


def test_settings_get_and_getitem() -> None:
    settings = Settings({"a": {"b": {"c": 1}}, "n": None})
    assert settings.get("a.b.c") == 1
    assert settings.get("a.b") == {"c": 1}
    assert settings.get("a.x", "dflt") == "dflt"
    assert settings.get("a.b.c.d") is None
    assert settings.get("n", 5) is None  # a present null is a value
    assert settings["a.b.c"] == 1
    assert "a.b" in settings
    assert "a.z" not in settings
    with pytest.raises(KeyError):
        settings["missing"]


def test_settings_without_data_holds_defaults() -> None:
    assert Settings().data == DEFAULTS


def test_with_overrides_is_a_new_deep_merged_object(tmp_path: Path) -> None:
    base = Settings(deep_merge(DEFAULTS, {"disabledPlugins": ["a"]}), [tmp_path / "s.json"])
    new = base.with_overrides({"retry": {"maxRetries": 1}, "disabledPlugins": ["b"]})
    assert new is not base
    assert new.get("retry.maxRetries") == 1
    assert new.get("retry.baseDelayMs") == 500
    assert new["disabledPlugins"] == ["b"]
    assert new.sources == base.sources
    assert base.get("retry.maxRetries") == 10
    assert base["disabledPlugins"] == ["a"]
    new.data["retry"]["enabled"] = False
    assert base.get("retry.enabled") is True


def test_with_overrides_validates() -> None:
    with pytest.raises(OmpError, match="interruptMode"):
        Settings().with_overrides({"interruptMode": "never"})


def test_deep_merge_does_not_share_structure() -> None:
    base = {"a": {"b": [1]}}
    over = {"c": {"d": [2]}}
    merged = deep_merge(base, over)
    merged["a"]["b"].append(9)
    merged["c"]["d"].append(9)
    assert base == {"a": {"b": [1]}}
    assert over == {"c": {"d": [2]}}


# --- save_user_setting -----------------------------------------------------------------------


def test_save_user_setting_creates_dirs_and_round_trips(tmp_path: Path) -> None:
    agent = tmp_path / "deep" / "agent"
    path = save_user_setting(agent, "defaultModel", "x/y")
    assert path == agent / "settings.json"
    assert json.loads(path.read_text(encoding="utf-8")) == {"defaultModel": "x/y"}
    env = {"OMP_CODING_AGENT_DIR": str(agent)}
    assert load_settings(tmp_path, env=env)["defaultModel"] == "x/y"


def test_save_user_setting_keeps_other_keys_and_sets_nested(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    write_json(agent / "settings.json", {"theme": "dark", "retry": {"enabled": False}})
    save_user_setting(agent, "retry.maxRetries", 4)
    save_user_setting(agent, "compaction.enabled", False)
    data = json.loads((agent / "settings.json").read_text(encoding="utf-8"))
    assert data == {
        "theme": "dark",
        "retry": {"enabled": False, "maxRetries": 4},
        "compaction": {"enabled": False},
    }
    assert [p.name for p in agent.iterdir()] == ["settings.json"]  # no temp files left


def test_save_user_setting_refuses_malformed_file(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text("{oops", encoding="utf-8")
    with pytest.raises(OmpError, match="line 1, column 2"):
        save_user_setting(agent, "defaultModel", "m")
    assert (agent / "settings.json").read_text(encoding="utf-8") == "{oops"


def test_save_user_setting_validates_and_refuses_non_object_parent(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    with pytest.raises(OmpError, match="steeringMode"):
        save_user_setting(agent, "steeringMode", "bogus")
    assert not (agent / "settings.json").exists()
    write_json(agent / "settings.json", {"retry": 3})
    with pytest.raises(OmpError, match="retry is not an object"):
        save_user_setting(agent, "retry.maxRetries", 1)
    with pytest.raises(OmpError, match="invalid setting name"):
        save_user_setting(agent, "a..b", 1)


def test_saving_a_setting_checks_the_new_value_not_the_rest_of_the_file(tmp_path: Path) -> None:
    """A bad value already in the file must not stop `omp config set` fixing another."""
    agent = tmp_path / "agent"
    write_json(agent / "settings.json", {"steeringMode": "bogus"})
    save_user_setting(agent, "defaultModel", "m")
    saved = json.loads((agent / "settings.json").read_text())
    assert saved == {"steeringMode": "bogus", "defaultModel": "m"}
    with pytest.raises(OmpError, match=r"retry\.maxRetries: expected a whole number"):
        save_user_setting(agent, "retry.maxRetries", "many")


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_save_user_setting_keeps_file_mode(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    path = write_json(agent / "settings.json", {})
    path.chmod(0o640)
    save_user_setting(agent, "defaultModel", "m")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_save_user_setting_unicode(tmp_path: Path) -> None:
    path = save_user_setting(tmp_path, "greeting", "héllo ✓")
    assert "héllo ✓" in path.read_text(encoding="utf-8")


# --- startup path ------------------------------------------------------------------------


def test_modules_import_only_stdlib() -> None:
    code = (
        "import sys, omp.config.settings, omp.runtime.system_prompt\n"
        "bad = [m for m in ('pydantic', 'omp.agent.tools', 'omp.agent.events')"
        " if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    src = Path(__import__("omp").__file__).parent.parent
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(src)},
    )
    assert out.stdout.strip() == ""


def test_settings_path_that_is_a_directory(dirs) -> None:
    agent, project, env = dirs
    (agent / "settings.json").mkdir()
    with pytest.raises(OmpError, match=r"cannot read settings file .*settings\.json"):
        load_settings(project, env=env)


# --- project trust -------------------------------------------------------------------------


def test_an_untrusted_project_applies_only_its_harmless_settings(dirs) -> None:
    agent, project, env = dirs
    write_json(agent / "settings.json", {"disabledPlugins": ["mine"], "sessionDir": "/mine"})
    write_json(
        project / ".omp" / "settings.json",
        {
            "defaultModel": "p/m",
            "defaultThinkingLevel": "high",
            "disabledPlugins": [],
            "sessionDir": "/elsewhere",
            "extensions": ["x.py"],
            "retry": {"maxRetries": 0},
        },
    )
    settings = load_settings(project, env=env)
    assert not settings.trust.trusted
    assert settings["defaultModel"] == "p/m" and settings["defaultThinkingLevel"] == "high"
    assert settings["disabledPlugins"] == ["mine"] and settings["sessionDir"] == "/mine"
    assert settings["extensions"] == [] and settings["retry.maxRetries"] == 10
    assert settings.trust.skipped_settings == [
        "disabledPlugins",
        "extensions",
        "retry",
        "sessionDir",
    ]


def test_trusted_directories_in_user_settings_trust_a_project_and_its_subfolders(dirs) -> None:
    agent, project, env = dirs
    write_json(project / ".omp" / "settings.json", {"sessionDir": "/elsewhere"})
    write_json(agent / "settings.json", {"trustedDirectories": [str(project.parent)]})
    settings = load_settings(project, env=env)
    assert settings.trust.trusted and settings["sessionDir"] == "/elsewhere"
    assert not load_settings(project, env=env, apply_project=False).get("sessionDir")


def test_a_project_never_sets_trusted_directories(dirs) -> None:
    _, project, env = dirs
    write_json(project / ".omp" / "settings.json", {"trustedDirectories": ["/"]})
    for trust in (False, True):
        settings = load_settings(project, env=env, trust=trust)
        assert settings["trustedDirectories"] == []
        assert "trustedDirectories" in settings.trust.skipped_settings
