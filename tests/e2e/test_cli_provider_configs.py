"""The kernel knows the user's provider configuration only through plugins
(``omp_register_provider_configs``): a plugin's source has its problems reported, its
key variables withheld from children and hidden, and its credentials hidden, exactly as
the llm plugin's models.json and auth.json are."""

from __future__ import annotations

import json

VAULT_TOKEN = "vt-token-held-in-the-vault-31415"
VAULT_KEY = "vk-key-in-the-environment-27182"

EXTENSION = f"""
import omp
from omp import ProviderConfigSource


def _problems(agent_dir):
    return ["vault.toml: line 3: provider 'vault' has no baseUrl"]


@omp.hookimpl
def omp_register_provider_configs(api):
    return [
        ProviderConfigSource(
            name="vault",
            problems=_problems,
            key_names=lambda agent_dir, env: frozenset({{"VAULT_PROVIDER"}}),
            secrets=lambda agent_dir, env: [("vault:token", {VAULT_TOKEN!r})],
        )
    ]
"""


def _run(omp_cli, command: str):
    ext = omp_cli.extension(EXTENSION, "vault.py")
    steps = [
        {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]},
        {"text": "done"},
    ]
    proc = omp_cli(
        "--mode", "json", "-e", ext, "--script", omp_cli.script(steps), "go",
        env={"VAULT_PROVIDER": VAULT_KEY},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    [session] = omp_cli.session_files()
    return proc, session


def test_a_plugins_configuration_problems_are_reported_once_at_start(omp_cli):
    proc, _ = _run(omp_cli, "true")
    expected = "omp: vault.toml: line 3: provider 'vault' has no baseUrl"
    assert proc.stderr.splitlines().count(expected) == 1, proc.stderr


def test_a_plugins_key_variables_are_withheld_from_children(omp_cli):
    proc, session = _run(omp_cli, 'echo "key=[${VAULT_PROVIDER:-unset}]"')
    results = [e for e in omp_cli.json_lines(proc.stdout) if e["type"] == "tool_execution_end"]
    assert results[0]["result"]["content"][0]["text"].strip() == "key=[unset]"
    assert VAULT_KEY not in session.read_text(encoding="utf-8")


def test_a_plugins_credentials_are_hidden_in_events_and_the_session_file(omp_cli):
    proc, session = _run(omp_cli, f"echo token={VAULT_TOKEN}")
    assert VAULT_TOKEN not in proc.stdout
    assert VAULT_TOKEN not in session.read_text(encoding="utf-8")
    results = [e for e in omp_cli.json_lines(proc.stdout) if e["type"] == "tool_execution_end"]
    assert results[0]["result"]["content"][0]["text"].strip() == "token=[REDACTED:vault:token]"
    entries = [json.loads(line) for line in session.read_text(encoding="utf-8").splitlines()]
    assert any("[REDACTED:vault:token]" in json.dumps(e) for e in entries)


BROKEN = """
import omp
from omp import ProviderConfigSource


def _problems(agent_dir):
    raise RuntimeError("vault is sealed")


@omp.hookimpl
def omp_register_provider_configs(api):
    return [ProviderConfigSource(name="vault", problems=_problems)]
"""


def test_a_source_that_fails_is_one_line_and_omp_models_still_lists(omp_cli):
    ext = omp_cli.extension(BROKEN, "broken_vault.py")
    proc = omp_cli("models", "-e", ext, "scripted")
    assert proc.returncode == 0, proc.stderr
    assert "omp: vault could not be checked: RuntimeError: vault is sealed" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert "scripted" in proc.stdout


def test_sessions_export_hides_a_key_written_in_models_json(omp_cli):
    key = "mk-literal-export-check-55555"
    provider = {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions"}
    provider |= {"apiKey": key, "models": [{"id": "m"}]}
    (omp_cli.agent_dir / "models.json").write_text(json.dumps({"providers": {"mine": provider}}))
    settings = omp_cli.agent_dir / "settings.json"
    settings.write_text(json.dumps({"secrets": {"enabled": False}}), encoding="utf-8")
    steps = [{"text": f"the key is {key}"}]
    proc = omp_cli("-p", "--script", omp_cli.script(steps), "go")
    assert proc.returncode == 0, proc.stderr
    [session] = omp_cli.session_files()
    assert key in session.read_text(encoding="utf-8")

    settings.write_text("{}", encoding="utf-8")  # on again: the export hides it
    export = omp_cli.root / "out.md"
    done = omp_cli("sessions", "export", session, export)
    assert done.returncode == 0, done.stderr
    text = export.read_text(encoding="utf-8")
    assert key not in text
    assert "[REDACTED:models.json:mine]" in text
