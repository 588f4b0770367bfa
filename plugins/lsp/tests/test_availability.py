"""``omp plugin info|doctor`` say whether the lsp tool is offered in the directory, and
why not (no server for the workspace's languages), without starting any server."""

from __future__ import annotations

import json
from typing import Any

BUILTINS = ["lsp", "plugin_manager"]


def _shown(omp_harness: Any, capsys: Any, *args: str) -> tuple[int, str]:
    code = omp_harness.run_subcommand("plugin", *args, builtins=BUILTINS)
    return code, capsys.readouterr().out


def test_go_without_gopls_is_not_offered_and_says_what_to_install(
    omp_harness: Any, capsys: Any
) -> None:
    (omp_harness.cwd / "main.go").write_text("package main\n")
    settings = {"lsp": {"servers": {"gopls": []}}}  # as if gopls were not installed
    (omp_harness.agent_dir / "settings.json").write_text(json.dumps(settings))
    code, out = _shown(omp_harness, capsys, "doctor")
    assert code == 0  # a directory's lack is no plugin problem
    line = next(line for line in out.splitlines() if line.startswith("lsp: tools lsp"))
    assert "not offered here: no language server found for this workspace's languages" in line
    assert "(go; servers found: basedpyright" in line and "install gopls" in line
    assert "no problems found" in out


def test_python_with_basedpyright_is_offered(omp_harness: Any, capsys: Any) -> None:
    (omp_harness.cwd / "m.py").write_text("x = 1\n")
    _, out = _shown(omp_harness, capsys, "info", "lsp")
    assert "  tools lsp: offered here" in out


def test_no_source_file_or_lsp_disabled_say_so(omp_harness: Any, capsys: Any) -> None:
    (omp_harness.cwd / "notes.md").write_text("# notes\n")
    _, out = _shown(omp_harness, capsys, "info", "lsp")
    assert "tools lsp: not offered here: no source file here that a language server covers" in out
    (omp_harness.cwd / "m.py").write_text("x = 1\n")
    (omp_harness.agent_dir / "settings.json").write_text(json.dumps({"lsp": {"enabled": False}}))
    _, out = _shown(omp_harness, capsys, "info", "lsp")
    assert "tools lsp: not offered here: lsp.enabled is false" in out
