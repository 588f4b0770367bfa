"""The ``fetch`` tool: GET an http(s) URL and show it as Markdown, pretty JSON or text."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from omp import TextContent, Tool, ToolResult
from pydantic import BaseModel, Field

from omp_tool_fetch import convert

DEFAULT_TIMEOUT = 20.0
MAX_TIMEOUT = 120.0
MAX_REDIRECTS = 5
MAX_BODY_BYTES = 5 * 1024 * 1024
"""Reading stops here; the rest of the body is never downloaded."""
MAX_OUTPUT_BYTES = 50 * 1024
MAX_OUTPUT_LINES = 2000
ERROR_EXCERPT_CHARS = 2000
UPDATE_INTERVAL = 0.05
USER_AGENT = "omp-fetch/0.1 (python-httpx)"
ACCEPT = "text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.8,*/*;q=0.5"
_SUFFIX = {"html": ".md", "json": ".json", "text": ".txt"}
READ_PRESENT = "omp-tool-read.present"
"""Session state key of the read tool's presenter of image and PDF bytes."""


class FetchParams(BaseModel):
    url: str = Field(description="The http:// or https:// URL to fetch.")
    timeout: float | None = Field(
        default=None,
        description=f"Seconds to wait for the whole fetch (default {DEFAULT_TIMEOUT:g}, "
        f"max {MAX_TIMEOUT:g}).",
    )
    raw: bool | None = Field(
        default=None, description="Return the body as received: no Markdown, no JSON indent."
    )


@dataclass
class Download:
    url: str
    status: int
    reason: str
    content_type: str
    charset: str | None
    chain: list[str] = field(default_factory=list)
    body: bytes = b""
    body_cut: bool = False


class FetchTool(Tool):
    name = "fetch"
    label = "Fetch"
    network = True
    description = (
        "Fetch an http(s) URL. HTML comes back as Markdown, JSON pretty-printed, text as is; "
        "images and PDFs as the read tool shows them (an image, a PDF's text per page). "
        f"Output is cut at {MAX_OUTPUT_LINES} lines / 50 KB; the full text is then saved "
        "as artifact://ID for the read tool."
    )
    parameters = FetchParams

    async def execute(
        self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any
    ) -> ToolResult:
        import httpx  # here, not at the top: every run imports this module

        url = params.url.strip()
        problem = _check_url(url)
        if problem:
            return ToolResult.error(problem, {"url": url})
        timeout = min(max(params.timeout or DEFAULT_TIMEOUT, 1.0), MAX_TIMEOUT)
        task = asyncio.ensure_future(_download(url, timeout, on_update))
        if not await _unless_aborted(task, signal):
            return ToolResult.error(f"Fetching {url} was aborted.", {"url": url})
        try:
            download = task.result()
        except (TimeoutError, httpx.TimeoutException):
            return ToolResult.error(
                f"Fetching {url} timed out after {timeout:g} s. The server may be slow: "
                f"retry with a larger timeout (max {MAX_TIMEOUT:g}).",
                {"url": url, "timeout": timeout},
            )
        except httpx.TooManyRedirects:
            return ToolResult.error(
                f"Fetching {url} failed: more than {MAX_REDIRECTS} redirects.", {"url": url}
            )
        except httpx.UnsupportedProtocol as exc:
            return ToolResult.error(
                f"Fetching {url} failed: a redirect led to an unsupported URL ({exc}).",
                {"url": url},
            )
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            reason = str(exc) or type(exc).__name__
            return ToolResult.error(f"Fetching {url} failed: {reason}", {"url": url})
        return await asyncio.to_thread(_present, url, download, bool(params.raw), ctx)


async def _unless_aborted(task: asyncio.Future[Any], signal: Any) -> bool:
    """Wait for ``task`` unless ``signal`` aborts first (then cancel it); True if it ended."""
    waiter = asyncio.ensure_future(signal.wait()) if signal is not None else None
    both = [t for t in (task, waiter) if t is not None]
    try:
        await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for pending in both:
            if not pending.done():
                pending.cancel()
        await asyncio.gather(*both, return_exceptions=True)
    return not task.cancelled()


def _check_url(url: str) -> str | None:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https") and parts.netloc:
        return None
    if scheme in ("http", "https"):
        return f"Cannot fetch {url}: the URL has no host."
    if not scheme or "." in scheme:
        return f"Cannot fetch {url}: give a full URL starting with https:// or http://."
    return (
        f"Cannot fetch {url}: only http:// and https:// URLs are supported, not {scheme}://. "
        "Use the read tool for local files."
    )


