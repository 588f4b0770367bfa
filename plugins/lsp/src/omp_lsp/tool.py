"""The ``lsp`` tool: omp's fourteen language-server actions for the model.

Parameters are omp's (``action``, ``file``, ``line``, ``symbol``, ``query``,
``new_name``, ``apply``, ``timeout``, ``payload``) plus ``column`` (a 1-based
position when no ``symbol`` is given) and ``limit`` (how many results to list).
"""

from __future__ import annotations

from typing import Any, Literal

from omp import Tool, ToolResult, tool_cwd
from pydantic import BaseModel, Field

Action = Literal[
    "diagnostics",
    "definition",
    "references",
    "hover",
    "symbols",
    "rename",
    "rename_file",
    "code_actions",
    "type_definition",
    "implementation",
    "status",
    "reload",
    "capabilities",
    "request",
]

DESCRIPTION = """Symbol-aware code intelligence from language servers: navigation, \
refactors and diagnostics where text tools miss callsites.

- Position-based actions (definition, type_definition, implementation, references, \
hover, rename, code_actions): `file` + `line` (1-based) + `symbol` (the name on that \
line; `name#N` for its Nth occurrence) or `column` (1-based).
- `rename`: applies by default across files; `apply: false` previews.
- `rename_file`: `file` → `new_name` (a path); moves the file AND rewrites its importers.
- `code_actions`: lists; apply ONE with `apply: true` + `query` (index or title substring).
- `diagnostics`: a path, a glob, or `file: "*"` for the workspace.
- `symbols`: `file` lists the file's symbols; `file: "*"` + `query` searches the workspace.
- `status`, `capabilities`, `reload` (restart the servers).
- `request`: raw LSP; `query` = method, `payload` = JSON params (else built from file/line).
Use `lsp` (not text edits) for cross-file renames: it follows imports and re-exports."""


class LspParams(BaseModel):
    action: Action = Field(description="What to do.")
    file: str | None = Field(
        default=None, description='A path relative to the workspace; "*" for workspace scope.'
    )
    line: int | None = Field(default=None, ge=1, description="1-based line of the position.")
    column: int | None = Field(
        default=None, ge=1, description="1-based column, when no symbol is given."
    )
    symbol: str | None = Field(
        default=None, description="The name on that line to act on; name#N for the Nth one."
    )
    query: str | None = Field(
        default=None,
        description="Workspace symbol query; code action index/title; method for request.",
    )
    new_name: str | None = Field(
        default=None, description="rename: the new name; rename_file: the destination path."
    )
    apply: bool | None = Field(
        default=None, description="rename/rename_file apply unless false; code_actions: true."
    )
    timeout: float | None = Field(
        default=None, ge=5, le=300, description="Timeout in seconds (default 20; 5-300)."
    )
    payload: str | None = Field(default=None, description="request: the params as JSON.")
    limit: int | None = Field(
        default=None, ge=1, le=1000, description="Most results to list (default 50)."
    )


class LspTool(Tool):
    name = "lsp"
    label = "LSP"
    description = DESCRIPTION
    parameters = LspParams

    async def execute(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        from omp_lsp.actions import run

        text, ok = await run(params, tool_cwd(ctx), ctx)
        details = {"action": params.action, "success": ok}
        return ToolResult.text(text, details) if ok else ToolResult.error(text, details)
