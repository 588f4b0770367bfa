"""Settings and models.json values are checked against the schema when they load
(issue 24, item 15): a value of the wrong type is one line on stderr naming where it
came from, the key, what was expected and what is used instead, and the run goes on
with that value left out, never a crash nor a silent acceptance."""

from __future__ import annotations

import json

import pytest

ANSWER = (
    'data: {"choices":[{"index":0,"delta":{"content":"ANSWERED"}}]}\n\n'
    'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    "data: [DONE]\n\n"
)

BAD_VALUES = [
    pytest.param(
        {"retry": {"maxRetries": "lots"}},
        "retry.maxRetries",
        'retry.maxRetries: expected a whole number, got "lots" (using the default 10)',
        "10",
        id="retry.maxRetries-text",
    ),
    pytest.param(
        {"retry": 5},
        "retry.maxRetries",
        "retry: expected an object of settings, got 5 (ignored)",
        "10",
        id="retry-number",
    ),
    pytest.param(
        {"stream": {"idleTimeoutMs": "soon"}},
        "stream.idleTimeoutMs",
        'stream.idleTimeoutMs: expected a whole number, got "soon" (using the default 180000)',
        "180000",
        id="stream.idleTimeoutMs-text",
    ),
    pytest.param(
        {"compaction": {"enabled": "yes"}},
        "compaction.enabled",
        'compaction.enabled: expected true or false, got "yes" (using the default true)',
        "true",
        id="compaction.enabled-text",
    ),
    pytest.param(
        {"disabledPlugins": "print"},
        "disabledPlugins",
        'disabledPlugins: expected a list of strings, got "print" (using the default [])',
        "[]",
        id="disabledPlugins-text",
    ),
    pytest.param(
        {"theme": 5},
        "theme",
        'theme: expected one of "dark", "light", got 5 (ignored)',
        "null",
        id="theme-number",
    ),
]


def _provider(omp_cli, url: str, model: dict | None = None) -> None:
    """A models.json provider ``local/coder`` served by the loopback replay server."""
    omp_cli.use_provider("local", f"{url}/v1", model=model)


def _user_settings(omp_cli, data: dict) -> str:
    path = omp_cli.agent_dir / "settings.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize(("data", "key", "line", "default"), BAD_VALUES)
def test_a_bad_setting_is_one_line_and_the_run_goes_on(
    omp_cli, replay_server, data, key, line, default
):
    _provider(omp_cli, replay_server.url)
    replay_server.add(ANSWER, headers={"content-type": "text/event-stream"})
    path = _user_settings(omp_cli, data)

    proc = omp_cli("-p", "--model", "local/coder", "hi")

    assert (proc.returncode, proc.stdout) == (0, "ANSWERED\n"), proc.stderr
    assert omp_cli.stderr_lines(proc) == [f"omp: {path}: {line}"]


@pytest.mark.parametrize(("data", "key", "line", "default"), BAD_VALUES)
def test_the_default_is_in_effect_and_said_once(omp_cli, data, key, line, default):
    path = _user_settings(omp_cli, data)

    proc = omp_cli("config", "get", key)

    assert (proc.returncode, proc.stdout) == (0, f"{default}\n"), proc.stderr
    assert omp_cli.stderr_lines(proc) == [f"omp: {path}: {line}"]


def test_a_lower_layers_value_stays_when_a_higher_one_is_bad(omp_cli):
    _user_settings(
        omp_cli,
        {"steeringMode": "all", "trustedDirectories": [str(omp_cli.cwd.resolve())]},
    )
    project = omp_cli.cwd / ".omp" / "settings.json"
    project.parent.mkdir()
    project.write_text(json.dumps({"steeringMode": "sometimes", "retry": {"baseDelayMs": -1}}))

    proc = omp_cli("config", "get", "steeringMode")

    assert (proc.returncode, proc.stdout) == (0, "all\n"), proc.stderr
    assert omp_cli.stderr_lines(proc) == [
        f'omp: {project}: steeringMode: expected one of "all", "one-at-a-time", '
        'got "sometimes" (using "all")',
        f"omp: {project}: retry.baseDelayMs: expected at least 0, got -1 (using the default 500)",
    ]


def test_environment_values_are_checked_the_same_way(omp_cli):
    script = omp_cli.script([{"text": "still answered"}])
    env = {"OMP_SETTINGS": '{"retry": {"enabled": "no"}}', "OMP_INTERRUPT_MODE": "later"}

    proc = omp_cli("-p", "hi", "--script", script, env=env)

    assert (proc.returncode, proc.stdout) == (0, "still answered\n"), proc.stderr
    lines = omp_cli.stderr_lines(proc)
    assert (
        'omp: OMP_SETTINGS: retry.enabled: expected true or false, got "no" '
        "(using the default true)"
    ) in lines
    assert (
        'omp: OMP_INTERRUPT_MODE: interruptMode: expected one of "immediate", "wait", '
        'got "later" (using the default "immediate")'
    ) in lines
    listed = omp_cli("config", "get", "interruptMode", env=env)
    assert listed.stdout == "immediate\n"


def test_a_bad_model_field_names_the_file_model_and_field_and_keeps_the_provider(
    omp_cli, replay_server
):
    _provider(omp_cli, replay_server.url, {"id": "coder", "contextWindow": "big"})
    replay_server.add(ANSWER, headers={"content-type": "text/event-stream"})
    expected = (
        f"omp: {omp_cli.agent_dir / 'models.json'}: model local/coder: contextWindow: "
        'expected a whole number of at least 1, got "big" (using the default 128000)'
    )

    listing = omp_cli("models", "local")

    assert listing.returncode == 0, listing.stderr
    assert omp_cli.stderr_lines(listing) == [expected]
    [row] = [line for line in listing.stdout.splitlines() if line.startswith("local/coder")]
    assert row.split()[1] == "128k"

    proc = omp_cli("-p", "--model", "local/coder", "hi")

    assert (proc.returncode, proc.stdout) == (0, "ANSWERED\n"), proc.stderr
    assert omp_cli.stderr_lines(proc) == [expected]


def test_a_bad_model_override_keeps_the_built_in_value(omp_cli):
    overrides = {"gpt-4o": {"contextWindow": -5, "reasoning": "sometimes"}}
    (omp_cli.agent_dir / "models.json").write_text(
        json.dumps({"providers": {"openai": {"modelOverrides": overrides}}})
    )
    omp_cli.env["OPENAI_API_KEY"] = "sk-test"

    listing = omp_cli("models", "openai/gpt-4o")

    assert listing.returncode == 0, listing.stderr
    lines = omp_cli.stderr_lines(listing)
    assert len(lines) == 2, lines
    assert "modelOverrides of openai/gpt-4o: contextWindow: expected a whole number" in lines[0]
    assert "reasoning: expected true or false" in lines[1]
    [row] = [line for line in listing.stdout.splitlines() if line.startswith("openai/gpt-4o ")]
    assert row.split()[1] == "128k" and row.rstrip().endswith("ready")
