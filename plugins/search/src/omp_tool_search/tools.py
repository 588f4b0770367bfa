"""The ``find`` and ``grep`` tools: they ask ``ctx.search`` (the ``omp_search`` hook, so
any backend can answer) and turn the answer into text for the model."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from typing import Any, Literal

from omp import Tool, ToolResult, tool_cwd
from pydantic import BaseModel, Field, field_validator

from omp_tool_search.answers import GrepAnswer, coerce_find, coerce_grep

FIND_LIMIT = 1000
GREP_LIMIT = 100
MAX_LINE_CHARS = 500
IGNORE_HINT = "(.gitignore/.ignore rules apply; .git is skipped)"


class _Aborted(Exception):
    pass


class _NoStop:
    """Stands for the worker thread's stop event where no worker thread runs."""

    def set(self) -> None:
        return None


_NO_STOP = _NoStop()


async def run_search(
    ctx: Any, kind: str, params: dict[str, Any], signal: Any, on_partial: Any = None
) -> Any:
    """The backend's answer through ``ctx.search``; _Aborted if the signal fires first.
    A ctx without ``search`` (a tool used outside a session) gets the built-in backend.
    ``on_partial``: see SearchEvent."""
    stop = _NO_STOP  # the built-in backend's stop, when it runs here in a worker thread
    if getattr(ctx, "search", None) is not None:
        extra = {"on_partial": on_partial} if on_partial is not None else {}
        work = ctx.search(kind, **extra, **params)
    else:
        from omp_tool_search import backend

        stop = threading.Event()

        try:
            settings = getattr(ctx, "settings", None)
            timeout = backend.regex_timeout(settings) if kind == "grep" else None
        except backend.SearchError as exc:
            return backend.error_answer(kind, str(exc))
        work = asyncio.to_thread(
            backend.search, kind, params, tool_cwd(ctx), stop, timeout, on_partial
        )
    if signal is None:
        try:
            return await work
        except asyncio.CancelledError:
            stop.set()
            raise
    if signal.aborted:
        work.close()
        raise _Aborted
    # An abort cancels this task, where the search runs (no task of its own to start and
    # wait for); the cancellation reaches the backend hook, whose walk stops.
    loop = asyncio.get_running_loop()
    current = asyncio.current_task()
    state = {"over": False, "cancelled": False}

    def cancel() -> None:  # on the loop: only while the search still runs
        if not state["over"] and current is not None:
            state["cancelled"] = True
            current.cancel()

    def on_abort() -> None:  # from whichever thread aborted the run
        stop.set()
        with contextlib.suppress(RuntimeError):  # the loop is closed: the call is long over
            loop.call_soon_threadsafe(cancel)

    signal.add_listener(on_abort)
    try:
        return await work
    except asyncio.CancelledError:
        stop.set()
        if state["cancelled"] and current is not None and current.uncancel() == 0:
            raise _Aborted from None  # nobody else cancelled this task: only the abort
        raise
    finally:
        state["over"] = True
        signal.remove_listener(on_abort)


def shown_root(root: str, cwd: str) -> str:
    """How a search root is written in results: relative to cwd when inside it."""
    if not root or root == cwd:
        return ""
    rel = os.path.relpath(root, cwd)
    if rel == ".":
        return ""
    if rel == ".." or rel.startswith(".." + os.sep):
        return root.rstrip(os.sep) + "/"
    return rel.replace(os.sep, "/") + "/"


def cut(text: str) -> str:
    if len(text) <= MAX_LINE_CHARS:
        return text
    return f"{text[:MAX_LINE_CHARS]}... [{len(text) - MAX_LINE_CHARS} more chars]"


class FindParams(BaseModel):
    pattern: str = Field(
        description="Glob: `*.md` matches at any depth; `src/*.ts`, `**/*.py` match the "
        "path under `path`"
    )
    path: str | None = Field(default=None, description="Folder to search (default: cwd)")
    limit: int = Field(default=FIND_LIMIT, ge=1, description="Most paths to list")


class FindTool(Tool):
    name = "find"
    label = "Find"
    description = (
        "Find files by glob pattern. Honours .gitignore/.ignore, skips .git. Returns "
        "sorted paths (folders end in /)."
    )
    parameters = FindParams

    async def execute(self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any):
        try:
            answer = coerce_find(await run_search(ctx, "find", params.model_dump(), signal))
        except _Aborted:
            return ToolResult.error("find aborted.")
        if answer.error:
            return ToolResult.error(answer.error)
        where = params.path or "."
        details = {"root": answer.root, "total": answer.total, "shown": len(answer.paths)}
        if not answer.paths:
            text = f"No files found matching {params.pattern!r} in {where} {IGNORE_HINT}"
            return ToolResult.text(text, details)
        prefix = shown_root(answer.root, tool_cwd(ctx))
        text = "\n".join(prefix + p for p in answer.paths)
        if answer.total > len(answer.paths):
            shown = f"{len(answer.paths)} of {answer.total}"
            text += f"\n\n[showing {shown} matches; narrow the pattern]"
        return ToolResult.text(text, details)


