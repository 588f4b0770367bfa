"""Applying ``{oldText, newText}`` edits to text, in memory: exact matching first, then a
whitespace-tolerant line match with re-indentation; errors say how to fix the call."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from omp_tool_edit.nearest import describe_no_match

_RUNS = re.compile(r"[ \t]+")
MAX_LISTED = 100
"""Candidate line numbers listed at most in an ambiguity error."""


class EditError(Exception):
    """An edit that cannot be applied; the message is for the model."""


@dataclass
class Edit:
    old: str
    new: str
    replace_all: bool = False


@dataclass
class Applied:
    text: str
    replacements: int = 0
    fuzzy: list[tuple[int, list[int]]] = field(default_factory=list)
    """(edit index, first lines of its matches) for edits matched ignoring whitespace."""


Span = tuple[int, int, str]
"""(start, end, replacement) in the text as it stands before the edit."""


def apply_edits(text: str, edits: list[Edit], name: str, signal: Any = None) -> Applied:
    """Apply ``edits`` in order, each to the result of the previous ones."""
    out = Applied(text)
    regions: list[tuple[int, int]] = []  # text written by earlier edits, current offsets
    for k, edit in enumerate(edits):
        if signal is not None and getattr(signal, "aborted", False):
            raise EditError("Edit aborted.")
        label = f"edits[{k}]"
        if edit.old == edit.new:
            raise EditError(f"{label}: oldText and newText are identical; nothing to change.")
        spans, fuzzy = _locate(out.text, edit, label, name)
        if not spans:
            if k and (edit.old in text or _fuzzy_spans(text, edit)):
                raise EditError(_overlap_message(label, k))
            raise EditError(describe_no_match(out.text, edit.old, edit.new, label, name, k))
        for start, end, _ in spans:
            if any(start < r_end and r_start < end for r_start, r_end in regions):
                raise EditError(_overlap_message(label, k))
        if fuzzy:
            out.fuzzy.append((k, [_line_of(out.text, s) for s, _, _ in spans]))
        out.text, regions = _splice(out.text, spans, regions)
        out.replacements += len(spans)
    return out


def _overlap_message(label: str, k: int) -> str:
    earlier = "edits[0]" if k == 1 else f"edits[0..{k - 1}]"
    return (
        f"{label} overlaps text changed by {earlier}: edits apply in order, each to the "
        "result of the previous ones, and must not touch the same text. Merge the "
        "overlapping edits into one."
    )


def _locate(text: str, edit: Edit, label: str, name: str) -> tuple[list[Span], bool]:
    starts = _find_all(text, edit.old)
    if starts:
        if len(starts) > 1 and not edit.replace_all:
            ranges = [_line_range(text, s, s + len(edit.old)) for s in starts]
            raise EditError(_ambiguous(label, name, ranges, ""))
        spans: list[Span] = []
        for s in starts:  # replaceAll: left to right, without overlapping matches
            if not spans or s >= spans[-1][1]:
                spans.append((s, s + len(edit.old), edit.new))
        return spans, False
    spans = _fuzzy_spans(text, edit)
    if len(spans) > 1 and not edit.replace_all:
        ranges = [_line_range(text, s, e) for s, e, _ in spans]
        raise EditError(_ambiguous(label, name, ranges, " ignoring whitespace differences"))
    return spans, bool(spans)


def _ambiguous(label: str, name: str, ranges: list[str], how: str) -> str:
    distinct = list(dict.fromkeys(ranges))
    listed = ", ".join(distinct[:MAX_LISTED])
    if len(distinct) > MAX_LISTED:
        listed += f" and {len(distinct) - MAX_LISTED} more"
    return (
        f"{label}.oldText matches {len(ranges)} places in {name}{how} "
        f"(line{'s' if len(distinct) > 1 else ''} {listed}). Add surrounding lines to "
        "oldText so it matches exactly one place, or set replaceAll: true to replace "
        "every match."
    )


def _find_all(text: str, needle: str) -> list[int]:
    starts, i = [], text.find(needle)
    while i != -1:
        starts.append(i)
        i = text.find(needle, i + 1)
    return starts


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _line_range(text: str, start: int, end: int) -> str:
    first = _line_of(text, start)
    last = _line_of(text, max(start, end - 1))
    return str(first) if first == last else f"{first}-{last}"


def _splice(
    text: str, spans: list[Span], regions: list[tuple[int, int]]
) -> tuple[str, list[tuple[int, int]]]:
    parts, pos, shift = [], 0, 0
    new_regions = []
    for start, end, repl in spans:
        parts += [text[pos:start], repl]
        new_regions.append((start + shift, start + shift + len(repl)))
        shift += len(repl) - (end - start)
        pos = end
    parts.append(text[pos:])
    for r_start, r_end in regions:
        moved = sum(len(repl) - (end - start) for start, end, repl in spans if end <= r_start)
        new_regions.append((r_start + moved, r_end + moved))
    return "".join(parts), sorted(new_regions)


# -- whitespace-tolerant matching -------------------------------------------------


def normalise(line: str) -> str:
    """A line compared loosely: no leading/trailing whitespace, runs of spaces and tabs
    as one space, Unicode in composed form."""
    return _RUNS.sub(" ", unicodedata.normalize("NFC", line).strip())


def _fuzzy_spans(text: str, edit: Edit) -> list[Span]:
    old_lines = edit.old.split("\n")
    ends_line = edit.old.endswith("\n")
    if ends_line:
        old_lines.pop()
    if not any(line.strip() for line in old_lines):
        return []
    target = [normalise(line) for line in old_lines]
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    normed = [normalise(line) for line in lines]
    n = len(target)
    spans: list[Span] = []
    for i in range(len(lines) - n + 1):
        if normed[i] != target[0] or normed[i : i + n] != target:
            continue
        if spans and starts[i] < spans[-1][1]:
            continue  # overlaps the previous match
        last = i + n - 1
        start, end = starts[i], starts[last] + len(lines[last])
        new = edit.new
        if ends_line:
            if end < len(text):
                end += 1  # oldText took the line's newline with it
            elif new.endswith("\n"):
                new = new[:-1]  # the file has no final newline; keep it so
        spans.append((start, end, _reindent(new, old_lines, lines[i : i + n])))
    return spans


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _reindent(new: str, old_lines: list[str], found: list[str]) -> str:
    """``new`` shifted by the indentation difference between the model's oldText and
    the block actually found; deeper indentation is converted between spaces and tabs
    when the model and the file use different ones."""
    pairs = [(_indent(o), _indent(f)) for o, f in zip(old_lines, found, strict=True) if o.strip()]
    model, actual = pairs[0]
    unit = _conversion(pairs)
    if model == actual and unit is None:
        return new
    out = []
    for line in new.split("\n"):
        if not line.strip():
            out.append(line)
            continue
        lead, body = _indent(line), line.lstrip(" \t")
        if lead.startswith(model):
            lead = actual + _convert(lead[len(model) :], unit)
        elif actual.startswith(model):
            lead = actual[len(model) :] + lead
        elif model.startswith(actual):
            lead = lead[min(len(model) - len(actual), len(lead)) :]
        out.append(lead + body)
    return "\n".join(out)


def _conversion(pairs: list[tuple[str, str]]) -> tuple[str, int] | None:
    """(character, spaces per tab) to turn the model's indentation below its first
    line into the file's, when one uses spaces and the other tabs; else None."""
    model, actual = pairs[0]
    candidates = [(model, actual)] if model and actual else []
    for m, f in pairs[1:]:
        if m.startswith(model) and f.startswith(actual):
            candidates.append((m[len(model) :], f[len(actual) :]))
    for m, f in candidates:
        if not m or not f:
            continue
        if set(m) == {" "} and set(f) == {"\t"} and len(m) % len(f) == 0:
            return "\t", len(m) // len(f)
        if set(m) == {"\t"} and set(f) == {" "} and len(f) % len(m) == 0:
            return " ", len(f) // len(m)
    return None


def _convert(lead: str, unit: tuple[str, int] | None) -> str:
    if unit is None:
        return lead
    char, size = unit
    if char == "\t":
        spaces = lead.count(" ") + lead.count("\t") * size
        return "\t" * (spaces // size) + " " * (spaces % size)
    return lead.replace("\t", " " * size)
