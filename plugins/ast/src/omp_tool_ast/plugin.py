"""Entry module of omp-tool-ast: only the hook, cheap to import (``omp --help`` loads it)."""

from __future__ import annotations

import importlib.util
from typing import Any

import omp


@omp.hookimpl
def omp_register_tools(api: Any) -> list[Any]:
    # Without the engine the tools cannot work: raising lists the plugin as degraded in
    # `omp plugins`, with this reason, instead of offering tools that always fail.
    if not _engine_installed():
        raise omp.OmpError(
            "the ast-grep engine (the ast-grep-py package) is not installed; "
            "ast_grep and ast_edit are not offered"
        )
    from omp_tool_ast.edit_tool import AstEditTool
    from omp_tool_ast.grep_tool import AstGrepTool

    return [AstGrepTool(), AstEditTool()]


@omp.hookimpl
def omp_register_tool_checks(api: Any) -> list[Any]:
    """``omp plugins`` says whether ast_grep and ast_edit are offered here, and why not."""
    return [omp.ToolCheck("ast_grep, ast_edit", _unavailable)]


def _unavailable(settings: Any, cwd: Any) -> str | None:
    if _engine_installed():
        return None
    return "the ast-grep engine is not installed (pip install ast-grep-py)"


def _engine_installed() -> bool:
    try:
        return importlib.util.find_spec("ast_grep_py") is not None
    except ValueError:  # listed in sys.modules as None: blocked
        return False
