"""When oldText is not in the file: the most similar block of the file, so the model can
correct its next call in one step."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

MIN_RATIO = 0.3
"""Below this the nearest block is not worth showing."""
MAX_SHOWN_LINES = 40
MAX_LINE_CHARS = 500
SAMPLED_LINES = 8
"""Lines of oldText used to rank the file's blocks (its most distinctive ones)."""
FINALISTS = 10
"""Best-ranked blocks compared character by character."""
MAX_RATIO_CHARS = 8000
"""Beyond this, blocks are compared line by line (a character diff is quadratic)."""

_TOKEN = re.compile(r"\w+|[^\w\s]")


def nearest_block(text: str, old: str) -> tuple[int, list[str], float] | None:
    """(first line, lines, similarity) of the block of ``text`` with as many lines as
    ``old`` that is most like it, or None when nothing is similar enough.

    Blocks are ranked cheaply by the token overlap of a few of oldText's lines with
    the lines at the same place in the block; the best few are then compared with
    difflib, so a large file costs a few passes over its lines, not a diff per line.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the empty piece after a final newline is not a line
    wanted = old[:-1] if old.endswith("\n") else old
    if not lines or not wanted.strip():
        return None
    want_lines = wanted.split("\n")
    n = min(len(want_lines), len(lines))
    want_lines = want_lines[:n]
    wanted = "\n".join(want_lines)
    tokens = [frozenset(_TOKEN.findall(line)) for line in lines]
    want_tokens = [frozenset(_TOKEN.findall(line)) for line in want_lines]
    sampled = sorted(range(n), key=lambda j: -len(want_tokens[j]))[:SAMPLED_LINES]
    windows = len(lines) - n + 1
    scores = [0.0] * windows
    for j in sampled:
        want = want_tokens[j]
        for i in range(windows):
            have = tokens[i + j]
            union = len(have | want)
            scores[i] += len(have & want) / union if union else 1.0
    finalists = sorted(range(windows), key=lambda i: -scores[i])[:FINALISTS]
    best_ratio, best_at = 0.0, -1
    for i in sorted(finalists):
        ratio = _similarity(lines[i : i + n], want_lines, wanted)
        if ratio > best_ratio:
            best_ratio, best_at = ratio, i
    if best_at < 0 or best_ratio < MIN_RATIO:
        return None
    return best_at + 1, lines[best_at : best_at + n], best_ratio


def _similarity(block: list[str], want_lines: list[str], wanted: str) -> float:
    text = "\n".join(block)
    if len(text) + len(wanted) <= MAX_RATIO_CHARS:
        return SequenceMatcher(None, text, wanted, autojunk=False).ratio()
    total = sum(
        SequenceMatcher(None, a[:MAX_LINE_CHARS], b[:MAX_LINE_CHARS], autojunk=False).ratio()
        for a, b in zip(block, want_lines, strict=True)
    )
    return total / len(block)


def numbered(first: int, lines: list[str]) -> str:
    """Lines formatted as the read tool shows them (``{n:>6}<TAB>{line}``)."""
    shown = []
    for number, line in enumerate(lines[:MAX_SHOWN_LINES], start=first):
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + f"... [{len(line) - MAX_LINE_CHARS} more characters]"
        shown.append(f"{number:>6}\t{line}")
    if len(lines) > MAX_SHOWN_LINES:
        shown.append(f"... [{len(lines) - MAX_SHOWN_LINES} more lines]")
    return "\n".join(shown)


def describe_no_match(text: str, old: str, new: str, label: str, name: str, k: int) -> str:
    message = [f"{label}.oldText was not found in {name} (not even ignoring whitespace)."]
    block = nearest_block(text, old)
    if block is None:
        message.append("Nothing in the file is similar; read the file again to see its content.")
    else:
        first, lines, ratio = block
        where = f"line {first}" if len(lines) == 1 else f"lines {first}-{first + len(lines) - 1}"
        earlier = "edits[0]" if k == 1 else f"edits[0..{k - 1}]"
        after = f", counting {earlier} as applied" if k else ""
        message.append(f"The most similar text is at {where} ({int(ratio * 100)}% similar{after}):")
        message.append(numbered(first, lines))
        message.append(
            "Copy the text exactly as it is in the file (without the line-number prefix) "
            "into oldText."
        )
    if new.strip() and new in text:
        message.append("newText is already in the file: this edit may have been applied before.")
    return "\n".join(message)
