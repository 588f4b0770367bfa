"""Plugin settings (issue 25, gap 6): a plugin declares its keys through
``omp_register_settings``; the kernel's schema holds only the kernel's keys, loading
checks the union, and a plugin reads its settings with the declared default applied."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import omp
import pytest
from omp.base.errors import OmpError
from omp.config.schema import SCHEMA, SettingSpec

ROOT = Path(__file__).resolve().parents[2]

PLUGIN_KEYS = {
    "bash": ["bash.artifactMaxBytes", "bash.outputHardLimitBytes"],
    "batch": ["batch.requestsPerMinute", "batch.tokensPerMinute"],
    "eval": ["eval.enabled", "eval.timeoutMs"],
    "interactive": ["interactive.dialogGuardMs", "theme"],
    "mcp": [
        "mcp.toolMode",
        "mcp.deferThreshold",
        "mcp.startupGateMs",
        "mcp.timeoutMs",
        "mcp.resultMaxBytes",
        "mcp.importOtherAgents",
    ],
    "read": [
        "read.pdf",
        "read.notebooks",
        "read.images",
        "read.archives",
        "read.sqlite",
        "read.docx",
    ],
    "scripted": ["scripted.script"],
    "search": ["search.regexTimeoutMs", "search.backend", "includeWorkspaceTree"],
    "sequential-thinking": [
        "sequentialThinking.forcedThoughts",
        "sequentialThinking.maxNudges",
        "sequentialThinking.maxHistory",
    ],
}
"""Keys the built-in plugins read, by the plugin folder that declares them."""


class Greeter:
    @omp.hookimpl
    def omp_register_settings(self, api):
        return [
            SettingSpec("greeter.greeting", "string", "Hello", "what the greeter says"),
            SettingSpec("greeter.retries", "integer", 3, "tries per greeting", minimum=0),
        ]


class Clashing:
    @omp.hookimpl
    def omp_register_settings(self, api):
        return [
            SettingSpec("greeter.greeting", "string", "Hi", "the same key again"),
            SettingSpec("retry.maxRetries", "integer", 1, "a kernel key"),
            SettingSpec("clash.count", "integer", "many", "a default of the wrong type"),
            SettingSpec("clash.kept", "boolean", True, "a good one"),
        ]


def entry_points_of(folder: Path) -> set[str]:
    project = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
    return set(project["project"].get("entry-points", {}).get("omp.plugins", {}))


def test_the_kernel_schema_holds_no_plugin_key():
    held = sorted(key for keys in PLUGIN_KEYS.values() for key in keys if key in SCHEMA)
    assert held == []


def test_each_plugin_declares_the_keys_it_reads(omp_harness):
    schema = omp_harness.runtime().settings.schema
    for folder, keys in PLUGIN_KEYS.items():
        owners = entry_points_of(ROOT / "plugins" / folder)
        for key in keys:
            assert schema.find(key) is not None, key
            assert schema.owner(key) in owners, (key, schema.owner(key), owners)


def test_a_plugin_reads_its_declared_default_and_the_users_value(omp_harness):
    assert omp_harness.runtime([Greeter()]).settings.get("greeter.retries") == 3
    (omp_harness.agent_dir / "settings.json").write_text(
        json.dumps({"greeter": {"retries": 5}}), encoding="utf-8"
    )
    session = omp_harness.session([Greeter()])
    assert session.settings.get("greeter.retries") == 5
    assert session.settings.get("greeter.greeting") == "Hello"


def test_a_wrong_type_for_a_plugin_key_is_left_out_and_said(omp_harness, capsys):
    path = omp_harness.agent_dir / "settings.json"
    path.write_text(json.dumps({"greeter": {"retries": "many"}}), encoding="utf-8")
    settings = omp_harness.runtime([Greeter()]).settings
    assert settings.get("greeter.retries") == 3
    line = f'{path}: greeter.retries: expected a whole number, got "many" (using the default 3)'
    assert settings.problems == [line]
    assert capsys.readouterr().err.splitlines() == [f"omp: {line}"]


def test_the_union_schema_types_command_line_values(omp_harness):
    schema = omp_harness.runtime([Greeter()]).settings.schema
    assert schema.parse_value("greeter.retries", "4") == 4
    assert schema.parse_value("search.regexTimeoutMs", "2500.5") == 2500.5
    with pytest.raises(OmpError, match=r"greeter\.retries must be at least 0"):
        schema.parse_value("greeter.retries", "-1")
    with pytest.raises(OmpError, match=r"did you mean greeter\.greeting"):
        schema.parse_value("greeter.greting", "x")


def test_bad_declarations_are_refused_naming_the_plugin(omp_harness):
    runtime = omp_harness.runtime([Greeter(), Clashing()], entry_points=False)
    schema = runtime.settings.schema
    assert schema.owner("greeter.greeting") == "Clashing"  # registered last, called first
    problems = " | ".join(runtime.contributions.problems)
    assert "setting 'greeter.greeting' is registered by both" in problems
    assert "Clashing" in problems and "retry.maxRetries" in problems
    assert "clash.count" in problems and "default" in problems
    assert schema.find("retry.maxRetries").default == 10
    assert schema.find("clash.count") is None
    assert schema.owner("clash.kept") == "Clashing"


class Vault:
    """Declares a secret setting and has a tool that (carelessly) returns its value."""

    @omp.hookimpl
    def omp_register_settings(self, api):
        return [SettingSpec("vault.token", "string", None, "the vault's token", secret=True)]

    @omp.hookimpl
    def omp_register_tools(self, api):
        from omp.agent.tools import Tool
        from pydantic import BaseModel

        class Empty(BaseModel):
            pass

        def execute(call_id, params, signal, on_update, ctx):
            return f"token is {ctx.settings.get('vault.token')}"

        return [Tool(name="vault_peek", description="Peek.", parameters=Empty, execute=execute)]


def test_a_secret_settings_value_never_reaches_a_tool_result_or_the_session_file(omp_harness):
    token = "vault-secret-value-123456"
    (omp_harness.agent_dir / "settings.json").write_text(
        json.dumps({"vault": {"token": token}}), encoding="utf-8"
    )
    path = omp_harness.root / "session.jsonl"
    script = [{"tool_calls": [{"name": "vault_peek", "arguments": {}}]}, {"text": "done"}]
    session = omp_harness.session([Vault()], script=script, session_path=str(path))
    events = omp_harness.run(session, "peek")
    text = events.of("tool_execution_end")[-1].result["content"][0].text
    assert text == "token is [REDACTED:vault.token]"
    assert token not in path.read_text(encoding="utf-8")
