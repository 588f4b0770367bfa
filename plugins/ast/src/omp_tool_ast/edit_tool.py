"""The ``ast_edit`` tool: rewrite what ast-grep patterns match with templates. A call
previews (a unified diff per file) unless ``apply`` is true; either way every rewritten
file must still parse in its language, else the whole edit is refused naming the file,
and nothing is written. Files are written one by one, each atomically."""

from __future__ import annotations

import asyncio
import difflib
from dataclasses import dataclass, field
from typing import Any

from omp import Tool, ToolResult
from pydantic import BaseModel, Field

from omp_tool_ast.engine import Pattern, PatternError, parse_problem, rewrite
from omp_tool_ast.languages import LanguageError, language_named
from omp_tool_ast.output import plural
from omp_tool_ast.scope import ScopeError, Target, split_paths, targets
from omp_tool_ast.source import read_source, write_source

MAX_DIFF_LINES = 400
"""Diff lines shown to the model per call; the full diff is in the result's details."""


class AstEditOp(BaseModel):
    pat: str = Field(description="ast pattern")
    out: str = Field(description="replacement template ($NAME, $$$NAME from pat; empty deletes)")


class AstEditParams(BaseModel):
    ops: list[AstEditOp] = Field(min_length=1, description="rewrite ops, applied in order")
    paths: list[str] = Field(min_length=1, description="files, directories or globs to rewrite")
    lang: str | None = Field(default=None, description="language override")
    apply: bool = Field(
        default=False,
        description="write the files; false (the default) only previews the diff",
    )


@dataclass
class Change:
    target: Target
    before: str
    after: str
    count: int


@dataclass
class Plan:
    changes: list[Change] = field(default_factory=list)
    files_searched: int = 0
    issues: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(c.count for c in self.changes)


def plan(files: list[Target], ops: list[tuple[Pattern, str]], signal: Any) -> Plan:
    result = Plan()
    failed: set[tuple[str, str]] = set()
    for target in files:
        if signal is not None and signal.aborted:
            break
        before = read_source(target.path)
        if before is None:
            continue
        result.files_searched += 1
        after, count = before, 0
        for pattern, template in ops:
            if (target.lang, pattern.source) in failed:
                continue
            try:
                after, matches = rewrite(after, target.lang, pattern, template)
            except PatternError as exc:
                failed.add((target.lang, pattern.source))
                result.issues.append(str(exc))
                continue
            count += len(matches)
        if count and after != before:
            result.changes.append(Change(target, before, after, count))
    return result


def unparsable(changes: list[Change]) -> tuple[Change, str] | None:
    for change in changes:
        problem = parse_problem(change.after, change.target.lang)
        if problem is not None:
            return change, problem
    return None


def diff(change: Change) -> str:
    name = change.target.shown
    lines = difflib.unified_diff(
        change.before.splitlines(keepends=True),
        change.after.splitlines(keepends=True),
        f"a/{name}",
        f"b/{name}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


class AstEditTool(Tool):
    name = "ast_edit"
    label = "AST Edit"
    description = (
        "Structural rewrite via ast-grep, for codemods where text replacement is unsafe. "
        "Each op's `pat` is an AST pattern; its meta-variables ($A, $$$ARGS) go into "
        "`out` (empty `out` deletes the match). Each file is parsed in its own language "
        "(extension, or `lang`). Without apply=true the call only previews a unified "
        "diff; call again with apply=true to write. An edit that would leave any file "
        "unparsable is refused whole. For one-off text edits, prefer the edit tool."
    )
    parameters = AstEditParams

    async def execute(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        try:
            ops = _ops(params.ops)
            lang = language_named(params.lang) if params.lang else None
            files = await targets(ctx, split_paths(params.paths), lang)
        except (PatternError, LanguageError, ScopeError) as exc:
            return ToolResult.error(str(exc))
        result = await asyncio.to_thread(plan, files, ops, signal)
        if signal is not None and signal.aborted:
            return ToolResult.error("ast_edit aborted; no file was changed.")
        issues = [f"Parse issues: {issue}" for issue in result.issues]
        details: dict[str, Any] = {
            "totalReplacements": result.total,
            "filesTouched": len(result.changes),
            "filesSearched": result.files_searched,
            "applied": False,
            "fileReplacements": [
                {"path": c.target.shown, "count": c.count} for c in result.changes
            ],
        }
        if not result.changes:
            text = "\n".join(["No replacements made", *issues])
            return ToolResult.error(text, details) if issues else ToolResult.text(text, details)
        broken = await asyncio.to_thread(unparsable, result.changes)
        if broken is not None:
            change, problem = broken
            return ToolResult.error(
                f"Refused: after the rewrite {change.target.shown} would not parse as "
                f"{change.target.lang} ({problem}); no file was changed.\n\n{diff(change)}",
                details,
            )
        diffs = [diff(change) for change in result.changes]
        details["diff"] = "".join(diffs)
        summary = f"{plural(result.total, 'replacement')} in {plural(len(result.changes), 'file')}"
        if not params.apply:
            head = (
                f"Preview (not applied): {summary}. Call ast_edit again with apply=true to write."
            )
            return ToolResult.text("\n".join([head, "", _bounded(diffs), *issues]), details)
        written: list[str] = []
        for change in result.changes:
            try:
                write_source(change.target.path, change.after)
            except OSError as exc:
                done = ", ".join(written) or "none"
                return ToolResult.error(
                    f"Cannot write {change.target.shown}: {exc.strerror or exc}. "
                    f"Already written: {done}; the others are unchanged.",
                    details,
                )
            written.append(change.target.shown)
        details["applied"] = True
        listing = [f"{c.target.shown}: {plural(c.count, 'replacement')}" for c in result.changes]
        return ToolResult.text("\n".join([f"Applied {summary}.", *listing, *issues]), details)


def _ops(raw: list[Any]) -> list[tuple[Pattern, str]]:
    ops: list[tuple[Pattern, str]] = []
    seen: set[str] = set()
    for index, op in enumerate(raw):
        try:
            pattern = Pattern.parse(op.pat)
            pattern.check_template(op.out)
        except PatternError as exc:
            raise PatternError(f"ops[{index}]: {exc}") from None
        if pattern.source in seen:
            raise PatternError(f"Duplicate rewrite pattern: {pattern.source}")
        seen.add(pattern.source)
        ops.append((pattern, op.out))
    return ops


def _bounded(diffs: list[str]) -> str:
    lines = "".join(diffs).splitlines()
    if len(lines) <= MAX_DIFF_LINES:
        return "\n".join(lines)
    rest = len(lines) - MAX_DIFF_LINES
    return "\n".join([*lines[:MAX_DIFF_LINES], f"... {rest:,} more diff lines (in details.diff)"])
