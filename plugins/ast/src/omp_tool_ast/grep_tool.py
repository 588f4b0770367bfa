"""The ``ast_grep`` tool: structural search with an ast-grep pattern over files, folders
or globs; matches grouped by file with their line numbers and captures, paged by
``skip`` and ``limit``."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from typing import Any

from omp import Tool, ToolResult, resolve_path, tool_cwd
from pydantic import BaseModel, Field

from omp_tool_ast.engine import Match, Pattern, PatternError, find
from omp_tool_ast.languages import LanguageError, language_named
from omp_tool_ast.output import grouped, match_lines, plural
from omp_tool_ast.scope import ScopeError, Target, split_paths, targets
from omp_tool_ast.source import read_source

DEFAULT_LIMIT = 50


class AstGrepParams(BaseModel):
    pat: str = Field(description="ast pattern")
    path: str | None = Field(
        default=None,
        description="file, directory or glob to search; several as a semicolon-delimited "
        'list ("src; tests"). Omitted -> the working directory',
    )
    lang: str | None = Field(
        default=None, description="language override, e.g. cpp for ambiguous .h files"
    )
    skip: int = Field(default=0, ge=0, description="matches to skip")
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, description="most matches to show")


@dataclass
class Found:
    """What a search found: every match counted, the first ``skip + limit`` kept."""

    keep: int
    shown: dict[str, list[Match]] = field(default_factory=dict)
    total: int = 0
    files_matched: int = 0
    files_searched: int = 0
    issues: list[str] = field(default_factory=list)

    def add(self, target: Target, matches: list[Match]) -> None:
        self.total += len(matches)
        self.files_matched += 1
        room = self.keep - sum(len(m) for m in self.shown.values())
        if room > 0:
            self.shown[target.shown] = matches[:room]


def search(files: list[Target], pattern: Pattern, keep: int, signal: Any) -> Found:
    found = Found(keep)
    failed: set[str] = set()
    for target in files:
        if signal is not None and signal.aborted:
            break
        if target.lang in failed:
            continue
        text = read_source(target.path)
        if text is None:
            continue
        found.files_searched += 1
        try:
            matches = find(text, target.lang, pattern)
        except PatternError as exc:
            failed.add(target.lang)
            found.issues.append(str(exc))
            continue
        if matches:
            found.add(target, matches)
    return found


class AstGrepTool(Tool):
    name = "ast_grep"
    label = "AST Grep"
    description = (
        "Structural code search via ast-grep: `pat` is one AST pattern, matched by syntax "
        "shape, not text. `$NAME` captures one node, `$_` matches one without binding, "
        "`$$$NAME` zero or more (never `$$NAME`); names are UPPERCASE; the same "
        "meta-variable twice must match identical code. The language comes from each "
        "file's extension (or `lang`). Honours .gitignore. Results are grouped by file: "
        "`*LINE|text`, then `meta:` with the captures. Narrow `path` rather than "
        "scanning the whole repository."
    )
    parameters = AstGrepParams
    read_only = True

    async def execute(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        try:
            pattern = Pattern.parse(params.pat)
            lang = language_named(params.lang) if params.lang else None
            files = await targets(ctx, split_paths(params.path), lang)
        except (PatternError, LanguageError, ScopeError) as exc:
            return ToolResult.error(str(exc))
        keep = params.skip + params.limit
        found = await asyncio.to_thread(search, files, pattern, keep, signal)
        if signal is not None and signal.aborted:
            return ToolResult.error("ast_grep aborted.")
        paths = split_paths(params.path)
        single = len(paths) == 1 and os.path.isfile(resolve_path(paths[0], tool_cwd(ctx)))
        return _result(found, params, len(files), single)


def _result(found: Found, params: Any, candidates: int, single: bool) -> ToolResult:
    details: dict[str, Any] = {
        "matchCount": found.total,
        "fileCount": found.files_matched,
        "filesSearched": found.files_searched,
        "limitReached": found.total > params.skip + params.limit,
        "fileMatches": [],
    }
    issues = [f"Parse issues: {issue}" for issue in found.issues]
    if found.issues and found.files_matched == 0:
        return ToolResult.error("\n".join(issues), details)
    if found.total == 0:
        where = "" if candidates else " (no source files in a known language in scope)"
        return ToolResult.text(f"No matches found{where}", details)
    page: dict[str, list[Match]] = {}
    skipped = 0
    for name, matches in found.shown.items():
        kept = matches[max(0, params.skip - skipped) :]
        skipped += len(matches) - len(kept)
        if kept:
            page[name] = kept
    details["fileMatches"] = [{"path": n, "count": len(m)} for n, m in page.items()]
    files = list(page)
    if single:
        lines = [line for m in page[files[0]] for line in match_lines(m)]
    else:
        lines = grouped(files, lambda n: [x for m in page[n] for x in match_lines(m)])
    shown = sum(len(m) for m in page.values())
    rest = found.total - params.skip - shown
    if not page:
        lines = [
            f"No matches after skipping {params.skip}; there are {plural(found.total, 'match')}."
        ]
    elif rest > 0:
        lines += [
            "",
            f"{plural(rest, 'more match')} not shown ({plural(found.total, 'match')} in "
            f"{plural(found.files_matched, 'file')}); narrow path, or pass "
            f"skip={params.skip + shown} for the next page.",
        ]
    if issues:
        lines += ["", *issues]
    return ToolResult.text("\n".join(lines), details)
