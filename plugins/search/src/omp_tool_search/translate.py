"""A Python regex written in RE2's syntax, meaning the same.

The RE2 text is written from the tree of Python's own parser (``re._parser``), never
from the pattern's text, so every quirk of Python's syntax (``x{,3}``, verbose mode,
inline flags) is read as Python reads it, and Python's meanings are spelled out:
Unicode ``\\w``, ``\\d`` and ``\\s``, case folding that joins i, I, İ and dotless i, ``.``
that stops at ``\\n`` only, MULTILINE anchors.

``translate(pattern, flags, exact=True)`` is None where RE2 cannot say the same thing:
backreferences, lookaround, conditionals, atomic groups and possessive repeats, ``$``
without MULTILINE, counts over 1000. Unicode ``\\b`` has no RE2 spelling (its word
boundary is ASCII) and RE2's ``\\B`` also holds between the bytes of one character:
the translation uses RE2's and says ``ascii_only``, true to Python on ASCII text only.

``exact=False`` gives a superset instead: what RE2 cannot say is widened (an assertion
or boundary dropped, a backreference matching any text, an atomic group made plain), so
text it finds nothing in cannot match the pattern either. It is a cheap filter before
a file goes to Python's engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]

MAX_COUNT = 1000
"""RE2's largest repeat count."""
DOTTED_I = (0x49, 0x69, 0x130, 0x131)
"""I, i, İ and dotless i: one case class for Python's re, three for RE2."""
UNICODE_CLASSES = {
    sre.CATEGORY_WORD: r"\p{L}\p{N}_",
    sre.CATEGORY_DIGIT: r"\p{Nd}",
    sre.CATEGORY_SPACE: (
        r"\x{9}-\x{d}\x{1c}-\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}"
        r"\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"
    ),
}
ASCII_CLASSES = {
    sre.CATEGORY_WORD: "0-9A-Za-z_",
    sre.CATEGORY_DIGIT: "0-9",
    sre.CATEGORY_SPACE: r"\x{9}-\x{d}\x{20}",
}
NEGATED = {
    sre.CATEGORY_NOT_WORD: sre.CATEGORY_WORD,
    sre.CATEGORY_NOT_DIGIT: sre.CATEGORY_DIGIT,
    sre.CATEGORY_NOT_SPACE: sre.CATEGORY_SPACE,
}
REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)


@dataclass(frozen=True, slots=True)
class Translation:
    pattern: str
    ascii_only: bool
    """True to Python's meaning on ASCII text only (a Unicode word boundary)."""


class _Unsupported(Exception):
    pass


def translate(pattern: str, flags: int, exact: bool = True) -> Translation | None:
    """``pattern`` (a valid Python regex, compiled with ``flags``) in RE2's syntax."""
    try:
        parsed = _parser.parse(pattern, flags)
    except Exception:
        return None
    writer = _Writer(exact)
    try:
        text = writer.sequence(parsed, parsed.state.flags)
    except _Unsupported:
        return None
    return Translation(text, writer.ascii_only)


def _char(code: int) -> str:
    return f"\\x{{{code:x}}}"


