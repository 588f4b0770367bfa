"""What ``fetch`` does with a body: HTML to Markdown, JSON pretty-printed, text as is;
and the head-keeping cut of what the model is shown."""

from __future__ import annotations

import codecs
import json
import re
import warnings


def _quiet_bs4() -> None:
    """bs4 warns about inputs that look like URLs or XML; pages are what they are."""
    from bs4 import MarkupResemblesLocatorWarning, XMLParsedAsHTMLWarning

    warnings.filterwarnings("ignore", category=MarkupResemblesLocatorWarning)
    warnings.filterwarnings("ignore", category=XMLParsedAsHTMLWarning)


NOISE_TAGS = (
    "script",
    "style",
    "noscript",
    "template",
    "iframe",
    "svg",
    "canvas",
    "nav",
    "footer",
    "button",
    "select",
    "input",
    "link",
    "meta",
)
"""Removed before conversion: code, styling, navigation and form controls (not <form>
itself: some sites wrap the whole page in one)."""
TEXT_LIKE = {
    "application/javascript",
    "application/ecmascript",
    "application/x-javascript",
    "application/xml",
    "application/x-yaml",
    "application/yaml",
    "application/toml",
    "application/x-sh",
    "application/sql",
    "application/graphql",
    "application/x-ndjson",
}
_BLANK_RUNS = re.compile(r"\n{3,}")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")


def media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def classify(content_type: str, body: bytes) -> str | None:
    """ "html", "json", "text", or None for a type fetch does not show."""
    kind = media_type(content_type)
    if kind in ("text/html", "application/xhtml+xml"):
        return "html"
    if kind in ("application/json", "text/json") or kind.endswith("+json"):
        return "json"
    if kind.startswith("text/") or kind in TEXT_LIKE or kind.endswith("+xml"):
        return "text"
    if not kind:  # no Content-Type: look at the bytes
        head = body[:8192]
        if b"\0" in head:
            return None
        start = head.lstrip()[:15].lower()
        return "html" if start.startswith((b"<!doctype html", b"<html")) else "text"
    return None


def decode(body: bytes, charset: str | None) -> str:
    encoding = "utf-8-sig"
    if charset:
        try:
            encoding = codecs.lookup(charset).name
        except LookupError:
            pass
    return body.decode(encoding, errors="replace")


def html_to_markdown(body: bytes, charset: str | None) -> tuple[str, str | None]:
    """The page as Markdown (its single <main> if it has one), and its <title>."""
    from bs4 import BeautifulSoup  # imported here: bs4 costs ~60 ms at startup
    from markdownify import MarkdownConverter

    _quiet_bs4()
    soup = BeautifulSoup(body, "html.parser", from_encoding=charset)
    title = soup.title.get_text(" ", strip=True) if soup.title else None
    for tag in soup(NOISE_TAGS):
        tag.decompose()
    mains = soup.find_all("main")
    root = mains[0] if len(mains) == 1 else (soup.body or soup)
    converter = MarkdownConverter(
        heading_style="ATX", bullets="-", escape_asterisks=False, escape_underscores=False
    )
    return tidy(converter.convert_soup(root)), title or None


def pretty_json(text: str) -> str:
    """Indented JSON; text that does not parse is returned as it came."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return json.dumps(value, indent=2, ensure_ascii=False)


def tidy(text: str) -> str:
    text = _TRAILING_SPACE.sub("\n", text.replace("\r\n", "\n"))
    return _BLANK_RUNS.sub("\n\n", text).strip()


def head(text: str, max_lines: int, max_bytes: int) -> tuple[str, int, int, bool]:
    """The start of ``text`` within both caps: (shown, lines shown, total lines, cut)."""
    lines = text.split("\n")
    out: list[str] = []
    used = 0
    for line in lines[:max_lines]:
        size = len(line.encode("utf-8")) + 1
        if used + size > max_bytes:
            if not out:  # one enormous line: keep what fits of it
                out.append(line.encode("utf-8")[:max_bytes].decode("utf-8", "ignore"))
            break
        out.append(line)
        used += size
    cut = len(out) < len(lines) or (bool(out) and out[-1] != lines[len(out) - 1])
    return "\n".join(out), len(out), len(lines), cut