class GrepParams(BaseModel):
    pattern: str = Field(description="Regex (Python syntax), or text with literal=true")
    path: str | None = Field(default=None, description="File or folder (default: cwd)")
    glob: str | None = Field(default=None, description="Only files matching, e.g. `*.py`")
    type: str | None = Field(
        default=None,
        description="File type: py js ts rust go java c cpp md json yaml toml sh html css",
    )
    ignoreCase: bool = Field(default=False, description="Case-insensitive")
    literal: bool = Field(default=False, description="Pattern is plain text, not a regex")
    context: int = Field(default=0, ge=0, le=100, description="Lines before/after each match")
    limit: int = Field(
        default=GREP_LIMIT, ge=1, description="Most matching lines (content) or files"
    )
    outputMode: Literal["content", "files", "count"] = Field(
        default="content",
        description="content: path:line:text; files: matching paths; count: path:count",
    )

    @field_validator("outputMode", mode="before")
    @classmethod
    def _legacy_mode(cls, value: Any) -> Any:
        return "files" if value == "files_with_matches" else value


class GrepTool(Tool):
    name = "grep"
    label = "Grep"
    description = (
        "Search file contents with a regex. Honours .gitignore/.ignore, skips .git and "
        f"binary files; lines cut at {MAX_LINE_CHARS} chars."
    )
    parameters = GrepParams

    async def execute(self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any):
        feed = None
        if on_update is not None:
            from omp_tool_search.partial import PartialGrep, partial_root

            def show(partial: GrepAnswer) -> str:  # only once results come before the end
                cwd = tool_cwd(ctx)
                prefix = shown_root(partial_root(params.path, cwd), cwd)
                return format_grep(partial, prefix, params.context > 0)

            feed = PartialGrep(on_update, params.outputMode, show).feed
        try:
            raw = await run_search(ctx, "grep", params.model_dump(), signal, feed)
            answer = coerce_grep(raw)
        except _Aborted:
            return ToolResult.error("grep aborted.")
        if answer.error:
            return ToolResult.error(answer.error)
        details = {
            "root": answer.root,
            "matches": answer.matches,
            "files": answer.files_matched,
            "searched": answer.files_searched,
            "truncated": answer.truncated,
            "skippedBinary": answer.skipped_binary,
            "skippedLarge": answer.skipped_large,
        }
        body = format_grep(answer, shown_root(answer.root, tool_cwd(ctx)), params.context > 0)
        if not body:
            where = params.path or "."
            text = f"No matches found for {params.pattern!r} in {where} {IGNORE_HINT}"
            return ToolResult.text(text, details)
        notes = []
        if answer.truncated:
            what = "matches" if answer.mode == "content" else "files"
            notes.append(
                f"[stopped at the limit of {params.limit} {what}; more exist. Narrow the "
                "pattern, path, glob or type, or raise limit]"
            )
        if answer.skipped_large:
            notes.append(f"[{answer.skipped_large} file(s) over 4 MiB not searched]")
        return ToolResult.text("\n\n".join([body, *notes]), details)


def format_grep(answer: GrepAnswer, prefix: str, grouped: bool) -> str:
    """rg's layout: ``path:line:text`` for matches, ``path-line-text`` for context lines,
    ``--`` between groups that are not adjacent (only when context was asked for)."""
    if answer.mode == "files":
        return "\n".join(prefix + path for path in answer.files)
    if answer.mode == "count":
        return "\n".join(f"{prefix}{path}:{count}" for path, count in answer.counts)
    if not grouped:  # the common case, kept to one comprehension: it runs on every grep
        return "\n".join(
            [
                f"{prefix}{line.path}{(sep := ':' if line.match else '-')}{line.line}{sep}"
                f"{line.text if len(line.text) <= MAX_LINE_CHARS else cut(line.text)}"
                for line in answer.lines
            ]
        )
    out: list[str] = []
    previous: tuple[str, int] | None = None
    for line in answer.lines:
        if previous is not None and previous != (line.path, line.line - 1):
            out.append("--")
        sep = ":" if line.match else "-"
        out.append(f"{prefix}{line.path}{sep}{line.line}{sep}{cut(line.text)}")
        previous = (line.path, line.line)
    return "\n".join(out)