class _Writer:
    def __init__(self, exact: bool) -> None:
        self.exact = exact
        self.ascii_only = False

    def widen(self, wider: str) -> str:
        """``wider`` in a superset; an exact translation cannot go on."""
        if self.exact:
            raise _Unsupported
        return wider

    def sequence(self, items: list, flags: int) -> str:
        return "".join(self.node(op, av, flags) for op, av in items)

    def node(self, op: object, av: object, flags: int) -> str:
        if op is sre.LITERAL:
            if flags & sre.SRE_FLAG_IGNORECASE and not (av < 0x80 and not chr(av).isalpha()):  # type: ignore[operator]
                return self.charset([(av, av)], [], False, flags)
            return _char(av)  # type: ignore[arg-type]
        if op is sre.NOT_LITERAL:
            return self.charset([(av, av)], [], True, flags)
        if op is sre.IN:
            ranges, categories, negate = [], [], False
            for item_op, item in av:  # type: ignore[attr-defined]
                if item_op is sre.NEGATE:
                    negate = True
                elif item_op is sre.LITERAL:
                    ranges.append((item, item))
                elif item_op is sre.RANGE:
                    ranges.append(item)
                elif item_op is sre.CATEGORY:
                    categories.append(item)
                else:
                    raise _Unsupported
            return self.charset(ranges, categories, negate, flags)
        if op is sre.ANY:
            return "(?s:.)" if flags & sre.SRE_FLAG_DOTALL else r"[^\n]"
        if op is sre.BRANCH:
            return "(?:" + "|".join(self.sequence(alt, flags) for alt in av[1]) + ")"  # type: ignore[index]
        if op is sre.SUBPATTERN:
            _group, add, remove, body = av  # type: ignore[misc]
            return "(?:" + self.sequence(body, (flags | add) & ~remove) + ")"
        if op in REPEATS:
            return self.repeat(op, av, flags)  # type: ignore[arg-type]
        if op is sre.ATOMIC_GROUP:
            return self.widen("(?:" + self.sequence(av, flags) + ")")  # type: ignore[arg-type]
        if op is sre.AT:
            return self.anchor(av, flags)
        if op is sre.GROUPREF:
            return self.widen("(?s:.*)")
        if op is sre.GROUPREF_EXISTS:
            _group, yes, no = av  # type: ignore[misc]
            either = [self.sequence(yes, flags), self.sequence(no, flags) if no else ""]
            return self.widen("(?:" + "|".join(either) + ")")
        if op in (sre.ASSERT, sre.ASSERT_NOT):
            return self.widen("")
        raise _Unsupported

    def repeat(self, op: object, av: tuple, flags: int) -> str:
        low, high, body = av
        if op is sre.POSSESSIVE_REPEAT:
            self.widen("")
        unbounded = high == sre.MAXREPEAT
        if low > MAX_COUNT or (not unbounded and high > MAX_COUNT):
            self.widen("")
            low, unbounded = min(low, MAX_COUNT), unbounded or high > MAX_COUNT
        if unbounded:
            count = {0: "*", 1: "+"}.get(low, f"{{{low},}}")
        elif (low, high) == (0, 1):
            count = "?"
        else:
            count = f"{{{low}}}" if low == high else f"{{{low},{high}}}"
        lazy = "?" if op is sre.MIN_REPEAT else ""
        return "(?:" + self.sequence(body, flags) + ")" + count + lazy

    def anchor(self, at: object, flags: int) -> str:
        multiline = flags & sre.SRE_FLAG_MULTILINE
        if at is sre.AT_BEGINNING:
            return "(?m:^)" if multiline else r"\A"
        if at is sre.AT_BEGINNING_STRING:
            return r"\A"
        if at is sre.AT_END:
            return "(?m:$)" if multiline else self.widen("(?m:$)")
        if at is sre.AT_END_STRING:
            return r"\z"
        if at in (sre.AT_BOUNDARY, sre.AT_NON_BOUNDARY):
            # RE2's \B also holds inside a multi-byte character, where Python has no position
            if at is sre.AT_BOUNDARY and flags & sre.SRE_FLAG_ASCII:
                return r"\b"
            if not self.exact:
                return ""
            self.ascii_only = True
            return r"\b" if at is sre.AT_BOUNDARY else r"\B"
        raise _Unsupported

    def charset(self, ranges: list, categories: list, negate: bool, flags: int) -> str:
        """A character class with Python's case folding and classes."""
        ascii_mode = flags & sre.SRE_FLAG_ASCII
        classes = ASCII_CLASSES if ascii_mode else UNICODE_CLASSES
        fold = flags & sre.SRE_FLAG_IGNORECASE
        ranges = list(ranges)
        if fold and ascii_mode:
            ranges += _ascii_case_partners(ranges)
        elif fold and any(lo <= c <= hi for lo, hi in ranges for c in DOTTED_I):
            ranges += [(c, c) for c in DOTTED_I]
        inside = "".join(_char(lo) if lo == hi else f"{_char(lo)}-{_char(hi)}" for lo, hi in ranges)
        inside += "".join(classes[c] for c in categories if c in classes)
        negated = [classes[NEGATED[c]] for c in categories if c in NEGATED]
        if len(negated) + sum(c in classes for c in categories) != len(categories):
            raise _Unsupported
        if negate:
            if negated and not inside and len(negated) == 1:
                text = f"[{negated[0]}]"  # [^\W] is \w
            else:
                if negated:
                    self.widen("")  # [^a\W]: dropping \W from what is excluded widens it
                text = f"[^{inside}]"
        else:
            parts = ([f"[{inside}]"] if inside else []) + [f"[^{n}]" for n in negated]
            text = parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
        return f"(?i:{text})" if fold and not ascii_mode else text


def _ascii_case_partners(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The other case of the ASCII letters in ``ranges`` (IGNORECASE with ASCII)."""
    partners = []
    for lo, hi in ranges:
        for first, last, shift in ((0x41, 0x5A, 0x20), (0x61, 0x7A, -0x20)):
            a, b = max(lo, first), min(hi, last)
            if a <= b:
                partners.append((a + shift, b + shift))
    return partners
