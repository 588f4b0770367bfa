"""``omp models`` is the llm plugin's subcommand (it left the kernel in issue 25): it
lists the installed providers' models through the public ``SubcommandContext``."""

from __future__ import annotations

import omp
import pytest


@pytest.fixture
def models(omp_harness):
    runtime = omp_harness.runtime(builtins=["llm", "scripted"])
    [command] = [c for c in runtime.contributions.of("subcommands") if c.name == "models"]
    return command, omp.SubcommandContext(runtime)


def test_the_plugin_contributes_omp_models(models, capsys) -> None:
    command, ctx = models
    assert command.run(["demo"], ctx) == 0
    out = capsys.readouterr().out
    assert "scripted/demo" in out
    assert out.splitlines()[0].split()[:2] == ["model", "context"]
    assert command.run(["no-such-model-anywhere"], ctx) == 1
    assert "no models match 'no-such-model-anywhere'" in capsys.readouterr().out


def test_flags_are_read_as_omps_and_help_is_the_commands_own(models, capsys) -> None:
    command, ctx = models
    assert command.run(["--verbose", "demo"], ctx) == 0
    assert "scripted/demo" in capsys.readouterr().out
    assert command.run(["--help"], ctx) == 0
    assert capsys.readouterr().out.startswith("usage: omp models [SEARCH]")
    with pytest.raises(omp.UsageError, match="--bogus"):
        command.run(["--bogus"], ctx)


def test_a_broken_models_json_is_one_line_and_the_listing_goes_on(
    models, omp_harness, capsys
) -> None:
    (omp_harness.agent_dir / "models.json").write_text("{not json", encoding="utf-8")
    command, ctx = models
    assert command.run(["demo"], ctx) == 0
    out, err = capsys.readouterr()
    assert "scripted/demo" in out
    [line] = err.splitlines()
    assert line.startswith("omp: ") and "models.json" in line
