"""The ast-grep engine (``ast-grep-py``) for one file at a time: patterns checked,
matches with their captures, rewrites by template, and whether a text parses.

Positions from the engine are character indices into the ``str`` it was given, so
slices of that string are the matched source exactly."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_MULTI = re.compile(r"\$\$\$([A-Z_][A-Z0-9_]*)?")
_SINGLE = re.compile(r"(?<!\$)\$([A-Z_][A-Z0-9_]*)")
_TWO_DOLLARS = re.compile(r"(?<!\$)\$\$(?!\$)")
_META = re.compile(r"\$\$\$([A-Z_][A-Z0-9_]*)|\$([A-Z_][A-Z0-9_]*)")
_ANY_META = re.compile(r"\$+[A-Za-z0-9_]*")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class PatternError(ValueError):
    """A pattern or template the engine cannot use; the message is for the model."""


@dataclass(slots=True)
class Match:
    line: int
    """1-based line of the match's start."""
    column: int
    """1-based column of the match's start."""
    start: int
    end: int
    text: str
    meta: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Pattern:
    """A checked pattern: its captures and the words any match must contain."""

    source: str
    singles: tuple[str, ...]
    multis: tuple[str, ...]
    words: tuple[str, ...]
    checked: set[str] = field(default_factory=set)
    """Languages the pattern is known to parse in."""

    @classmethod
    def parse(cls, source: str) -> Pattern:
        text = source.strip()
        if not text:
            raise PatternError("`pat` must be a non-empty pattern")
        if _TWO_DOLLARS.search(text):
            raise PatternError(
                f"Invalid pattern {text!r}: `$$NAME` is not a meta-variable; use `$$$NAME` "
                "for zero or more nodes or `$NAME` for one"
            )
        multis = tuple(dict.fromkeys(m for m in _MULTI.findall(text) if _bound(m)))
        singles = tuple(
            dict.fromkeys(m for m in _SINGLE.findall(_MULTI.sub(" ", text)) if _bound(m))
        )
        # Every word of the pattern (outside meta-variables) is a token a match holds
        # verbatim, so a file without one of them cannot match: a cheap filter.
        words = tuple(dict.fromkeys(_WORD.findall(_ANY_META.sub(" ", text))))
        return cls(text, singles, multis, words)

    def may_match(self, text: str) -> bool:
        return all(word in text for word in self.words)

    def check_template(self, template: str) -> None:
        """PatternError when ``template`` uses a meta-variable the pattern does not bind."""
        bound = set(self.singles) | set(self.multis)
        for multi, single in _META.findall(template):
            name = multi or single
            if _bound(name) and name not in bound:
                raise PatternError(
                    f"The replacement uses ${name}, which the pattern {self.source!r} "
                    "does not capture"
                )


def _bound(name: str) -> bool:
    """``$_``, ``$$$`` and names starting with ``_`` match without capturing."""
    return bool(name) and not name.startswith("_")


def engine_message(exc: BaseException) -> str:
    """The innermost cause of an engine error, on one line (no Rust backtrace)."""
    lines = str(exc).split("Stack backtrace:")[0].strip().splitlines()
    causes = [m.group(1) for m in (re.match(r"\s*\d+: (.*)", line) for line in lines) if m]
    return (causes[-1] if causes else (lines[0] if lines else type(exc).__name__)).strip()


def _root(text: str, lang: str) -> Any:
    from ast_grep_py import SgRoot

    return SgRoot(text, lang).root()


def find(text: str, lang: str, pattern: Pattern) -> list[Match]:
    """Matches of ``pattern`` in ``text``, in source order (nested ones included).
    PatternError when the pattern does not parse in ``lang``."""
    if not pattern.may_match(text):
        return []
    if lang not in pattern.checked:
        # The engine parses `$` as the language's expando letter (µ in most grammars).
        expando = re.sub(r"\$(?=[A-Z_])", "µ", pattern.source.replace("$$$", "µµµ"))
        if all(_root(p, lang).find(kind="ERROR") for p in {pattern.source, expando}):
            raise PatternError(f"the pattern {pattern.source!r} does not parse as {lang}")
        pattern.checked.add(lang)
    try:
        nodes = _root(text, lang).find_all(pattern=pattern.source)
    except RuntimeError as exc:
        raise PatternError(f"{lang}: {engine_message(exc)}") from exc
    matches = []
    for node in nodes:
        span = node.range()
        start, end = span.start.index, span.end.index
        meta = {
            name: capture.text() for name in pattern.singles if (capture := node.get_match(name))
        }
        for name in pattern.multis:
            nodes_of = node.get_multiple_matches(name)
            meta[name] = (
                text[nodes_of[0].range().start.index : nodes_of[-1].range().end.index]
                if nodes_of
                else ""
            )
        matches.append(
            Match(span.start.line + 1, span.start.column + 1, start, end, text[start:end], meta)
        )
    matches.sort(key=lambda m: (m.start, -m.end))
    return matches


def outermost(matches: list[Match]) -> list[Match]:
    """The matches not inside an earlier one: those a rewrite replaces."""
    kept: list[Match] = []
    for match in matches:
        if not kept or match.start >= kept[-1].end:
            kept.append(match)
    return kept


def expand(template: str, match: Match, indent: str) -> str:
    """``template`` with the match's captures put in; its own later lines indented as
    the matched line is."""
    lines = template.split("\n")
    template = "\n".join([lines[0], *(indent + line if line else line for line in lines[1:])])
    return _META.sub(lambda m: match.meta.get(m.group(1) or m.group(2), m.group(0)), template)


def rewrite(text: str, lang: str, pattern: Pattern, template: str) -> tuple[str, list[Match]]:
    """``text`` with every outermost match replaced by ``template``; the replaced matches."""
    matches = outermost(find(text, lang, pattern))
    pieces: list[str] = []
    last = 0
    for match in matches:
        line_start = text.rfind("\n", 0, match.start) + 1
        indent = re.match(r"[ \t]*", text[line_start : match.start]).group(0)  # type: ignore[union-attr]
        pieces += [text[last : match.start], expand(template, match, indent)]
        last = match.end
    pieces.append(text[last:])
    return "".join(pieces), matches


def parse_problem(text: str, lang: str) -> str | None:
    """Where ``text`` fails to parse in ``lang`` ("line 3: syntax error"), or None."""
    root = _root(text, lang)
    error = root.find(kind="ERROR")
    if error is not None:
        return f"line {error.range().start.line + 1}: syntax error"
    for node in root.find_all(regex="^$"):  # a zero-width node the parser had to invent
        span = node.range()
        if span.start.index == span.end.index and node.kind() != root.kind():
            return f"line {span.start.line + 1}: missing {node.kind()!r}"
    return None
