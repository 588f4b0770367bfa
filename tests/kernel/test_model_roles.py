"""Model roles: ``modelRoles`` maps a role to a model pattern; ``@smol``, ``pi/smol`` and
a bare ``smol`` resolve through it; ``--smol``/``--slow`` and PI_SMOL_MODEL/
PI_SLOW_MODEL/PI_PLAN_MODEL set a role for a run (the flag winning); an unset role falls
back to the default model."""

from __future__ import annotations

import json

import omp
import pytest
from doubles import Contribute, ListProvider
from omp.agent.model_roles import role_named, run_roles
from omp.agent.providers import Model
from omp.cli.args import parse


def _provider() -> ListProvider:
    provider = ListProvider([])
    for name in ("fast", "big"):
        provider.models.append(Model(provider="test", id=name, api="test", context_window=1000))
    return provider


def _registry(roles: dict[str, str]) -> omp.ModelRegistry:
    return omp.ModelRegistry([_provider()], roles=roles)


def test_selectors_name_roles_with_at_legacy_prefix_bare_name_or_star():
    roles = {"reviewer": "big"}
    assert role_named("@smol", roles) == "smol"
    assert role_named("pi/slow", roles) == "slow"
    assert role_named("plan", roles) == "plan"
    assert role_named("reviewer", roles) == "reviewer"  # a configured custom role
    assert role_named("*", roles) == "default"
    assert role_named("test/fast", roles) is None
    assert role_named("fast", roles) is None


def test_the_role_flags_win_over_the_setting():
    roles = run_roles({"smol": "fast", "slow": "big", "plan": ""}, {"smol": "big", "slow": None})
    assert roles == {"smol": "big", "slow": "big"}


def test_a_role_resolves_to_its_model_and_keeps_a_thinking_suffix():
    models = _registry({"smol": "fast", "slow": "test/big:high", "task": "@smol"})
    assert models.resolve("@smol").key == "test/fast"
    assert models.resolve("smol").key == "test/fast"
    assert models.resolve("pi/slow").key == "test/big"
    assert models.resolve("@task").key == "test/fast"  # a role naming another role
    assert models.expand_role("@smol:low") == "fast:low"
    assert models.expand_role("slow") == "test/big:high"
    assert models.expand_role("test/fast") == "test/fast"
    assert models.expand_role("@plan") is None  # unset: the caller's default model


def test_resolving_an_unset_role_says_how_to_set_it():
    models = _registry({"a": "@b", "b": "@a"})
    with pytest.raises(omp.UsageError, match=r"model role 'smol' is not set.*--smol"):
        models.resolve("@smol")
    assert models.expand_role("@a") is None  # a loop is as good as unset


def test_smol_and_slow_are_command_line_flags():
    parsed = parse(["--smol", "fast", "--slow", "test/big", "hi"], [])
    assert parsed["smol"] == "fast" and parsed["slow"] == "test/big"
    assert parsed.messages == ["hi"]


def _session(omp_harness, **options):
    return omp_harness.session([Contribute([_provider()])], builtins=[], **options)


def test_model_role_setting_and_flag_choose_the_sessions_model(omp_harness):
    (omp_harness.agent_dir / "settings.json").write_text(
        json.dumps({"modelRoles": {"smol": "fast", "slow": "big"}})
    )
    assert _session(omp_harness, model="@smol").agent.model.key == "test/fast"
    assert _session(omp_harness, model="slow:high").agent.model.key == "test/big"
    flagged = _session(omp_harness, model="pi/smol", flags={"smol": "big"})
    assert flagged.agent.model.key == "test/big"
    assert flagged.models.expand_role("@slow") == "big"


def test_environment_sets_roles_and_the_flag_wins(omp_harness, monkeypatch):
    monkeypatch.setenv("PI_SMOL_MODEL", "big")
    monkeypatch.setenv("PI_SLOW_MODEL", "fast")
    monkeypatch.setenv("PI_PLAN_MODEL", "test/big")
    (omp_harness.agent_dir / "settings.json").write_text(
        json.dumps({"modelRoles": {"smol": "fast", "vision": "big"}})
    )
    session = _session(omp_harness, model="@smol", flags={"slow": "big"})
    assert session.agent.model.key == "test/big"
    assert session.models.roles == {
        "smol": "big",
        "slow": "big",
        "plan": "test/big",
        "vision": "big",
    }


def test_an_unset_role_falls_back_to_the_default_model_with_a_notice(omp_harness):
    session = _session(omp_harness, model="@slow")
    assert session.agent.model.key == "test/model"
    assert session.startup_notices == ["model role @slow is not set; using test/model instead"]
