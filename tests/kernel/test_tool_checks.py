"""``omp_register_tool_checks``: ``omp plugins`` (and ``omp.SubcommandContext``) say
whether a plugin's tools are offered in the directory, and why not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import omp
from omp.cli.plugins_cmd import print_plugins
from omp.cli.subcommand_context import SubcommandContext


class Checked:
    """A plugin whose tools need a marker file in the directory."""

    @omp.hookimpl
    def omp_register_tool_checks(self, api: Any) -> list[Any]:
        def needs_marker(settings: Any, cwd: Path) -> str | None:
            return None if (cwd / "marker").exists() else "no marker here (touch marker)"

        def broken(settings: Any, cwd: Path) -> str | None:
            raise RuntimeError("cannot look")

        return [omp.ToolCheck("finder", needs_marker), omp.ToolCheck("looker", broken), "junk"]


def test_plugins_say_why_a_tool_is_not_offered_here(omp_harness: Any, capsys: Any) -> None:
    runtime = omp_harness.runtime([Checked()], builtins=["read"])
    assert print_plugins(runtime) == 0
    out = capsys.readouterr().out
    assert "    tools finder: not offered here: no marker here (touch marker)" in out
    assert "    tools looker: not offered here: its check failed: RuntimeError: cannot look" in out
    assert "omp_register_tool_checks returned str is not an omp.ToolCheck" in out
    (omp_harness.cwd / "marker").write_text("")
    checks = SubcommandContext(omp_harness.runtime([Checked()], builtins=["read"])).tool_checks()
    assert checks[0][1:] == ("finder", None)


def test_a_plugin_without_checks_prints_no_tool_line(omp_harness: Any, capsys: Any) -> None:
    print_plugins(omp_harness.runtime(builtins=["read"]))
    assert "tools " not in capsys.readouterr().out
