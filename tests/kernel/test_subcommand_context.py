"""A subcommand gets ``omp.SubcommandContext``, not the kernel's runtime, and the public
API no longer offers the names only a runtime builder needs."""

from __future__ import annotations

import json

import omp
import pytest
from omp import Flag, Subcommand

RUNTIME_BUILDING = [
    "Runtime",
    "RUNTIME_KINDS",
    "load_runtime",
    "is_session_path",
    "provider_configs",
    "provider_config_problems",
    "parse_cli_args",
    "check_extension_path",
    "project_extension_files",
    "collect_registrations",
    "requirement_on",
    "search_backend_line",
]


@pytest.mark.parametrize("name", RUNTIME_BUILDING)
def test_the_public_api_offers_no_runtime_building_names(name):
    assert name not in omp.__all__
    with pytest.raises(AttributeError):
        getattr(omp, name)


class Inspect:
    """A third party's ``omp inspect``: everything it prints comes from the context."""

    seen: list[object] = []

    @omp.hookimpl
    def omp_register_flags(self, api):
        return [Flag("depth", "how deep to look", type="integer")]

    @omp.hookimpl
    def omp_register_subcommands(self, api):
        return [Subcommand("inspect", "show what omp sees", self.run)]

    async def run(self, args: list[str], ctx: omp.SubcommandContext) -> int:
        self.seen.append(ctx)
        parsed = ctx.parse_flags(args)
        subcommands = ctx.registrations("omp_register_subcommands")
        report = {
            "cwd": str(ctx.cwd),
            "agent_dir": str(ctx.agent_dir),
            "trusted": ctx.trusted,
            "sessions_dir_inside_agent_dir": ctx.sessions_dir.is_relative_to(ctx.agent_dir),
            "depth": parsed["depth"],
            "words": parsed.messages,
            "flags": [f.name for f in ctx.flags],
            "loaded": [p.name for p in ctx.plugins if p.status == "loaded"],
            "subcommands": [(plugin, item.name) for plugin, item in subcommands.items],
            "search": ctx.search_backend_line(),
            "retries": ctx.settings.get("retry.maxRetries"),
        }
        print(json.dumps(report))
        return 4


def test_a_subcommand_runs_on_the_public_context(omp_harness, capsys):
    plugin = Inspect()
    code = omp_harness.run_subcommand(
        "inspect", "--depth", "2", "the", "words", plugins=[plugin], builtins=["search"]
    )
    assert code == 4
    assert isinstance(plugin.seen[-1], omp.SubcommandContext)
    report = json.loads(capsys.readouterr().out)
    assert report["cwd"] == str(omp_harness.cwd)
    assert report["agent_dir"] == str(omp_harness.agent_dir)
    assert report["trusted"] is False
    assert report["sessions_dir_inside_agent_dir"] is True
    assert (report["depth"], report["words"]) == (2, ["the", "words"])
    assert "depth" in report["flags"]
    assert "search" in report["loaded"]
    assert [name for _, name in report["subcommands"]] == ["inspect"]
    assert report["search"].startswith("search backend: search")
    assert isinstance(report["retries"], int)


def test_a_bad_flag_given_to_a_subcommand_is_a_usage_error(omp_harness):
    with pytest.raises(omp.UsageError):
        omp_harness.run_subcommand("inspect", "--depth", "deep", plugins=[Inspect()], builtins=[])


def test_find_session_reads_a_session_argument_as_omp_session_does(omp_harness):
    ctx = omp.SubcommandContext(omp_harness.runtime(builtins=[]))
    with pytest.raises(omp.UsageError, match=r"no session file missing\.jsonl"):
        ctx.find_session("missing.jsonl")
    with pytest.raises(omp.OmpError):
        ctx.find_session("abc123")
    existing = omp_harness.cwd / "mine.jsonl"
    existing.write_text("")
    assert ctx.find_session("mine.jsonl") == existing
