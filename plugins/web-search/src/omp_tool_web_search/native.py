"""The provider's own web search: one ``omp.complete`` call to the session's model with
the provider's hosted search tool added to the request body (Anthropic's
``web_search_20250305`` server tool, OpenAI Responses' ``web_search``, Gemini's
``google_search`` grounding). The results are the search's hits (title, URL, page age),
each with the passage the model cited from it, and the model's cited answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omp_tool_web_search.backends import Answer, Hit
from omp_tool_web_search.search import SearchError


@dataclass(frozen=True)
class Hosted:
    """A provider's hosted search: the tool to add to the body, ``include`` entries
    (OpenAI: to get the sources back), and whether the search's block comes after the
    answer it grounds (Gemini: the whole text is the answer; the others' text before
    the search is a preamble)."""

    label: str
    tool: dict[str, Any]
    include: tuple[str, ...] = field(default=())
    search_last: bool = False


NATIVE: dict[str, Hosted] = {
    "anthropic-messages": Hosted(
        "Anthropic", {"type": "web_search_20250305", "name": "web_search"}
    ),
    "openai-responses": Hosted(
        "OpenAI", {"type": "web_search"}, ("web_search_call.action.sources",)
    ),
    "google-generative-ai": Hosted("Gemini", {"google_search": {}}, search_last=True),
}
"""The model APIs whose provider searches the web itself."""
MAX_TOKENS = 4096
SYSTEM = (
    "Search the web for the user's query and answer it briefly from what you find, "
    "citing your sources."
)
RECENCY_HINT = {
    "day": "the last day",
    "week": "the last week",
    "month": "the last month",
    "year": "the last year",
}


def native_label(model: Any) -> str | None:
    """Who searches natively for ``model`` ("Anthropic"), or None when its API cannot."""
    hosted = NATIVE.get(model.api) if model is not None else None
    return hosted.label if hosted else None


async def native_search(ctx: Any, query: str, recency: str | None, signal: Any) -> Answer:
    """The session model's own search for ``query``; SearchError with a one-line reason."""
    from omp import OmpError, ServerToolContent, Settings, TextContent, complete

    hosted = NATIVE[ctx.model.api]

    async def add_server_tool(payload: dict[str, Any]) -> dict[str, Any]:
        payload["tools"] = [*(payload.get("tools") or []), dict(hosted.tool)]
        if hosted.include:
            payload["include"] = [*(payload.get("include") or []), *hosted.include]
        return payload

    prompt = query if not recency else f"{query}\n\n(Only sources from {RECENCY_HINT[recency]}.)"
    settings = ctx.settings
    try:
        message = await complete(
            ctx.model,
            [prompt],
            system=SYSTEM,
            signal=signal,
            max_tokens=min(MAX_TOKENS, ctx.model.max_tokens),
            registry=ctx.model_registry,
            settings=settings.data if isinstance(settings, Settings) else dict(settings),
            on_payload=add_server_tool,
        )
    except OmpError as exc:
        raise SearchError(f"{hosted.label} web search is not available: {exc}") from None
    if message.stop_reason in ("error", "aborted"):
        reason = " ".join((message.error_message or message.stop_reason).split())
        raise SearchError(f"{hosted.label} web search failed: {reason}")
    searches = [b for b in message.content if isinstance(b, ServerToolContent)]
    first = message.content.index(searches[0]) if searches and not hosted.search_last else 0
    texts = [b for b in message.content[first:] if isinstance(b, TextContent)]
    cited: dict[str, Any] = {}
    for text in texts:
        for citation in text.citations or ():
            if citation.url:
                cited.setdefault(citation.url, citation)  # the first passage cited
    rows: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    for search in searches:
        result = search.result
        if isinstance(result, dict) and result.get("error_code"):
            problems.append(str(result["error_code"]))
        for row in result if isinstance(result, list) else ():
            if isinstance(row, dict) and isinstance(row.get("url"), str):
                rows.setdefault(row["url"], row)
    for url, citation in cited.items():
        rows.setdefault(url, {"url": url, "title": citation.title})
    hits = [_hit(row, cited) for row in rows.values()]
    answer = "".join(t.text for t in texts).strip()
    if not hits and not answer:
        reason = f" ({', '.join(problems)})" if problems else ""
        raise SearchError(f"{hosted.label} web search found nothing for this query{reason}")
    return Answer(hits, answer)


def _hit(row: dict[str, Any], cited: dict[str, Any]) -> Hit:
    url = str(row["url"])
    citation = cited.get(url)
    title = row.get("title") or (citation.title if citation else None) or url
    snippet = (citation.cited_text or "") if citation else ""
    return Hit(
        title=" ".join(str(title).split()),
        url=url,
        snippet=" ".join(snippet.split()),
        date=str(row.get("page_age") or ""),
    )
