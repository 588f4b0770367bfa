"""Format-on-write (``lsp.formatOnWrite``): ``textDocument/formatting``, the edits applied
to the text, and the file replaced atomically with omp's file helper."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import omp

from omp_lsp.client import LspClient
from omp_lsp.rpc import LspError
from omp_lsp.uris import col_from_utf16, path_to_uri


def apply_text_edits(text: str, edits: list[dict[str, Any]]) -> str:
    """``text`` with LSP TextEdits applied (positions in UTF-16, applied last first)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(pos: dict[str, int]) -> int:
        row = pos["line"]
        if row >= len(lines):
            return len(text)
        return starts[row] + col_from_utf16(lines[row], pos["character"])

    spans = sorted(
        ((offset(e["range"]["start"]), offset(e["range"]["end"]), e["newText"]) for e in edits),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


async def format_file(client: LspClient, path: Path, text: str, timeout: float) -> str:
    """The formatted text (written to ``path`` when it changed); ``text`` on any failure."""
    if not client.supports("documentFormattingProvider") or timeout <= 0:
        return text
    await client.sync(path, text)
    try:
        edits = await client.request(
            "textDocument/formatting",
            {
                "textDocument": {"uri": path_to_uri(path)},
                "options": {"tabSize": 4, "insertSpaces": True},
            },
            timeout,
        )
    except LspError:
        return text
    if not edits:
        return text
    formatted = apply_text_edits(text, edits)
    if formatted != text:
        omp.write_file(path, formatted.encode("utf-8"))
    return formatted
