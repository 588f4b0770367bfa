"""The ``ls`` tool: one folder's entries, sorted, with kinds and sizes; with ``depth``
above 1, the workspace tree instead (``ctx.search("tree")``: the ignore-aware walk
down to that depth, folders with how many files they hold)."""

from __future__ import annotations

import os
import stat
from typing import Any

from omp import Tool, ToolResult, resolve_path, tool_cwd
from pydantic import BaseModel, Field

LS_LIMIT = 500
MAX_DEPTH = 10


class LsParams(BaseModel):
    path: str | None = Field(default=None, description="Folder to list (default: cwd)")
    limit: int = Field(default=LS_LIMIT, ge=1, description="Most entries to list")
    depth: int = Field(
        default=1,
        ge=1,
        le=MAX_DEPTH,
        description="Levels to show; above 1: a tree (.gitignore/.ignore apply), each "
        "folder with how many files it holds",
    )


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"  # pragma: no cover


def describe(path: str, name: str) -> tuple[str, str]:
    """(line, kind) for one entry: ``dir/``, ``file  12 B``, ``link -> target``."""
    try:
        st = os.lstat(path)
    except OSError:
        return f"{name}  [unreadable]", "other"
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        try:
            is_dir = stat.S_ISDIR(os.stat(path).st_mode)
        except OSError:
            return f"{name} -> {target}  [broken link]", "link"
        return f"{name}{'/' if is_dir else ''} -> {target}", "link"
    if stat.S_ISDIR(st.st_mode):
        return name + "/", "dir"
    if stat.S_ISREG(st.st_mode):
        return f"{name}  {human_size(st.st_size)}", "file"
    return f"{name}  [special file]", "other"


class LsTool(Tool):
    name = "ls"
    label = "List"
    description = (
        "List a folder: entries sorted by name, folders end in /, files with sizes, "
        "symlinks as name -> target. Includes dotfiles."
    )
    parameters = LsParams

    def execute(self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any):
        shown = params.path or "."
        folder = resolve_path(shown, tool_cwd(ctx))
        if not os.path.lexists(folder):
            return ToolResult.error(f"Path not found: {shown}")
        if params.depth > 1 and os.path.isdir(folder):
            return self._tree(params, signal, ctx)
        if not os.path.isdir(folder):
            line = describe(folder, os.path.basename(folder))[0]
            return ToolResult.text(line, {"path": folder, "entries": 1, "total": 1})
        try:
            names = sorted(os.listdir(folder))
        except OSError as exc:
            return ToolResult.error(f"Cannot list {shown}: {exc.strerror or exc}")
        details: dict[str, Any] = {"path": folder, "total": len(names)}
        if not names:
            details["entries"] = 0
            return ToolResult.text(f"{shown} is an empty folder.", details)
        lines = []
        for name in names[: params.limit]:
            if signal is not None and signal.aborted:
                return ToolResult.error("ls aborted.", details)
            lines.append(describe(os.path.join(folder, name), name)[0])
        details["entries"] = len(lines)
        text = "\n".join(lines)
        if len(names) > len(lines):
            text += (
                f"\n\n[showing {len(lines)} of {len(names)} entries; raise limit or "
                "list a subfolder]"
            )
        return ToolResult.text(text, details)

    async def _tree(self, params: Any, signal: Any, ctx: Any) -> ToolResult:
        from omp_tool_search.answers import coerce_tree
        from omp_tool_search.tools import _Aborted, run_search

        query = {"path": params.path, "depth": params.depth, "limit": params.limit}
        try:
            answer = coerce_tree(await run_search(ctx, "tree", query, signal))
        except _Aborted:
            return ToolResult.error("ls aborted.")
        if answer.error:
            return ToolResult.error(answer.error)
        details = {"path": answer.root, "entries": len(answer.lines), "total": answer.total}
        if not answer.lines:
            return ToolResult.text(f"{params.path or '.'} is an empty folder.", details)
        text = "\n".join(answer.lines)
        if answer.total > len(answer.lines):
            text += (
                f"\n\n[showing {len(answer.lines)} of {answer.total} entries; raise limit, "
                "lower depth or list a subfolder]"
            )
        return ToolResult.text(text, details)
