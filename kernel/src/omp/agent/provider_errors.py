"""What the kernel itself reads in a provider's error text: whether the context
overflowed (compaction then shrinks it and retries), and key-shaped text to hide before
a run mode prints a reason. The HTTP layer (``omp_llm``) classifies with the same two.

Standard library only.
"""

from __future__ import annotations

import re

_OVERFLOW_PATTERNS = [
    r"prompt is too long",
    r"context[_ ]length[_ ]exceeded",
    r"maximum context length",
    r"context window",
    r"too many tokens",
    r"input is too long",
    r"exceeds? the (?:model'?s? )?(?:maximum )?(?:context|token)",
    r"request too large",
    r"input token count.*exceeds",
    r"reduce the length of the messages",
]
_OVERFLOW = re.compile("|".join(_OVERFLOW_PATTERNS), re.IGNORECASE)
_KEY_SHAPE = re.compile(r"\b(sk-[A-Za-z0-9_\-]{3})[A-Za-z0-9_\-]{10,}")


def is_context_overflow(message: str) -> bool:
    """Whether a provider's error message says the request did not fit the context."""
    return bool(_OVERFLOW.search(message or ""))


def redact(text: str, secrets: list[str | None]) -> str:
    """``text`` with every secret (and any recognisable key prefix) hidden."""
    for secret in secrets:
        if secret and len(secret) >= 6:
            text = text.replace(secret, "[redacted]")
    return _KEY_SHAPE.sub(r"\1…[redacted]", text)
