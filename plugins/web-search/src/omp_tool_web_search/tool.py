"""The ``web_search`` tool: omp's parameters, the model's own search or a configured
backend, numbered results."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from omp import AbortSignal, Tool, ToolResult, run_abortable
from pydantic import BaseModel, Field

from omp_tool_web_search.backends import Answer
from omp_tool_web_search.native import native_label, native_search
from omp_tool_web_search.search import SearchError, ask, configured, hide

DEFAULT_LIMIT = 10
MAX_LIMIT = 20
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 300.0
SHOWN_SNIPPET_CHARS = 240

DESCRIPTION = """Web search: current information beyond your knowledge cutoff.

- Prefer primary sources (papers, official docs); corroborate key claims with several sources.
- Link the sources you cite in your final answer.
- Never use it for content you can reach directly or known URLs (GitHub repos/issues, \
known papers, official docs): fetch the URL instead.
- `query` takes the usual operators: site:, -site:, "exact phrase", -term, OR."""


class WebSearchParams(BaseModel):
    query: str = Field(description="What to search for.")
    recency: Literal["day", "week", "month", "year"] | None = Field(
        default=None, description="Only results from the last day, week, month or year."
    )
    limit: int | None = Field(
        default=None,
        description=f"How many results to return (default {DEFAULT_LIMIT}, max {MAX_LIMIT}).",
    )


class WebSearchTool(Tool):
    name = "web_search"
    label = "Web Search"
    network = True
    description = DESCRIPTION
    parameters = WebSearchParams

    def __init__(
        self, *, urls: Mapping[str, str] | None = None, env: Mapping[str, str] | None = None
    ) -> None:
        """``urls`` replaces backends' API URLs (a proxy, a test's stand-in); ``env``
        replaces the process environment the keys and SEARXNG_URL are read from."""
        super().__init__()
        self.urls = dict(urls or {})
        self.env = env

    async def execute(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        query = params.query.strip()
        details: dict[str, Any] = {"query": query}
        if not query:
            return ToolResult.error("web_search: the query is empty.", details)
        limit = min(max(params.limit or DEFAULT_LIMIT, 1), MAX_LIMIT)
        settings = ctx.settings
        timeout = float(settings.get("webSearch.timeoutSeconds") or DEFAULT_TIMEOUT)
        timeout = min(max(timeout, 1.0), MAX_TIMEOUT)
        choice = str(settings.get("webSearch.provider") or "auto")
        failures: list[str] = []
        if choice == "native" or (choice == "auto" and native_label(ctx.model)):
            label = native_label(ctx.model)
            if label is None:
                model = ctx.model.key if ctx.model is not None else "none"
                return ToolResult.error(
                    f"web_search: webSearch.provider is native but the current model "
                    f"({model}) cannot search the web itself "
                    "(Anthropic, OpenAI Responses and Gemini models can).",
                    details,
                )
            if on_update is not None:
                on_update(f"Searching the web with {ctx.model.key} for {query}")
            found = await _ask_native(label, timeout, ctx, query, params.recency, signal)
            if isinstance(found, Answer):
                return _found(found, "native", limit, details)
            if found is None:
                return ToolResult.error("web_search was aborted.", details)
            if choice == "native":
                return ToolResult.error("web_search failed: " + found, details)
            failures.append(found)
        try:
            candidates = configured(settings, self.env or os.environ, self.urls)
        except SearchError as exc:
            if failures:
                return ToolResult.error("web_search failed: " + "; ".join(failures), details)
            return ToolResult.error(str(exc), details)
        for backend, access in candidates:
            if access.key:
                ctx.api.register_secret(access.key, backend.secret)
            if on_update is not None:
                on_update(f"Searching {backend.label} for {query}")
            outcome: list[Answer | str] = []
            work = _attempt(outcome, backend, access, query, params.recency, limit, timeout)
            failure = await run_abortable(work, signal or AbortSignal())
            if failure == "aborted":
                return ToolResult.error("web_search was aborted.", details)
            result = outcome[0] if outcome else f"{backend.label} failed ({failure})"
            if isinstance(result, str):
                failures.append(hide(result, access))
                continue
            return _found(result, backend.name, limit, details)
        return ToolResult.error("web_search failed: " + "; ".join(failures), details)


def _found(result: Answer, provider: str, limit: int, details: dict[str, Any]) -> ToolResult:
    hits = result.hits[:limit]
    details.update(provider=provider, results=[vars(h) for h in hits])
    if result.answer:
        details["answer"] = result.answer
    return ToolResult.text(format_answer(result, limit), details)


async def _ask_native(
    label: str, timeout: float, ctx: Any, query: str, recency: str | None, signal: Any
) -> Answer | str | None:
    """The session model's own search: its answer, why it failed, or None when aborted."""
    import asyncio

    outcome: list[Answer | str] = []

    async def attempt() -> None:
        try:
            async with asyncio.timeout(timeout):
                outcome.append(await native_search(ctx, query, recency, signal))
        except SearchError as exc:
            outcome.append(str(exc))
        except TimeoutError:
            outcome.append(f"{label} web search did not answer within {timeout:g} s")

    failure = await run_abortable(attempt(), signal or AbortSignal())
    if failure == "aborted":
        return None
    return outcome[0] if outcome else f"{label} web search failed ({failure})"


async def _attempt(outcome: list[Answer | str], backend: Any, access: Any, *args: Any) -> None:
    """Ask one backend; its answer, or why it failed (a line), lands in ``outcome``."""
    try:
        answer = await ask(backend, access, *args)
    except SearchError as exc:
        outcome.append(str(exc))
        return
    if not answer.hits and not answer.answer:
        outcome.append(f"{backend.label} found nothing for this query")
    else:
        outcome.append(answer)


def format_answer(answer: Answer, limit: int) -> str:
    """omp's layout: the written answer (if any), then ``[n] Title (date)``, the URL and
    the snippet of each hit, indented."""
    parts: list[str] = []
    hits = answer.hits[:limit]
    if answer.answer:
        parts.append(answer.answer)
        if hits:
            parts.append("\n## Sources")
    for n, hit in enumerate(hits, 1):
        date = f" ({hit.date})" if hit.date else ""
        parts.append(f"[{n}] {hit.title}{date}\n    {hit.url}")
        if hit.snippet:
            parts.append(f"    {_cut(hit.snippet)}")
    return "\n".join(parts)


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_SNIPPET_CHARS else text[: SHOWN_SNIPPET_CHARS - 1] + "…"
