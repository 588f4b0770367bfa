"""Gemini's Google Search grounding (``groundingMetadata`` on a streamed candidate) as
omp's blocks: the search as a ``ServerToolContent`` named ``google_search`` (``input``:
the queries Gemini ran, ``result``: the web sources as ``{"url", "title"}`` rows) and
each grounding support as a ``Citation`` (the supported segment as ``cited_text``) on the
text block it supports. Kept for the record and for the caller (web_search's native
path); the converter sends only text back, so none of it reaches Gemini again."""

from __future__ import annotations

from typing import Any

from omp import AssistantMessage, Citation, ServerToolContent, TextContent


class Grounding:
    """The grounding metadata of one response, gathered chunk by chunk (Gemini may send
    it on more than one chunk: sources are kept once by URL, citations once each)."""

    def __init__(self) -> None:
        self.seen = False
        self.queries: list[str] = []
        self.sources: dict[str, str | None] = {}  # url -> title
        self.citations: list[Citation] = []

    def add(self, meta: Any) -> None:
        """Take one candidate's ``groundingMetadata``."""
        if not isinstance(meta, dict):
            return
        self.seen = True
        for query in meta.get("webSearchQueries") or ():
            if isinstance(query, str) and query not in self.queries:
                self.queries.append(query)
        chunks = [_web(c) for c in meta.get("groundingChunks") or ()]
        for web in chunks:
            if web:
                self.sources.setdefault(web[0], web[1])
        for support in meta.get("groundingSupports") or ():
            if isinstance(support, dict):
                self._support(support, chunks)

    def _support(
        self, support: dict[str, Any], chunks: list[tuple[str, str | None] | None]
    ) -> None:
        segment = support.get("segment")
        text = segment.get("text") if isinstance(segment, dict) else None
        text = text if isinstance(text, str) else None
        for index in support.get("groundingChunkIndices") or ():
            web = chunks[index] if isinstance(index, int) and 0 <= index < len(chunks) else None
            if web is None:
                continue
            citation = Citation(
                type="grounding_support", url=web[0], title=web[1], cited_text=text or None
            )
            if citation not in self.citations:
                self.citations.append(citation)

    def apply(self, message: AssistantMessage) -> None:
        """Add the search block to ``message`` and its citations to the text blocks they
        support (the one holding the segment, else the last)."""
        if not self.seen:
            return
        texts = [b for b in message.content if isinstance(b, TextContent)]
        for citation in self.citations:
            where = [t for t in texts if citation.cited_text and citation.cited_text in t.text]
            target = where[0] if where else (texts[-1] if texts else None)
            if target is not None:
                target.citations = [*(target.citations or []), citation]
        rows = [{"url": url, "title": title} for url, title in self.sources.items()]
        message.content.append(
            ServerToolContent(
                id="google_search",
                name="google_search",
                input={"queries": self.queries},
                result=rows,
            )
        )


def _web(chunk: Any) -> tuple[str, str | None] | None:
    """A grounding chunk's web source as (uri, title), or None for any other kind."""
    web = chunk.get("web") if isinstance(chunk, dict) else None
    if not isinstance(web, dict) or not isinstance(web.get("uri"), str) or not web["uri"]:
        return None
    title = web.get("title")
    return web["uri"], title if isinstance(title, str) and title else None