async def _download(url: str, timeout: float, on_update: Any) -> Download:
    import httpx
    from omp_llm.http import new_client

    async with asyncio.timeout(timeout):
        async with (
            new_client(
                follow_redirects=True,
                max_redirects=MAX_REDIRECTS,
                timeout=httpx.Timeout(timeout),
                headers={"User-Agent": USER_AGENT, "Accept": ACCEPT},
            ) as client,
            client.stream("GET", url) as response,
        ):
            chain = [str(r.url) for r in response.history]
            result = Download(
                url=str(response.url),
                status=response.status_code,
                reason=response.reason_phrase,
                content_type=response.headers.get("content-type", ""),
                charset=response.charset_encoding,
                chain=[*chain, str(response.url)] if chain else [],
            )
            body = bytearray()
            last = 0.0
            async for chunk in response.aiter_bytes():
                room = MAX_BODY_BYTES - len(body)
                body += chunk[:room]
                if len(chunk) > room:
                    result.body_cut = True
                    break
                now = time.monotonic()
                if on_update is not None and now - last >= UPDATE_INTERVAL:
                    last = now
                    on_update(f"Fetching {url}: {len(body) // 1024} KB received")
            result.body = bytes(body)
            return result


def _header(download: Download) -> list[str]:
    lines = [f"URL: {download.url}"]
    if download.chain:
        lines.append("Redirected: " + " -> ".join(download.chain))
    lines.append(f"Content-Type: {download.content_type or '(none)'}")
    if download.body_cut:
        lines.append(
            f"Notes: the body is larger than {MAX_BODY_BYTES // (1024 * 1024)} MB; "
            "only its start was read."
        )
    return lines


def _present(url: str, download: Download, raw: bool, ctx: Any) -> ToolResult:
    details: dict[str, Any] = {
        "url": url,
        "finalUrl": download.url,
        "status": download.status,
        "contentType": download.content_type,
        "redirects": download.chain,
        "bytes": len(download.body),
        "bodyCut": download.body_cut,
    }
    header = _header(download)
    kind = convert.classify(download.content_type, download.body)
    if download.status >= 400:
        text = "" if kind is None else _convert(kind, download, raw)[0]
        excerpt = text[:ERROR_EXCERPT_CHARS] + ("..." if len(text) > ERROR_EXCERPT_CHARS else "")
        status = f"HTTP {download.status} {download.reason}".rstrip()
        body = f"\n---\n{excerpt}" if excerpt.strip() else ""
        return ToolResult.error(
            f"{status} for {download.url}\n" + "\n".join(header) + body, details
        )
    as_read = _present_as_read(download, header, details, ctx) if kind is None else None
    if as_read is not None:
        return as_read
    if kind is None:
        return ToolResult.error(
            f"Cannot show {download.url}: its content type is "
            f"{convert.media_type(download.content_type) or 'unknown (binary)'}; fetch only "
            "returns HTML, JSON and text. Download it with a shell command to get the file.",
            details,
        )
    text, title = _convert(kind, download, raw)
    if title:
        header.append(f"Title: {title}")
    budget = MAX_OUTPUT_BYTES - len("\n".join(header).encode("utf-8")) - 512
    shown, count, total, cut = convert.head(text, MAX_OUTPUT_LINES, budget)
    details.update(lines=total, truncated=cut)
    out = "\n".join([*header, "---", shown or "(empty body)"])
    if cut:
        store = getattr(ctx, "artifacts", None)
        if store is not None:
            artifact_id = store.save(text, _SUFFIX[kind])
            details["artifactId"] = artifact_id
            out += (
                f"\n\n[Output truncated: showing lines 1-{count} of {total} "
                f"({MAX_OUTPUT_LINES} lines / 50 KB limit). The full text is saved: read "
                f"path=artifact://{artifact_id} offset={count + 1} to continue.]"
            )
        else:
            out += f"\n\n[Output truncated: showing lines 1-{count} of {total}.]"
    return ToolResult.text(out, details)


def _present_as_read(
    download: Download, header: list[str], details: dict[str, Any], ctx: Any
) -> ToolResult | None:
    """An image or PDF download shown as the read tool shows such a file (its presenter
    in the session state, under read's settings); None: no presenter or not such bytes."""
    state = getattr(ctx, "state", None)
    present = state.get(READ_PRESENT) if isinstance(state, dict) else None
    result = present(download.body, download.url, ctx) if present is not None else None
    if result is None:
        return None
    first, *rest = result.content
    text = "\n".join([*header, "---", getattr(first, "text", "")])
    merged = {**details, **(result.details if isinstance(result.details, dict) else {})}
    merged["path"] = download.url
    content = [TextContent(text=text), *rest]
    return ToolResult(content, merged, is_error=result.is_error)


def _convert(kind: str, download: Download, raw: bool) -> tuple[str, str | None]:
    if kind == "html" and not raw:
        return convert.html_to_markdown(download.body, download.charset)
    text = convert.decode(download.body, download.charset)
    if kind == "json" and not raw:
        return convert.pretty_json(text), None
    return text, None
