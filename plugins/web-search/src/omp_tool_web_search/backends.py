"""The search backends: where each is configured, the request it makes for a query, and
how its JSON answer becomes hits. No I/O here (``search.py`` sends the requests)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

Recency = str
"""day, week, month or year."""


class Settings(Protocol):
    """What is read of ``omp.Settings``."""

    def get(self, key: str, default: Any = None) -> Any: ...


SNIPPET_CHARS = 2000


@dataclass(frozen=True)
class Hit:
    """One search result as the model sees it."""

    title: str
    url: str
    snippet: str = ""
    date: str = ""


@dataclass(frozen=True)
class Answer:
    """What a backend found: its hits and, for some (Tavily), a short written answer."""

    hits: list[Hit]
    answer: str = ""


@dataclass(frozen=True)
class Access:
    """Where a configured backend is reached: its API URL and key (None: no key)."""

    url: str
    key: str | None = None


@dataclass(frozen=True)
class Request:
    method: str
    url: str
    params: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    json: dict[str, Any] | None = None


@dataclass(frozen=True)
class Backend:
    """One search engine's API. ``locate`` says where it is configured (None: not
    configured); ``needs`` names what a user sets to configure it, ``secret`` the
    variable its key comes from."""

    name: str
    label: str
    needs: str
    secret: str
    locate: Callable[[Settings, Mapping[str, str]], Access | None]
    build: Callable[[Access, str, Recency | None, int], Request]
    parse: Callable[[Any], Answer]


def _text(value: Any, limit: int = SNIPPET_CHARS) -> str:
    """Plain text of a JSON field: tags dropped, whitespace folded, cut at ``limit``."""
    if not isinstance(value, str):
        return ""
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]*>", " ", value)).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _rows(data: Any, key: str) -> list[dict[str, Any]]:
    """The objects in the JSON list ``data[key]`` (nothing when the shape is otherwise)."""
    rows = data.get(key) if isinstance(data, dict) else None
    return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []


def _hits(rows: list[dict[str, Any]], title: str, url: str, snippet: str, date: str) -> list[Hit]:
    """Hits from result objects, given the field names the API uses."""
    hits: list[Hit] = []
    for row in rows:
        link = row.get(url)
        if not isinstance(link, str) or not link.startswith(("http://", "https://")):
            continue
        hits.append(
            Hit(
                title=_text(row.get(title), 300) or link,
                url=link,
                snippet=_text(row.get(snippet)),
                date=_text(row.get(date), 100),
            )
        )
    return hits


def _key(env_name: str, url: str) -> Callable[[Settings, Mapping[str, str]], Access | None]:
    def locate(settings: Settings, env: Mapping[str, str]) -> Access | None:
        key = (env.get(env_name) or "").strip()
        return Access(url, key) if key else None

    return locate


# SearXNG: https://docs.searxng.org/dev/search_api.html (JSON output must be enabled).
SEARXNG_TIME_RANGE = {"day": "day", "week": "month", "month": "month", "year": "year"}
"""SearXNG knows day, month and year only: a week asks for the month."""


def _searxng_locate(settings: Settings, env: Mapping[str, str]) -> Access | None:
    base = (
        settings.get("webSearch.searxngUrl")
        or env.get("SEARXNG_URL")
        or env.get("SEARXNG_ENDPOINT")
        or ""
    ).strip()
    if not base:
        return None
    token = (env.get("SEARXNG_TOKEN") or "").strip() or None
    return Access(base.rstrip("/") + "/search", token)


def _searxng_build(access: Access, query: str, recency: Recency | None, limit: int) -> Request:
    params = {"q": query, "format": "json", "pageno": "1"}
    if recency:
        params["time_range"] = SEARXNG_TIME_RANGE[recency]
    headers = {"Accept": "application/json"}
    if access.key:
        headers["Authorization"] = f"Bearer {access.key}"
    return Request("GET", access.url, params=params, headers=headers)


def _searxng_parse(data: Any) -> Answer:
    rows = [
        {
            **r,
            "content": r.get("content") or r.get("snippet"),
            "publishedDate": r.get("publishedDate") or r.get("published_date"),
        }
        for r in _rows(data, "results")
    ]
    return Answer(_hits(rows, "title", "url", "content", "publishedDate"))


# Brave: https://api-dashboard.search.brave.com/app/documentation/web-search
BRAVE_FRESHNESS = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}


def _brave_build(access: Access, query: str, recency: Recency | None, limit: int) -> Request:
    params = {"q": query, "count": str(limit), "text_decorations": "false"}
    if recency:
        params["freshness"] = BRAVE_FRESHNESS[recency]
    headers = {"Accept": "application/json", "X-Subscription-Token": access.key or ""}
    return Request("GET", access.url, params=params, headers=headers)


def _brave_parse(data: Any) -> Answer:
    web = data.get("web") if isinstance(data, dict) else None
    rows = [{**r, "page_age": r.get("page_age") or r.get("age")} for r in _rows(web, "results")]
    return Answer(_hits(rows, "title", "url", "description", "page_age"))


# Tavily: https://docs.tavily.com/documentation/api-reference/endpoint/search
def _tavily_build(access: Access, query: str, recency: Recency | None, limit: int) -> Request:
    body: dict[str, Any] = {
        "query": query,
        "search_depth": "basic",
        "max_results": limit,
        "include_answer": True,
    }
    if recency:
        body["time_range"] = recency
    headers = {"Authorization": f"Bearer {access.key}", "Content-Type": "application/json"}
    return Request("POST", access.url, headers=headers, json=body)


def _tavily_parse(data: Any) -> Answer:
    answer = data.get("answer") if isinstance(data, dict) else None
    return Answer(
        _hits(_rows(data, "results"), "title", "url", "content", "published_date"),
        answer.strip() if isinstance(answer, str) else "",
    )


# Exa: https://docs.exa.ai/reference/search
EXA_RECENCY_DAYS = {"day": 1, "week": 7, "month": 31, "year": 365}


def _exa_build(access: Access, query: str, recency: Recency | None, limit: int) -> Request:
    body: dict[str, Any] = {
        "query": query,
        "numResults": limit,
        "contents": {"highlights": True},
    }
    if recency:
        import datetime as dt

        since = dt.datetime.now(dt.UTC) - dt.timedelta(days=EXA_RECENCY_DAYS[recency])
        body["startPublishedDate"] = since.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    headers = {"x-api-key": access.key or "", "Content-Type": "application/json"}
    return Request("POST", access.url, headers=headers, json=body)


def _exa_parse(data: Any) -> Answer:
    rows = []
    for row in _rows(data, "results"):
        marks = row.get("highlights")
        text = " … ".join(m for m in marks if isinstance(m, str)) if isinstance(marks, list) else ""
        rows.append({**row, "snippet": text or row.get("summary") or row.get("text")})
    return Answer(_hits(rows, "title", "url", "snippet", "publishedDate"))


BACKENDS: dict[str, Backend] = {
    b.name: b
    for b in (
        Backend(
            "exa",
            "Exa",
            "EXA_API_KEY",
            "EXA_API_KEY",
            _key("EXA_API_KEY", "https://api.exa.ai/search"),
            _exa_build,
            _exa_parse,
        ),
        Backend(
            "tavily",
            "Tavily",
            "TAVILY_API_KEY",
            "TAVILY_API_KEY",
            _key("TAVILY_API_KEY", "https://api.tavily.com/search"),
            _tavily_build,
            _tavily_parse,
        ),
        Backend(
            "brave",
            "Brave",
            "BRAVE_API_KEY",
            "BRAVE_API_KEY",
            _key("BRAVE_API_KEY", "https://api.search.brave.com/res/v1/web/search"),
            _brave_build,
            _brave_parse,
        ),
        Backend(
            "searxng",
            "SearXNG",
            "SEARXNG_URL (or the setting webSearch.searxngUrl)",
            "SEARXNG_TOKEN",
            _searxng_locate,
            _searxng_build,
            _searxng_parse,
        ),
    )
}
"""In omp's order: ``webSearch.provider: auto`` tries the configured ones in this order."""
